'''The change-point threshold set to the false-alarm budget, from a
figure's own clean nights.

The statistic is iogap.judge.changepoint's: over the candidate starts, the
smallest one-sided p-value of Student's t-test on the logarithms. Its
threshold is not a p-value corrected for the candidates (Bonferroni, which
assumes independent nights and spends about a sixth of the budget): it is
where runs of alarmed nights start on ``BUDGET`` of the nights when
``REPLICATES`` series block-bootstrapped from the nights before the
candidates are judged night by night (blocks of ``BLOCK`` consecutive
nights keep the correlation between nights within a week; a run counts
once, as the false alarms per 30 nights do). A fixed seed makes it
reproducible: the same nights give the same threshold at every judgement,
and nothing is stored. The threshold is
never looser than the same over independent normal nights: a 1/60 rate
from 60-odd nights is often far off, and the bootstrap may only make it
stricter (for the correlation or the heavy tails it finds).
With fewer than ``MIN_NIGHTS`` clean nights the conservative rule stays
(Bonferroni over the candidates at ``ALPHA``).

Nights that drift are autocorrelated: the mean of a few nights after a
step then varies more than independent nights say, and blocks alone make
the threshold stricter for every candidate, a single night after the step
included, which correlation does not blur. Where the clean nights' AR(1)
is significant (:func:`autocorrelation`), the t-test's variance is widened
by what it does to each candidate (:func:`widening`), and the threshold
is never looser than over AR(1) normal nights of that correlation.

The same replicates with a step of ``GOAL`` (and twice it) added to their
last ``WITHIN`` nights say how often such a step is caught: a figure that
catches a step of twice the goal less than 9 times in 10 is judged for
breakage only (a step counts when the figure is worse by ``BROKEN``), as
is a figure the reference file declares so (:func:`declare`).
'''

import dataclasses
import functools
import math
from dataclasses import dataclass

import numpy as np

#: Family-wise false-alarm rate of the conservative rule (few nights)
ALPHA = 0.01

#: False alarms per night and figure the calibrated threshold may spend:
#: 0.5 per 30 nights, half the goal (1 per 30) -- the margin for the
#: correlation between nights the blocks do not keep (drift over weeks)
BUDGET = 0.5 / 30

#: Clean nights needed to calibrate (a quantile of 1/60 from fewer is
#: a guess)
MIN_NIGHTS = 60

#: Consecutive nights a bootstrap block keeps (a working week)
BLOCK = 5

#: Bootstrapped series, each judged night by night ``RUN`` times: about
#: 320 runs of alarmed nights start at the threshold
REPLICATES, RUN = 1000, 20

#: The bootstrap's seed: the same nights give the same threshold
SEED = 40

#: The regression to catch, and within how many nights
GOAL, WITHIN = 0.10, 3

#: A breakage-only figure reports a step worse than this (halved)
BROKEN = 0.5

#: Share of the trials a figure must catch (9 in 10)
POWER = 0.9

#: The AR(1) between nights is used when significant (one-sided, 5 %:
#: 1.645 / sqrt(nights)), rounded to a step (thresholds are cached per
#: value) and at most ``PHI_MAX``
PHI_SIGNIFICANT, PHI_STEP, PHI_MAX = 1.645, 0.05, 0.8

#: What the report says of a figure judged for breakage only
BREAKAGE_ONLY = 'judged for breakage only'

#: What it says of a threshold calibrated on the figure's nights
CALIBRATED = 'bootstrapped from'


@functools.lru_cache(maxsize=1024)
def widening(phi, before, after):
    '''How much the variance of the difference between the mean of
    ``after`` nights and that of the ``before`` nights just before them
    grows when nights are AR(1) with ``phi`` (1 when independent): the
    after nights move together, while the nights either side of the step
    partly cancel.'''
    if not phi:
        return 1.0
    lags = np.abs(np.subtract.outer(np.arange(before + after),
                                    np.arange(before + after)))
    c = np.r_[np.full(before, -1 / before), np.full(after, 1 / after)]
    return float(c @ phi ** lags @ c / (1 / before + 1 / after))


def autocorrelation(clean):
    '''The AR(1) of the logarithms ``clean`` from one night to the next
    (lag-1 autocorrelation, bias-corrected), rounded to ``PHI_STEP``; 0
    unless it is significant (one-sided, 5 %) or with fewer than
    ``MIN_NIGHTS``.'''
    n = len(clean)
    if n < MIN_NIGHTS:
        return 0.0
    x = np.asarray(clean) - np.mean(clean)
    if not (x ** 2).sum():
        return 0.0
    r1 = float((x[1:] * x[:-1]).sum() / (x ** 2).sum())
    phi = (n * r1 + 1) / (n - 3)
    if phi < PHI_SIGNIFICANT / math.sqrt(n):
        return 0.0
    return min(round(phi / PHI_STEP) * PHI_STEP, PHI_MAX)


def scan(logs, starts, history, worse, phi=0.0):
    '''``(smallest p, its start)`` per row of ``logs`` (2-D, oldest night
    first): the one-sided pooled t-test of the nights from each start on
    against up to ``history`` nights before it, its variance widened for
    nights AR(1) with ``phi`` (:func:`widening`).'''
    from scipy import stats
    best_p = np.ones(len(logs))
    best_s = np.full(len(logs), starts[0])
    for s in starts:
        before, after = logs[:, max(0, s - history):s], logs[:, s:]
        nb, na = before.shape[1], after.shape[1]
        ss = (((before - before.mean(1, keepdims=True)) ** 2).sum(1) +
              ((after - after.mean(1, keepdims=True)) ** 2).sum(1))
        se = np.sqrt(ss / (nb + na - 2) * (1 / nb + 1 / na) *
                     widening(phi, nb, na))
        with np.errstate(divide='ignore', invalid='ignore'):
            t = (after.mean(1) - before.mean(1)) / se
        p = stats.t.cdf(t, nb + na - 2) if worse == 'down' else \
            stats.t.sf(t, nb + na - 2)
        p = np.where(np.isnan(p), 1.0, p)
        better = p < best_p
        best_p, best_s = np.where(better, p, best_p), np.where(better, s,
                                                               best_s)
    return best_p, best_s


