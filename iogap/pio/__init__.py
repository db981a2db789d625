'''Parallel I/O families: IOR bandwidth, collective I/O, mdtest rates.'''
