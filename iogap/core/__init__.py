'''What every family shares: base test, variants, steps, scratch, figures.'''
