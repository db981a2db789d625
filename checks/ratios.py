'''Ratios between measurements, as stored in reference/<system>.yaml.'''

import reframe as rfm
from reframe.core.builtins import parameter

from iogap import ratios

_RATIOS = ratios.current_ratios()


class RatioCheck(ratios.RatioCheck):
    #: One ratio entry of the current system's reference file
    ratio = parameter(_RATIOS, fmt=lambda r: r['name'])


if _RATIOS:     # a system without ratio references has nothing to divide
    rfm.simple_test(RatioCheck)
