'''Ratios between measurements, as stored in reference/<system>.yaml.'''

import reframe as rfm
from reframe.core.builtins import parameter

from iogap import ratios


@rfm.simple_test
class RatioCheck(ratios.RatioCheck):
    #: One ratio entry of the current system's reference file
    ratio = parameter(ratios.current_ratios(), fmt=lambda r: r['name'])
