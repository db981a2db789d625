'''Judgements of the figures, as stored in reference/<system>.yaml:
absolute bounds per case, ratios between cases, fits over a sweep, and
mechanisms observed directly.'''

import reframe as rfm
from reframe.core.builtins import parameter

from iogap.judge import checks


class AbsoluteCheck(checks.AbsoluteCheck):
    #: A case and the absolute references of its figures
    target = parameter(checks.absolute_targets(), fmt=checks.target_name)


class RatioCheck(checks.RatioCheck):
    #: One ratio entry of the current system's reference file
    ratio = parameter(checks.entries('ratios'), fmt=lambda r: r['name'])


class FitCheck(checks.FitCheck):
    #: One fit entry of the current system's reference file
    fit = parameter(checks.entries('fits'), fmt=lambda f: f['name'])


class MechanismCheck(checks.MechanismCheck):
    #: One mechanism entry of the current system's reference file
    mechanism = parameter(checks.entries('mechanisms'),
                          fmt=lambda m: m['name'])


# A system without such references has nothing to judge: no empty checks
for _check in (AbsoluteCheck, RatioCheck, FitCheck, MechanismCheck):
    if _check.num_variants:
        rfm.simple_test(_check)
