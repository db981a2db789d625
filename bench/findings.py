'''The generic profile's findings over the clean runs of the detection
benchmark (bench/detection.py): the spread of each ratio of dd figures, and
of what Darshan costs a direct write (dd and IOR with darshan=on over
without).'''

import statistics

from bench.singleruns import values
from iogap.dd.figures import BW as DD_BW
from iogap.pio.figures import BW as IOR_BW

_DD = {p: DD_BW.name(pattern=p) for p in DD_BW.fields['pattern']}

#: The generic profile's findings, ratios of the clean runs' figures
FINDINGS = {
    'cached_over_first_read_bw': (('buffered', _DD['read_3x']),
                                  ('buffered', _DD['read_once'])),
    'direct_read_over_cached_read_bw': (('direct', _DD['read_once']),
                                        ('buffered', _DD['read_3x'])),
    'dsync_over_direct_write_bw': (('dsync', _DD['write']),
                                   ('direct', _DD['write'])),
    'buffered_over_dsync_write_bw': (('buffered', _DD['write']),
                                     ('dsync', _DD['write'])),
}


def findings(*reports):
    '''Spread of the generic findings over every clean run.'''
    found = {}
    for name, ((nmode, nvar), (dmode, dvar)) in FINDINGS.items():
        ratios = []
        for report in reports:
            num = values(report, 'DDSingleStream', {'mode': nmode}, nvar)
            den = values(report, 'DDSingleStream', {'mode': dmode}, dvar)
            ratios += [n / d for n, d in zip(num, den)]
        found[name] = _spread(ratios)
    for name, check, write in (
            ('darshan_over_bare_dd_direct_write_bw', 'DDSingleStream',
             _DD['write']),
            ('darshan_over_bare_ior_direct_write_bw', 'IORBench',
             IOR_BW.name(phase='write'))):
        ratios = []
        for report in reports:
            on = values(report, check, {'mode': 'direct'}, write,
                        darshan='on')
            off = values(report, check, {'mode': 'direct'}, write)
            ratios += [a / b for a, b in zip(on, off)]
        found[name] = _spread(ratios)
    return found


def _spread(ratios):
    return {'min': min(ratios), 'median': statistics.median(ratios),
            'max': max(ratios), 'runs': len(ratios)}
