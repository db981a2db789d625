'''DDFrequencySweep: the dd write at each CPU clock of a partition, a case
per clock of ``extras['cpu_freqs_khz']`` (``--cpu-freq``). The study found
buffered writes track the clock (r² 0.95 KNL, 0.79 Haswell) and dsync and
direct not (0.03-0.16); the fit across clocks is a judgement.'''

from reframe.core.builtins import parameter

from iogap.core import Figures, family, variant
from iogap.dd.figures import BW, MEMORY_BW, PAIRED
from iogap.dd.stream import DDSingleStream


@family
class DDFrequencySweep(DDSingleStream):
    '''dd write bandwidth at one CPU clock (median of the repetitions).'''

    # Paired night by night like the stream's; the fit takes the raw
    # write_bw, since the copy tracks the clock too and the ratio would
    # divide out the very dependence the sweep measures
    figures = Figures(BW, *Figures.spread(BW.template, BW.unit,
                                          pattern=('write',)),
                      PAIRED, MEMORY_BW)

    # The study swept plain dd: no binding, core-spec or Darshan variants
    core_spec = parameter(inherit_params=True, filter_params=lambda p: p[:1])
    cpu_bind = parameter(inherit_params=True, filter_params=lambda p: p[:1])
    darshan = parameter(inherit_params=True, filter_params=lambda p: p[:1])
    #: The CPU clock of the case (kHz), checked in the job
    cpu_freq = variant.cpu_freq()
    reads = 0
