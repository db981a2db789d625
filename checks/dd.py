'''dd single stream: buffered, dsync and direct write and read bandwidth,
and the write at each CPU clock of a +cpufreq partition.'''

import reframe as rfm

from iogap.dd import clocks as sweep
from iogap.dd import stream


@rfm.simple_test
class DDSingleStream(stream.DDSingleStream):
    pass


class DDFrequencySweep(sweep.DDFrequencySweep):
    pass


if DDFrequencySweep.num_variants:   # no clocks on this system: no sweep
    rfm.simple_test(DDFrequencySweep)
