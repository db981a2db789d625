'''dd families: one stream in three I/O modes, and its CPU-clock sweep.'''

#: Its modules define test families (see iogap.core.registry)
HOLDS_FAMILIES = True
