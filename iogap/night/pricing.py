'''The price of a site's first baseline (iogap profile onboard):
its cases, their cost from the planner's model (:mod:`iogap.plan.cost`) at
each size of dd's ladder and each number of runs, the point a budget buys,
and how many more runs of the cases left too noisy the rest of it buys.'''

import re

from iogap.errors import IogapError
from iogap.plan import cost

#: The first baseline's cases by default: the plain variants of the direct
#: dd (the study's steadiest figures) and of the OSU latency
PLAIN = '(?=.*%core_spec=0)(?=.*%cpu_bind=default)'
SELECT = (f'^DDSingleStream(?=.*%mode=direct)(?=.*%darshan=off){PLAIN}',
          f'^OSULatency{PLAIN}')

#: dd counts tried (blocks of the profile's dd_block_size), never above
#: the profile's own dd_count
COUNTS = (16, 64, 256, 1024)

#: Runs of every case (ReFrame's --repeat): the noise model needs 3
REPEATS = (3, 5)


def matching(found, patterns):
    '''The cases ReFrame's ``-n`` selects: a regular expression searched
    in the display name with its spaces removed.'''
    return {k: c for k, c in found.items() if any(
        re.search(p, c.name.replace(' ', '')) for p in patterns)}


def ladder(cases, most, history=None):
    '''``[(count, repeat, node-hours, seconds, bytes written)]`` of the
    baseline at each dd count up to ``most`` and each number of runs,
    calibrated on the ``history`` of runs at the profile's own.'''
    points = []
    for count in sorted({c for c in COUNTS if c < most} | {most}):
        row = [0.0, 0.0, 0]
        for one in cost.resized(cases, {'dd_count': count},
                                history).values():
            row = [row[0] + one.node_hours, row[1] + one.seconds,
                   row[2] + one.written]
        points += [(count, r, r * row[0], r * row[1], r * row[2])
                   for r in REPEATS]
    return points


def choose(points, budget):
    '''The largest count, then the most runs, within ``budget``.'''
    fits = [p for p in points if p[2] <= budget]
    if not fits:
        cheapest = min(points, key=lambda p: p[2])
        raise IogapError(f'the smallest baseline ({describe(cheapest)}) '
                         f'exceeds the budget of {budget:g} node-hours: give '
                         f'--budget {cheapest[2]:.2g} or more, or --select '
                         f'fewer cases')
    return max(fits, key=lambda p: (p[0], p[1]))


def describe(point):
    count, repeat, hours, seconds, written = point
    return (f'dd count={count}, {repeat} runs: {hours:.3g} node-hours, '
            f'{seconds / 60:.1f} min serial, {written / 1e9:.3g} GB written')


#: Runs a further round gives the cases whose figures are still too noisy
#: (pooled with the runs before), and the rounds at most
MORE_RUNS, ROUNDS = (2, 3, 5), 3


def more_runs(cases, count, left, history=None):
    '''The most runs of ``MORE_RUNS`` of ``cases`` at dd ``count`` that
    ``left`` node-hours buy at what their runs took (``history``), with
    their cost, or ``(0, cost of the fewest)``.'''
    one = sum(c.node_hours for c in cost.costs(
        cases, extras={'dd_count': count}, history=history).values())
    fits = [r for r in MORE_RUNS if r * one <= left]
    return (fits[-1], fits[-1] * one) if fits else (0, MORE_RUNS[0] * one)
