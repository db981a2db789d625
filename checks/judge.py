'''Judgements of the figures, as stored in reference/<system>.yaml:
absolute bounds per case, ratios between cases, fits over a sweep, and
mechanisms observed directly.'''

import sys

import reframe as rfm
from reframe.core.builtins import parameter

from iogap.core import session
from iogap.judge import readings


class AbsoluteCheck(readings.AbsoluteCheck):
    #: A case and the absolute references of its figures
    target = parameter(readings.absolute_targets(), fmt=readings.target_name)


class RatioCheck(readings.RatioCheck):
    #: One ratio entry of the current system's reference file
    ratio = parameter(readings.entries('ratios'), fmt=lambda r: r['name'])


class FitCheck(readings.FitCheck):
    #: One fit entry of the current system's reference file
    fit = parameter(readings.entries('fits'), fmt=lambda f: f['name'])


class MechanismCheck(readings.MechanismCheck):
    #: One mechanism entry of the current system's reference file
    mechanism = parameter(readings.entries('mechanisms'),
                          fmt=lambda m: m['name'])


# A system without such references has nothing to judge: no empty readings.
# --distribute runs every case once per node, under names no judgement can
# depend on: the judgements are refused, saying so, never silently lost
_judgements = [c for c in (AbsoluteCheck, RatioCheck, FitCheck,
                           MechanismCheck) if c.num_variants]
if _judgements and session.distributes(sys.argv):
    print(f'iogap: --distribute measures each node apart: the '
          f'{sum(c.num_variants for c in _judgements)} judgements are not '
          f'run (judge a run without --distribute)', file=sys.stderr)
else:
    for _check in _judgements:
        rfm.simple_test(_check)
