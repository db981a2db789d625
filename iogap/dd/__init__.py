'''dd families: one stream in buffered, dsync and direct mode, and the
CPU-clock sweep of its writes.'''

#: Its modules define test families (see iogap.core.registry)
HOLDS_FAMILIES = True
