'''DDFrequencySweep: the dd write at each CPU clock of a partition.

The study's central finding: buffered single-stream write bandwidth tracks
the CPU clock (r² 0.95 on KNL, 0.79 on Haswell) while dsync and direct do
not (r² 0.03-0.16); its I/O-modes table was measured at fixed clocks
(1.2-1.4 GHz). Each clock of ``extras['cpu_freqs_khz']`` is a case of its
own, launched with ``--cpu-freq``; the fit over the clocks is a judgement
(:mod:`iogap.judge`), like any ratio.
'''

from reframe.core.builtins import parameter

from iogap.core import Figures, family, variant
from iogap.dd.figures import BW, MEMORY_BW, PAIRED
from iogap.dd.stream import DDSingleStream


@family
class DDFrequencySweep(DDSingleStream):
    '''dd write bandwidth at one CPU clock (median of the repetitions).'''

    # Each clock's write paired with its memory copy, run at the same
    # clock in the same repetition: judged night by night like the
    # stream's, it divides out the night's load. The fit across clocks
    # takes the raw write_bw: the copy tracks the clock too, so the ratio
    # would divide out the very dependence the sweep measures.
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
