'''Parallel I/O families: IOR bandwidth, collective I/O, mdtest rates.'''

#: Its modules define test families (see iogap.core.registry)
HOLDS_FAMILIES = True
