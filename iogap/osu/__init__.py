'''OSU micro-benchmark families: MPI latency and bandwidth, collectives.'''

#: Its modules define test families (see iogap.core.registry)
HOLDS_FAMILIES = True
