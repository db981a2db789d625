'''Where the benchmark tools come from: Spack, a view, or PATH.'''
