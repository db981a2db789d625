'''IOR and mdtest: parallel bandwidth and metadata rates over processes per
node, nodes, file layouts, APIs, I/O modes, collective buffering, Lustre
striping, process affinity on an under-packed node and CPU clocks; the
study's contrasts, both sides in one job.'''

import reframe as rfm

from iogap.pio import affinity, collective, iorbench, mdtest, pair


@rfm.simple_test
class IORBench(iorbench.IORBench):
    pass


@rfm.simple_test
class IORCollective(collective.IORCollective):
    pass


@rfm.simple_test
class MDTestBench(mdtest.MDTestBench):
    pass


@rfm.simple_test
class IORAffinity(affinity.IORAffinity):
    pass


@rfm.simple_test
class IORPair(pair.IORPair):
    pass


class IORFrequencySweep(iorbench.IORFrequencySweep):
    pass


if IORFrequencySweep.num_variants:   # no clocks on this system: no sweep
    rfm.simple_test(IORFrequencySweep)
