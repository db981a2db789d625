'''A figure's series of nights judged for a recent step change.

Tonight's band asks whether one value is out of bounds; this asks whether
the last few nights, together, sit lower (or higher, for a latency) than
the nights before them. For each candidate start ``s`` among the last
``WINDOW`` nights, the nights from ``s`` on are compared with the
``HISTORY`` nights before ``s`` by Student's two-sample t-test on the
logarithms (scipy.stats.ttest_ind, pooled variance: it works with one
night after the step), one-sided in the figure's worse direction. The most
significant candidate is the step; its p-value is multiplied by the
number of candidates (Bonferroni) and a step is reported when that is
below ``ALPHA``. Its size is the ratio of the geometric means minus one,
with the t-test's confidence interval. docs/changepoints.md says why this
and not E-divisive (apache-otava) or penalised segmentation (ruptures).
'''

import math
from dataclasses import dataclass

from iogap.core.figures import HIGHER, LOWER

#: Nights in which a step may have started to be reported
WINDOW = 5

#: Nights before a candidate step it is compared with
HISTORY = 20

#: Nights needed before the earliest candidate
MIN_BEFORE = 5

#: Family-wise false-alarm rate of one night's verdict on one figure
ALPHA = 0.01

#: Confidence of the interval on the step's size
CONFIDENCE = 0.9


@dataclass
class Step:
    '''A step change: the nights from ``start`` on against those before.'''
    start: int           #: index of the first night after the step
    size: float          #: relative change of the (geometric) mean
    low: float           #: lower end of the size's confidence interval
    high: float          #: upper end
    pvalue: float        #: after the Bonferroni correction
    before: int          #: nights compared before the step
    after: int           #: nights after it

    def describe(self):
        return (f'{self.size:+.1%} (90 % CI {self.low:+.1%} to '
                f'{self.high:+.1%}; p = {self.pvalue:.2g}, {self.after} '
                f'night(s) after against {self.before} before)')


def _test(before, after, worse):
    import warnings
    from scipy import stats
    alternative = 'less' if worse == 'down' else 'greater'
    with warnings.catch_warnings():     # near-equal values: p is still right
        warnings.simplefilter('ignore', RuntimeWarning)
        result = stats.ttest_ind(after, before, equal_var=True,
                                 alternative=alternative)
        two_sided = stats.ttest_ind(after, before, equal_var=True)
        ci = two_sided.confidence_interval(CONFIDENCE)
    return result.pvalue, ci.low, ci.high


def recent_step(values, better, window=WINDOW, history=HISTORY,
                alpha=ALPHA, min_before=MIN_BEFORE):
    '''``(step, reason)``: the most significant step in the worse direction
    among the last ``window`` nights of ``values`` (oldest first), or
    ``(None, why not)``. ``better`` is the figure's declared direction
    (:data:`HIGHER` or :data:`LOWER`); other figures are not judged.'''
    if better not in (HIGHER, LOWER):
        return None, 'the figure declares no better direction'
    if any(v is None or not v > 0 or math.isinf(v) for v in values):
        return None, 'a value is not a positive number'
    if len(values) < min_before + 1:
        return None, (f'{len(values)} night(s): a step needs at least '
                      f'{min_before + 1}')
    logs = [math.log(v) for v in values]
    worse = 'down' if better == HIGHER else 'up'
    starts = range(max(min_before, len(logs) - window), len(logs))
    best = None
    for s in starts:
        before, after = logs[max(0, s - history):s], logs[s:]
        if len(set(before + after)) < 2:
            continue        # constant values: no variance to test with
        p, low, high = _test(before, after, worse)
        if best is None or p < best[0]:
            best = (p, s, low, high, len(before), len(after))
    if best is None:
        return None, 'the values do not vary: nothing to test'
    p, s, low, high, n_before, n_after = best
    p = min(1.0, p * len(starts))
    step = Step(s, _ratio(logs, s, n_before), math.expm1(low),
                math.expm1(high), p, n_before, n_after)
    if p >= alpha:
        return None, f'no step (most likely at night {s}: {step.describe()})'
    return step, 'step'


def _ratio(logs, s, n_before):
    before, after = logs[s - n_before:s], logs[s:]
    return math.expm1(sum(after) / len(after) - sum(before) / len(before))
