'''What would let a figure re-baselining left unjudged be judged, and what
it costs: more repetitions (for a spread between runs, not within a job)
or larger sizes (if the spread is a fixed time jitter, an assumption).'''

import json
import math

from iogap.judge import noise
from iogap.plan import cost
from iogap.plan import inventory as cases

#: The most repetitions proposed
MOST_RUNS = 30


def _factor(runs):
    return noise._FEW_RUNS.get(runs, 1.2)


def _case(family, part, params):
    '''The profile's case of a figure, or ``None``.'''
    return next((c for c in cases.measured().values()
                 if c.family == family and c.partition == part and all(
                     str(c.params.get(k)) == str(v)
                     for k, v in params.items())), None)


def advice(ident, values, cvs):
    '''One line: what would let the figure ``ident`` be judged, at what
    cost.'''
    family, part, params, var = ident
    params = json.loads(params) if isinstance(params, str) else params
    # the runs' spread without its few-runs factor, and the job's largest
    between = noise.spread(values) / _factor(len(values)) \
        if len(values) >= noise.MIN_RUNS else None
    within = max(cvs, default=0.0)
    bounded = max((between or 0) * _factor(len(values)), within)
    case = _case(family, part, params)
    seconds = cost.estimate(case)[0] if case else None
    wide = noise.K_SIGMA * within > noise.MAX_TOLERANCE
    # the fewest repetitions whose band would be narrow enough
    runs = None if between is None or wide else next((
        n for n in range(noise.MIN_RUNS, MOST_RUNS + 1) if
        noise.K_SIGMA * between * _factor(n) <= noise.MAX_TOLERANCE), None)
    ways = [f'--repeat {runs}' + (f' ({runs} x {seconds:.0f} s)' if seconds
                                   else '')] if runs else \
        [f'no number of repetitions (the spread within each job, '
         f'{within:.0%}, is itself too wide)' if wide else f'no number of '
         f'repetitions up to {MOST_RUNS}']
    # the profile setting that sizes the family's transfer
    setting = next((m.SIZE[family] for m in cost.models().values()
                    if family in getattr(m, 'SIZE', {})), None)
    # times more bytes a run needs to narrow a jitter of that size
    k = max(2, math.ceil(noise.K_SIGMA * bounded / noise.MAX_TOLERANCE))
    if setting:
        # a run's estimate with k times the bytes
        start = case.part.extras['plan_start_seconds'] if case else None
        more = start + (seconds - start) * k if case else None
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
