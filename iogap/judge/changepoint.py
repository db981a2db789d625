'''A figure's series of nights judged for a recent step change.

Tonight's band asks whether one value is out of bounds; this asks whether
the last few nights, together, sit lower (or higher, for a latency) than
the nights before them. For each candidate start ``s`` among the last
``WINDOW`` nights, the nights from ``s`` on are compared with the
``HISTORY`` nights before ``s`` by Student's two-sample t-test on the
logarithms (pooled variance: it works with one night after the step),
one-sided in the figure's worse direction, its variance widened when the
figure's clean nights are significantly autocorrelated (AR(1): the nights
after a step move together; threshold.widening). The most significant
candidate is the step. Its p-value is compared with a threshold set to the
false-alarm budget on the figure's own clean nights (the nights before the
candidates, block-bootstrapped: iogap.judge.threshold), or, with fewer
than ``calibration.MIN_NIGHTS`` of them, with ``ALPHA`` over the number of
candidates (Bonferroni). Its size is the ratio of the geometric means
minus one, with the t-test's confidence interval. A figure whose nights
cannot show twice the goal's step 9 times in 10 is judged for breakage
only, as is one its reference file declares so (``changepoints:``,
iogap.judge.breakage). docs/research/changepoints.md says why this and not
E-divisive (apache-otava) or penalised segmentation (ruptures).
'''

import math
from dataclasses import dataclass

from iogap.core.figures import HIGHER, LOWER
from iogap.judge import threshold as calibration

#: Nights in which a step may have started to be reported
WINDOW = 5

#: Nights before a candidate step it is compared with: 60, not 20, catch a
#: 10 % step within 3 nights at a 4 % spread in 87 % of simulated trials,
#: not 84 % (docs/research/changepoints.md, issue 50)
HISTORY = 60

#: Nights needed before the earliest candidate
MIN_BEFORE = 5

#: Family-wise false-alarm rate of the conservative rule (few nights)
ALPHA = calibration.ALPHA

#: Confidence of the interval on the step's size
CONFIDENCE = 0.9


@dataclass
class Step:
    '''A step change: the nights from ``start`` on against those before.'''
    start: int           #: index of the first night after the step
    size: float          #: relative change of the (geometric) mean
    low: float           #: lower end of the size's confidence interval
    high: float          #: upper end
    pvalue: float        #: the smallest one-sided p of the candidates
    before: int          #: nights compared before the step
    after: int           #: nights after it
    rule: calibration.Threshold = None   #: what decided it

    def describe(self):
        rule = self.rule.why if self.rule else ''
        return (f'{self.size:+.1%} (90 % CI {self.low:+.1%} to '
                f'{self.high:+.1%}; p = {self.pvalue:.2g}, {self.after} '
                f'night(s) after against {self.before} before; {rule})')


def _interval(before, after, phi=0.0):
    '''The t-test's confidence interval on the difference of the mean
    logs, widened for nights AR(1) with ``phi``.'''
    from scipy import stats
    nb, na = len(before), len(after)
    ss = ((before - before.mean()) ** 2).sum() + \
        ((after - after.mean()) ** 2).sum()
    se = math.sqrt(ss / (nb + na - 2) * (1 / nb + 1 / na) *
                   calibration.widening(phi, nb, na))
    half = stats.t.ppf((1 + CONFIDENCE) / 2, nb + na - 2) * se
    diff = after.mean() - before.mean()
    return diff - half, diff + half


def recent_step(values, better, window=WINDOW, history=HISTORY,
                min_before=MIN_BEFORE, calibrated=True, breakage=None,
                autocorrelated=True):
    '''``(step, reason)``: the most significant step in the worse direction
    among the last ``window`` nights of ``values`` (oldest first), or
    ``(None, why not)``. ``better`` is the figure's declared direction
    (:data:`HIGHER` or :data:`LOWER`); other figures are not judged.
    ``calibrated`` False keeps the conservative rule however many nights
    (the benchmark's before). ``breakage``, the reason a reference file
    gives, judges the figure for breakage only whatever its nights show.'''
    if better not in (HIGHER, LOWER):
        return None, 'the figure declares no better direction'
    if any(v is None or not v > 0 or math.isinf(v) for v in values):
        return None, 'a value is not a positive number'
    if len(values) < min_before + 1:
        return None, (f'{len(values)} night(s): a step needs at least '
                      f'{min_before + 1}')
    if len(set(values)) < 2:
        return None, 'the values do not vary: nothing to test'
    import numpy as np
    worse = 'down' if better == HIGHER else 'up'
    first = max(min_before, len(values) - window)
    logs = np.log(values)[max(0, first - history):]   # the judged nights
    starts = list(range(first - (len(values) - len(logs)), len(logs)))
    clean = np.log(values)[:first]
    phi = calibration.autocorrelation(clean) if calibrated and \
        autocorrelated else 0.0
    p, s = (x[0] for x in calibration.scan(logs[None], starts, history,
                                           worse, phi))
    rule = calibration.calibrate(clean, len(logs), starts, history, worse,
                                 phi) if calibrated else \
        calibration.conservative(len(starts), first)
    rule = calibration.declare(rule, breakage) if breakage else rule
    before, after = logs[max(0, s - history):s], logs[s:]
    low, high = _interval(before, after, phi)
    step = Step(int(s) + len(values) - len(logs), _ratio(before, after),
                math.expm1(low), math.expm1(high), float(p), len(before),
                len(after), rule)
    if p >= rule.pvalue:
        return None, f'no step (most likely at night {step.start}: ' \
            f'{step.describe()})'
    if rule.breakage_only and abs(math.log1p(step.size)) < \
            -math.log1p(-calibration.BROKEN):
        return None, f'no breakage (most likely at night {step.start}: ' \
            f'{step.describe()})'
    return step, 'step'


def _ratio(before, after):
    return math.expm1(after.mean() - before.mean())
