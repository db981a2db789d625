'''Judgements of the figures, as stored in the reference file of the
system ReFrame runs: absolute bounds per case, ratios between cases, fits
over a sweep, and mechanisms observed directly.'''

import reframe as rfm
import reframe.core.runtime as rt
from reframe.core.builtins import parameter

from iogap.judge import readings, references

#: The reference file of the system this run is on (its configuration
#: loaded and checked it before any test), or ``None``
REFERENCES = references.of_system(rt.runtime().system)


class AbsoluteCheck(readings.AbsoluteCheck):
    #: A case and the absolute references of its figures
    target = parameter(readings.absolute_targets(REFERENCES),
                       fmt=readings.target_name)


class RatioCheck(readings.RatioCheck):
    #: One ratio entry of the reference file
    ratio = parameter(readings.entries(REFERENCES, 'ratios'),
                      fmt=lambda r: r['name'])


class FitCheck(readings.FitCheck):
    #: One fit entry of the reference file
    fit = parameter(readings.entries(REFERENCES, 'fits'),
                    fmt=lambda f: f['name'])


class MechanismCheck(readings.MechanismCheck):
    #: One mechanism entry of the reference file
    mechanism = parameter(readings.entries(REFERENCES, 'mechanisms'),
                          fmt=lambda m: m['name'])


# A system without such references has nothing to judge: no empty readings
for _check in (AbsoluteCheck, RatioCheck, FitCheck, MechanismCheck):
    if _check.num_variants:
        rfm.simple_test(_check)