@dataclass
class Threshold:
    '''How a figure's step is decided.'''
    pvalue: float        #: a step when the smallest p is below this
    nights: int          #: clean nights it was calibrated on (0: none)
    caught: dict = None  #: {step: share of replicates caught in WITHIN}
    why: str = ''        #: the rule, said in the report
    declared: str = ''   #: why the reference judges it for breakage only

    @property
    def breakage_only(self):
        return bool(self.declared) or (
            bool(self.caught) and self.caught[2 * GOAL] < POWER)


def declare(rule, reason):
    '''``rule`` judging for breakage only because the reference file
    declares it, with ``reason``, whatever the nights show.'''
    return dataclasses.replace(
        rule, declared=reason, why=f'{rule.why}; {BREAKAGE_ONLY} (declared '
        f'in the reference: {reason}): a step worse by {BROKEN:.0%}')


def conservative(candidates, nights):
    return Threshold(ALPHA / candidates, 0, None,
                     f'Bonferroni over {candidates} candidates at '
                     f'{ALPHA:.0%} (p < {ALPHA / candidates:.2g}): '
                     f'{nights} clean night(s), '
                     f'{MIN_NIGHTS} needed to calibrate')


def judged_in_turn(logs, length, starts, history, worse, phi=0.0):
    '''The smallest p of each night judged in turn: column ``t`` judges
    the ``length`` nights of ``logs`` (2-D) ending at night ``t + length``.'''
    return np.stack([scan(logs[:, t:t + length], starts, history, worse,
                          phi)[0]
                     for t in range(logs.shape[1] - length + 1)], axis=1)


def onset_threshold(minp):
    '''The threshold at which runs of alarmed nights start on ``BUDGET``
    of the nights judged in turn (``minp``: one series a row; a run counts
    once, as the false alarms per 30 nights do).'''
    def onsets(c):
        alarmed = minp < c
        return (alarmed[:, 1:] & ~alarmed[:, :-1]).mean()
    low, high = -15.0, 0.0                # log10 of the threshold
    for _ in range(40):                   # onsets grow with the threshold
        mid = (low + high) / 2
        low, high = (mid, high) if onsets(10 ** mid) <= BUDGET else \
            (low, mid)
    return 10 ** low


@functools.lru_cache(maxsize=64)
def independent(length, starts, history, phi=0.0):
    '''The threshold over normal nights, independent or AR(1) with
    ``phi`` (the t-test does not depend on their mean or spread, nor, by
    symmetry, on the direction).'''
    rng = np.random.default_rng(SEED)
    logs = rng.normal(size=(2 * REPLICATES, length + RUN))
    for t in range(1, logs.shape[1]):
        logs[:, t] = phi * logs[:, t - 1] + math.sqrt(1 - phi ** 2) * \
            logs[:, t]
    return onset_threshold(judged_in_turn(logs, length, list(starts),
                                          history, 'down', phi))


def bootstrap(clean, count, length):
    '''``count`` series of ``length`` nights made of blocks of ``BLOCK``
    consecutive nights of ``clean``, by the fixed seed.'''
    rng = np.random.default_rng(SEED)
    first = rng.integers(0, len(clean) - BLOCK + 1,
                         (count, -(-length // BLOCK)))
    return np.asarray(clean)[(first[:, :, None] + np.arange(BLOCK)).reshape(
        count, -1)[:, :length]]


def calibrate(clean, length, starts, history, worse, phi=0.0):
    '''The :class:`Threshold` for series of ``length`` nights judged at
    ``starts``, from the logarithms ``clean`` of the nights before the
    candidates; the conservative rule with fewer than ``MIN_NIGHTS``.'''
    if len(clean) < MIN_NIGHTS:
        return conservative(len(starts), len(clean))
    logs = bootstrap(clean, REPLICATES, length + RUN)
    threshold = min(onset_threshold(judged_in_turn(logs, length, starts,
                                                   history, worse, phi)),
                    independent(length, tuple(starts), history, phi))
    caught = {}
    for step in (GOAL, 2 * GOAL):
        shift = math.log1p(-step) if worse == 'down' else -math.log1p(-step)
        stepped = logs[:, :length].copy()
        stepped[:, length - WITHIN:] += shift
        caught[step] = float((scan(stepped, starts, history, worse,
                                   phi)[0] <
                              threshold).mean())
    why = (f'threshold p < {threshold:.2g}, {BUDGET * 30:.1f} false '
           f'alarm(s) per 30 nights in {REPLICATES} series {CALIBRATED} '
           f'{len(clean)} clean nights (blocks of {BLOCK}'
           f'{f", AR(1) {phi:.2f}" if phi else ""}); catches '
           f'{caught[GOAL]:.0%} of {GOAL:.0%} steps within {WITHIN} nights')
    found = Threshold(threshold, len(clean), caught, why)
    if found.breakage_only:
        found.why += (f', {caught[2 * GOAL]:.0%} of {2 * GOAL:.0%}: '
                      f'{BREAKAGE_ONLY} (a step worse by {BROKEN:.0%})')
    return found
