'''fio: several threads reading through O_DIRECT on one core.'''

import reframe as rfm

from iogap.fio import threads


class FioThreads(threads.FioThreads):
    pass


if FioThreads.num_variants:   # no thread sweep on this system: no check
    rfm.simple_test(FioThreads)
