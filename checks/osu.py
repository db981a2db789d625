'''OSU micro-benchmarks: MPI latency, bandwidth and collective latency.'''

import reframe as rfm

from iogap import osu


@rfm.simple_test
class OSULatency(osu.OSULatency):
    pass


@rfm.simple_test
class OSUBandwidth(osu.OSUBandwidth):
    pass


@rfm.simple_test
class OSUBiBandwidth(osu.OSUBiBandwidth):
    pass


@rfm.simple_test
class OSUAlltoall(osu.OSUAlltoall):
    pass


@rfm.simple_test
class OSUAllreduce(osu.OSUAllreduce):
    pass
