'''IOR and mdtest: parallel bandwidth and metadata rates over processes per
node, nodes, file layouts, APIs, I/O modes, collective buffering, Lustre
striping and CPU clocks.'''

import reframe as rfm

from iogap.pio import collective, ior, mdtest


@rfm.simple_test
class IORBench(ior.IORBench):
    pass


@rfm.simple_test
class IORCollective(collective.IORCollective):
    pass


@rfm.simple_test
class MDTestBench(mdtest.MDTestBench):
    pass


class IORFrequencySweep(ior.IORFrequencySweep):
    pass


if IORFrequencySweep.num_variants:   # no clocks on this system: no sweep
    rfm.simple_test(IORFrequencySweep)
