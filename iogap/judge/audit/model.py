'''The audit's noise model: a value is its expected value times log-normal
noise, judged against its bounds; closed form for one value, a seeded
simulation for a fit over a sweep.'''

import math
import statistics
import zlib

import numpy as np

from iogap.core import stats
from iogap.core.figures import HIGHER, LOWER  # noqa: F401 (the audit's)

#: Simulated nights per fit, a fifth for the detection (s.e. at 1 %: 0.1 %)
NIGHTS = 10000

#: Regressions searched: fractions of the figure, up to a 10x latency
_HIGHER_D = np.arange(0.005, 1.0, 0.005)
_LOWER_D = np.concatenate([_HIGHER_D, np.arange(1.0, 10.0, 0.05)])
_PHI = statistics.NormalDist()


def _worse(better, d):
    '''Factor of a figure regressed by ``d`` in its worse direction.'''
    return 1 + d if better == LOWER else 1 - d


def _bounds(entry):
    value, lower, upper = entry['ref']
    return (None if lower is None else value * (1 + lower),
            None if upper is None else value * (1 + upper))


def _fail_rate(expected, s, lo, hi):
    '''P(expected * exp(s Z) outside [lo, hi]), vectorised in expected.'''
    expected = np.asarray(expected, dtype=float)
    rate = np.zeros_like(expected)
    if s == 0:
        if lo is not None:
            rate += expected < lo
        if hi is not None:
            rate += expected > hi
        return rate
    from scipy.special import ndtr as cdf
    if lo is not None:
        rate += cdf((math.log(lo) - np.log(expected)) / s) if lo > 0 else 0
    if hi is not None:
        rate += 1 - cdf((math.log(hi) - np.log(expected)) / s)
    return rate


def lognormal(entry, expected, s, sides, power, stress):
    '''``((rate, rate at stress x s), detection)`` of a value ``expected *
    exp(s Z)``; ``sides``: ``[(label, better, exponent)]`` (+1 numerator,
    -1 denominator).'''
    lo, hi = _bounds(entry)
    rate = tuple(float(_fail_rate([expected], k * s, lo, hi)[0])
                 for k in (1, stress))
    best = None
    for label, better, exponent in sides:
        ds = _LOWER_D if better == LOWER else _HIGHER_D
        shifted = expected * _worse(better, ds) ** exponent
        hits = np.nonzero(_fail_rate(shifted, s, lo, hi) >= power)[0]
        d = float(ds[hits[0]]) if hits.size else None
        if d is not None and (best is None or d < best[0]):
            best = (d, label)
    return rate, best


#: Where a fit's figure regresses: each point's weight from x in [0, 1]
#: along the sweep, and where; "does not depend" is broken by a low-end
#: drop, a rising fit by a high-end one, an intercept by a drop everywhere
_REGRESSES = {'change_bound': (lambda u: 1 - u, 'at the lowest clock'),
              'slope_p': (lambda u: u, 'at the highest clock'),
              'r2': (lambda u: u, 'at the highest clock'),
              'slope': (lambda u: u, 'at the highest clock'),
              'intercept': (np.ones_like, 'at every clock')}


def simulated(entry, xs, line, cvs, better, power, stress):
    '''``((rate, rate at stress x cvs), detection)`` of a fit over ``xs``:
    ``line`` (intercept, slope) times log-normal noise of ``cvs`` per
    point, seeded by the entry's name.'''
    x = np.asarray(xs, dtype=float)
    mean = line[0] + line[1] * x
    rng = np.random.default_rng(zlib.crc32(entry['name'].encode()))
    z = np.asarray(cvs) * rng.standard_normal((NIGHTS, x.size))
    healthy = mean * np.exp(z)
    lo, hi = _bounds(entry)

    def failing(ys):
        value = stats.fit_statistics(xs, ys)[entry['stat']]
        bad = np.zeros(value.shape, dtype=bool)
        if lo is not None:
            bad |= value < lo
        if hi is not None:
            bad |= value > hi
        return bad.mean()

    weigh, where = _REGRESSES[entry['stat']]
    weights = weigh((x - x.min()) / np.ptp(x))
    sub = healthy[:NIGHTS // 5]
    top = 9.0 if better == LOWER else 0.99
    caught = None
    if failing(sub * _worse(better, top * weights)) >= power:
        low, high = 0.0, top
        for _ in range(9):          # bisection, to within 0.2 %
            mid = (low + high) / 2
            if failing(sub * _worse(better, mid * weights)) >= power:
                high = mid
            else:
                low = mid
        caught = (round(high, 3), f'{entry["var"]}, {where}')
    return (failing(healthy), failing(mean * np.exp(stress * z))), caught


def band_from_noise(row, alpha, stress=1.0):
    '''The relative bounds ``[lower, upper]`` of the sides ``row`` judges
    that fail ``alpha`` of healthy nights (split between the sides) at
    ``stress`` times its noise.'''
    _, lower, upper = row.entry['ref']
    sides = (lower is not None) + (upper is not None)
    z = _PHI.inv_cdf(1 - alpha / sides)
    expected = (row.entry.get('noise') or {}).get('expected',
                                                  row.entry['ref'][0])
    shift = math.log(expected / row.entry['ref'][0])
    s = stress * row.noise
    return [None if lower is None else
            math.floor(1000 * (math.exp(shift - z * s) - 1)) / 1000,
            None if upper is None else
            math.ceil(1000 * (math.exp(shift + z * s) - 1)) / 1000]
