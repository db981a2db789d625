'''OSU micro-benchmarks: MPI latency, bandwidth and collective latency.'''

import reframe as rfm

from iogap.osu import collective, pt2pt


@rfm.simple_test
class OSULatency(pt2pt.OSULatency):
    pass


@rfm.simple_test
class OSUBandwidth(pt2pt.OSUBandwidth):
    pass


@rfm.simple_test
class OSUBiBandwidth(pt2pt.OSUBiBandwidth):
    pass


@rfm.simple_test
class OSUAlltoall(collective.OSUAlltoall):
    pass


@rfm.simple_test
class OSUAllreduce(collective.OSUAllreduce):
    pass
