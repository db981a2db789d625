'''What would let a figure re-baselining left unjudged be judged, and what
it costs (the planner's cost model, :mod:`iogap.plan.cost`).

A figure is unjudged when ``K_SIGMA`` times its spread exceeds
``MAX_TOLERANCE`` (:mod:`iogap.judge.noise`). Two ways narrow it:

- more repetitions, when the spread is between runs: the spread's upper
  bound shrinks with the number of runs, down to what the runs show;
  no number of runs narrows the spread a job measures within itself;
- larger sizes, when the spread is a time jitter of fixed size (start-up,
  the clock, a neighbour's burst): its share of a longer transfer falls
  as the bytes grow. An assumption, said as one.
'''

import json
import math

from iogap.judge import noise
from iogap.plan import cost
from iogap.plan import inventory as cases

#: The most repetitions proposed
MOST_RUNS = 30


def _factor(runs):
    return noise._FEW_RUNS.get(runs, 1.2)


def spreads(values, cvs):
    '''``(between runs, within the job)``: the runs' relative spread
    before its few-runs bound (``None`` under ``MIN_RUNS``), and the
    largest the job measured.'''
    runs = noise.spread(values) / _factor(len(values)) \
        if len(values) >= noise.MIN_RUNS else None
    return runs, max(cvs, default=0.0)


def runs_needed(between, within):
    '''Repetitions whose band would be narrow enough, or ``None``.'''
    if between is None or noise.K_SIGMA * within > noise.MAX_TOLERANCE:
        return None
    for runs in range(noise.MIN_RUNS, MOST_RUNS + 1):
        if noise.K_SIGMA * between * _factor(runs) <= noise.MAX_TOLERANCE:
            return runs
    return None


def size_factor(bounded):
    '''How many times more bytes a run would need for the band of a
    figure of ``bounded`` spread to be narrow enough, if the spread is a
    fixed time jitter.'''
    return max(2, math.ceil(noise.K_SIGMA * bounded / noise.MAX_TOLERANCE))


def _case(family, part, params):
    '''The profile's case of a figure, or ``None``.'''
    for case in cases.measured().values():
        if case.family == family and case.partition == part and all(
                str(case.params.get(k)) == str(v) for k, v in params.items()):
            return case
    return None


def advice(ident, values, cvs):
    '''One line: what would let the figure ``ident`` (family, partition,
    params, var) be judged, and the cost of each way.'''
    family, part, params, var = ident
    params = json.loads(params) if isinstance(params, str) else params
    between, within = spreads(values, cvs)
    bounded = max((between or 0) * _factor(len(values)), within)
    case = _case(family, part, params)
    seconds = cost.estimate(case)[0] if case else None
    runs = runs_needed(between, within)
    ways = [f'--repeat {runs}' + (f' ({runs} x {seconds:.0f} s)' if seconds
                                   else '')] if runs else \
        [f'no number of repetitions (the spread within each job, '
         f'{within:.0%}, is itself too wide)' if noise.K_SIGMA * within >
         noise.MAX_TOLERANCE else f'no number of repetitions up to '
         f'{MOST_RUNS}']
    # the profile setting that sizes the family's transfer (its model's)
    setting = next((m.SIZE[family] for m in cost.models().values()
                    if family in getattr(m, 'SIZE', {})), None)
    k = size_factor(bounded)
    if setting:
        more = _larger_seconds(case, k) if case else None
        ways.append(f'{setting} x{k} of the runs\' (if the spread is a time '
                    f'jitter of fixed size' + (f'; {more:.0f} s a run instead'
                                               f' of {seconds:.0f} s'
                                               if more else '') + ')')
    else:
        ways.append('no size to grow (a latency or rate of fixed size)')
    label = ','.join(f'{k}={v}' for k, v in sorted(params.items()))
    return (f'{family}@{part}:{label} {var}: spread {bounded:.0%} over '
            f'{len(values)} run(s) (band {noise.K_SIGMA:g} x spread > '
            f'{noise.MAX_TOLERANCE:.0%}); would be judged with ' +
            ' or '.join(ways) + ('; costs are the plan\'s estimates at the '
                                 'profile\'s sizes' if seconds else
                                 '; no such case in the profile to cost'))


def _larger_seconds(case, k):
    '''A run's plan estimate with ``k`` times the bytes.'''
    start = case.part.extras['plan_start_seconds']
    seconds = cost.estimate(case)[0]
    return start + (seconds - start) * k
