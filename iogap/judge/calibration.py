'''The change-point threshold set to the false-alarm budget, from a
figure's own clean nights.

The statistic is iogap.judge.changepoint's: over the candidate starts, the
smallest one-sided p-value of Student's t-test on the logarithms. Its
threshold is not a p-value corrected for the candidates (Bonferroni, which
assumes independent nights and spends about a sixth of the budget): it is
the ``BUDGET`` quantile of the statistic over ``REPLICATES`` series
block-bootstrapped from the nights before the candidates, blocks of
``BLOCK`` consecutive nights keeping the correlation between nights within
a week. A fixed seed makes it reproducible: the same nights give the same
threshold at every judgement, and nothing is stored. The threshold is
never looser than the same quantile over independent normal nights: a
1/60 quantile from 60-odd nights is often far off, and the bootstrap may
only make it stricter (for the correlation or the heavy tails it finds).
With fewer than ``MIN_NIGHTS`` clean nights the conservative rule stays
(Bonferroni over the candidates at ``ALPHA``).

The same replicates with a step of ``GOAL`` (and twice it) added to their
last ``WITHIN`` nights say how often such a step is caught: a figure that
catches a step of twice the goal less than 9 times in 10 is judged for
breakage only (a step counts when the figure is worse by ``BROKEN``).
'''

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

#: Bootstrapped series: ~67 of them beyond the threshold
REPLICATES = 4000

#: The bootstrap's seed: the same nights give the same threshold
SEED = 40

#: The regression to catch, and within how many nights
GOAL, WITHIN = 0.10, 3

#: A breakage-only figure reports a step worse than this (halved)
BROKEN = 0.5

#: Share of the trials a figure must catch (9 in 10)
POWER = 0.9

#: What the report says of a figure judged for breakage only
BREAKAGE_ONLY = 'judged for breakage only'

#: What it says of a threshold calibrated on the figure's nights
CALIBRATED = 'bootstrapped from'


def scan(logs, starts, history, worse):
    '''``(smallest p, its start)`` per row of ``logs`` (2-D, oldest night
    first): the one-sided pooled t-test of the nights from each start on
    against up to ``history`` nights before it.'''
    from scipy import stats
    best_p = np.ones(len(logs))
    best_s = np.full(len(logs), starts[0])
    for s in starts:
        before, after = logs[:, max(0, s - history):s], logs[:, s:]
        nb, na = before.shape[1], after.shape[1]
        ss = (((before - before.mean(1, keepdims=True)) ** 2).sum(1) +
              ((after - after.mean(1, keepdims=True)) ** 2).sum(1))
        se = np.sqrt(ss / (nb + na - 2) * (1 / nb + 1 / na))
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

    @property
    def breakage_only(self):
        return bool(self.caught) and self.caught[2 * GOAL] < POWER


def conservative(candidates, nights):
    return Threshold(ALPHA / candidates, 0, None,
                     f'Bonferroni over {candidates} candidates at '
                     f'{ALPHA:.0%} (p < {ALPHA / candidates:.2g}): '
                     f'{nights} clean night(s), '
                     f'{MIN_NIGHTS} needed to calibrate')


@functools.lru_cache(maxsize=64)
def independent(length, starts, history):
    '''The ``BUDGET`` quantile of the statistic over independent normal
    nights (the t-test does not depend on their mean or spread, nor, by
    symmetry, on the direction).'''
    rng = np.random.default_rng(SEED)
    minp, _ = scan(rng.normal(size=(5 * REPLICATES, length)), list(starts),
                   history, 'down')
    return float(np.quantile(minp, BUDGET))


def calibrate(clean, length, starts, history, worse):
    '''The :class:`Threshold` for series of ``length`` nights judged at
    ``starts``, from the logarithms ``clean`` of the nights before the
    candidates; the conservative rule with fewer than ``MIN_NIGHTS``.'''
    if len(clean) < MIN_NIGHTS:
        return conservative(len(starts), len(clean))
    rng = np.random.default_rng(SEED)
    first = rng.integers(0, len(clean) - BLOCK + 1,
                         (REPLICATES, -(-length // BLOCK)))
    index = (first[:, :, None] + np.arange(BLOCK)).reshape(REPLICATES,
                                                          -1)[:, :length]
    logs = np.asarray(clean)[index]
    minp, _ = scan(logs, starts, history, worse)
    threshold = min(float(np.quantile(minp, BUDGET)),
                    independent(length, tuple(starts), history))
    caught = {}
    for step in (GOAL, 2 * GOAL):
        shift = math.log1p(-step) if worse == 'down' else -math.log1p(-step)
        stepped = logs.copy()
        stepped[:, length - WITHIN:] += shift
        caught[step] = float((scan(stepped, starts, history, worse)[0] <
                              threshold).mean())
    why = (f'threshold p < {threshold:.2g}, the {BUDGET * 30:.1f} false '
           f'alarm(s) per 30 nights of {REPLICATES} series {CALIBRATED} '
           f'{len(clean)} clean nights (blocks of {BLOCK}); catches '
           f'{caught[GOAL]:.0%} of {GOAL:.0%} steps within {WITHIN} nights')
    found = Threshold(threshold, len(clean), caught, why)
    if found.breakage_only:
        found.why += (f', {caught[2 * GOAL]:.0%} of {2 * GOAL:.0%}: '
                      f'{BREAKAGE_ONLY} (a step worse by {BROKEN:.0%})')
    return found
