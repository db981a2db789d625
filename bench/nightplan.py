'''What each night of bench/nights.py runs: its groups of cases (dd, IOR)
with how to slow each, the stable figures judged, the slowdown of every
night, the references the slowdowns are taken from, and how far each
level's caps are corrected to land on its target.'''

import statistics

from iogap.dd.figures import BW as DD_BW, PAIRED as DD_PAIRED
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

#: The stable figures the benchmark judges: (check, mode, figure), each
#: dd figure raw and paired with the memory copy of its repetitions
STABLE = [('DDSingleStream', mode, figure.name(pattern=pattern))
          for mode, pattern in (('direct', 'write'), ('direct', 'read_once'),
                                ('buffered', 'read_3x'))
          for figure in (DD_BW, DD_PAIRED)] + [
          ('IORBench', 'direct', IOR_BW.name(phase='write')),
          ('IORBench', 'direct', IOR_BW.name(phase='read_once'))]


def schedule(night, cycle=CYCLE):
    '''The slowdown (%) of night ``night`` (0-based).'''
    return 0 if night < REF_NIGHTS else cycle[(night - REF_NIGHTS) %
                                              len(cycle)]


#: A level's cap correction stays within these factors, and follows the
#: median of its last ``FOLLOW`` nights
CORRECTION, FOLLOW = (0.5, 8.0), 3


def references(records):
    '''Median of each throttled figure over the last ``REF_NIGHTS`` clean
    nights (the host drifts: the first ones would aim every later level
    off its target), or ``{}`` until there are that many.'''
    refs = {}
    for group, spec in GROUPS.items():
        clean = [r for _, g, r in records if g == group and r['slowdown'] == 0
                 and r['values']][-REF_NIGHTS:]
        if len(clean) < REF_NIGHTS:
            continue
        for way, (check, mode, figure) in spec['throttle'].items():
            got = [r['values'].get(f'{check}:{mode}:{figure}') for r in clean]
            got = [v for v in got if v]
            if got:
                refs[(group, way)] = statistics.median(got)
    return refs


def achieved(record, refs, group):
    '''``{way: the night's figure over its reference}`` of a slowed
    night's throttled figures (a 10 % slowdown on target gives 0.9).'''
    found = {}
    for way, (check, mode, figure) in GROUPS[group]['throttle'].items():
        value = record['values'].get(f'{check}:{mode}:{figure}')
        if value and refs.get((group, way)):
            found[way] = value / refs[(group, way)]
    return found


def corrections(records, group, slowdown):
    '''``{way: factor}`` on the caps of ``slowdown``: the throttle and the
    device's own time add up differently for writes and reads, so each
    level learns from its last nights how far its caps must move for the
    figure to land on ``1 - slowdown``.'''
    found = {}
    for way in GROUPS[group]['throttle']:
        past = [r['correction'][way] * (1 - slowdown / 100) /
                r['achieved'][way] for _, g, r in records
                if g == group and r['slowdown'] == slowdown
                and way in r.get('achieved', {})][-FOLLOW:]
        found[way] = min(max(statistics.median(past), CORRECTION[0]),
                         CORRECTION[1]) if past else 1.0
    return found
