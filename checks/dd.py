'''dd single stream: buffered, dsync and direct write and read bandwidth.'''

import reframe as rfm

from iogap import ddfreq, ddstream


@rfm.simple_test
class DDSingleStream(ddstream.DDSingleStream):
    pass


@rfm.simple_test
class DDFrequencySweep(ddfreq.DDFrequencySweep):
    pass


@rfm.simple_test
class DDFrequencyFit(ddfreq.DDFrequencyFit):
    pass
