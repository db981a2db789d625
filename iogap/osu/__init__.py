'''OSU micro-benchmark families: MPI latency and bandwidth, collectives.'''
