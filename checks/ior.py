'''IOR and mdtest: parallel bandwidth and metadata rates over processes per
node, nodes, file layouts, APIs, I/O modes, collective buffering and
Lustre striping.'''

import reframe as rfm

from iogap import ior, iorcollective, mdtest


@rfm.simple_test
class IORBench(ior.IORBench):
    pass


@rfm.simple_test
class IORCollective(iorcollective.IORCollective):
    pass


@rfm.simple_test
class MDTestBench(mdtest.MDTestBench):
    pass
