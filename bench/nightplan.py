'''What each night of bench/nights.py runs: its groups of cases (dd, IOR)
with how to slow each, the stable figures judged, the slowdown of every
night, and the references the slowdowns are taken from.'''

import statistics

from iogap.dd.figures import BW as DD_BW
from iogap.pio.figures import BW as IOR_BW

#: Clean nights that set the references before any slowdown
REF_NIGHTS = 6

#: Slowdowns (%) of the nights after the references, in turn
CYCLE = (0, 5, 0, 10, 0, 25)

#: 256 MiB dd steps keep a night short (dd's default here is 1 GiB)
GROUPS = {
    'dd': {'select': 'DDSingleStream.*%cpu_bind=default.*%darshan=off'
                     '.*%mode=(direct|buffered)',
           'set': ['-S', 'DDSingleStream.count=256'],
           'cpu': True,
           'step_bytes': 256 * 2**20,
           'unit': 1e6,                       # its figures are MB/s
           'throttle': {'write': ('DDSingleStream', 'direct',
                                  DD_BW.name(pattern='write')),
                        'read': ('DDSingleStream', 'direct',
                                 DD_BW.name(pattern='read_once'))}},
    'ior': {'select': 'IORBench.*%cpu_bind=default.*%darshan=off.*'
                      '%procs_per_node=2.*%layout=fpp%api=POSIX%mode=direct',
            'set': [],
            'cpu': False,
            'step_bytes': 2 * 64 * 2**20,     # one iteration, two tasks
            'unit': 2**20,                    # its figures are MiB/s
            'throttle': {'write': ('IORBench', 'direct',
                                   IOR_BW.name(phase='write')),
                         'read': ('IORBench', 'direct',
                                  IOR_BW.name(phase='read_once'))}},
}

#: The stable figures the benchmark judges: (check, mode, figure)
STABLE = [('DDSingleStream', 'direct', DD_BW.name(pattern='write')),
          ('DDSingleStream', 'direct', DD_BW.name(pattern='read_once')),
          ('DDSingleStream', 'buffered', DD_BW.name(pattern='read_3x')),
          ('IORBench', 'direct', IOR_BW.name(phase='write')),
          ('IORBench', 'direct', IOR_BW.name(phase='read_once'))]


def schedule(night, cycle=CYCLE):
    '''The slowdown (%) of night ``night`` (0-based).'''
    return 0 if night < REF_NIGHTS else cycle[(night - REF_NIGHTS) %
                                              len(cycle)]


def references(records):
    '''Median of each throttled figure over the first clean nights, or
    ``{}`` until there are ``REF_NIGHTS`` of them.'''
    refs = {}
    for group, spec in GROUPS.items():
        clean = [r for _, g, r in records if g == group and r['slowdown'] == 0
                 and r['values']][:REF_NIGHTS]
        if len(clean) < REF_NIGHTS:
            continue
        for way, (check, mode, figure) in spec['throttle'].items():
            got = [r['values'].get(f'{check}:{mode}:{figure}') for r in clean]
            got = [v for v in got if v]
            if got:
                refs[(group, way)] = statistics.median(got)
    return refs
