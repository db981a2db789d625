'''Statistics for repeated measurements and the CPU-frequency fit.'''

import math
import statistics

from iogap.errors import IogapError

#: The spread of a median: suffix -> (unit, ``None``: the median's; what)
SPREAD = {'min': (None, 'the least'), 'max': (None, 'the most'),
          'cv': ('%', 'the coefficient of variation')}


def summary(values):
    '''Median, min, max and coefficient of variation (%) of ``values``.'''
    if not values:
        raise IogapError('no measurements to summarise')
    mean = statistics.fmean(values)
    stdev = statistics.stdev(values) if len(values) > 1 else 0.0
    return {'median': statistics.median(values), 'min': min(values),
            'max': max(values), 'cv': 100 * stdev / mean if mean else math.inf}


def figures(name, values, unit):
    '''``{name: (value, unit)}``: a median and its spread figures.'''
    spread = summary(values)
    return {name: (spread['median'], unit),
            **{f'{name}_{s}': (spread[s], own or unit)
               for s, (own, _) in SPREAD.items()}}


def linear_fit(xs, ys):
    '''``slope``, ``intercept`` and ``r2``; never a NaN: bad input raises.'''
    _check_fit_data(len(xs) == len(ys), len(xs), len(ys), xs)
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx)**2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    syy = sum((y - my)**2 for y in ys)
    slope = sxy / sxx
    intercept = my - slope * mx
    r2 = 0.0 if syy == 0 else sxy**2 / (sxx * syy)
    return {'slope': slope, 'intercept': intercept, 'r2': r2}


def _check_fit_data(paired, nx, ny, xs):
    if not paired:
        raise IogapError(f'fit needs paired data, got {nx} x and {ny} y '
                         f'values')
    if len(set(xs)) < 2:
        raise IogapError(f'fit needs at least two distinct x values, got '
                         f'{sorted(set(xs))}')


#: Confidence of the fit's bounds (one-sided 95 %)
LEVEL = 0.95


def fit_statistics(xs, ys, level=LEVEL):
    '''The least-squares line of ``ys`` (many nights: leading axes) over
    ``xs``, with Student's t statistics: ``slope_p`` and ``change_bound``,
    the largest relative change over the x range the data allow at
    ``level`` (which "does not depend on x" bounds, not r²: on 5-7 points
    that exceeds 0.3 by chance a third of the time).'''
    import numpy as np
    from scipy.special import stdtr, stdtrit  # not scipy.stats: import cost

    x, y = _fit_arrays(xs, ys)
    n = x.size
    mx, my = x.mean(), y.mean(axis=-1)
    dx = x - mx
    sxx = (dx ** 2).sum()
    dy = y - my[..., None]
    slope = (dy * dx).sum(axis=-1) / sxx
    intercept = my - slope * mx
    resid = dy - slope[..., None] * dx
    sse = (resid ** 2).sum(axis=-1)
    syy = (dy ** 2).sum(axis=-1)
    sigma = np.sqrt(sse / (n - 2))
    slope_se = sigma / np.sqrt(sxx)
    t = stdtrit(n - 2, level)
    with np.errstate(divide='ignore', invalid='ignore'):
        r2 = np.where(syy > 0, 1 - sse / np.where(syy > 0, syy, 1), 0.0)
        tstat = np.where(slope_se > 0, slope / np.where(
            slope_se > 0, slope_se, 1), np.where(slope > 0, np.inf, -np.inf))
        change = (np.abs(slope) + t * slope_se) * np.ptp(x) / np.abs(my)
    return _Lazy(slope=slope, intercept=intercept, r2=np.clip(r2, 0, 1),
                 slope_se=slope_se,
                 intercept_se=sigma * np.sqrt(1 / n + mx ** 2 / sxx),
                 slope_p=lambda: stdtr(n - 2, -tstat), change_bound=change)


def _fit_arrays(xs, ys):
    '''Float arrays, paired, with 2 distinct x values and 3 points at least.'''
    import numpy as np
    x = np.asarray(xs, dtype=float)
    y = np.asarray(ys, dtype=float)
    paired = x.ndim == 1 and y.shape[-1] == x.size
    _check_fit_data(paired, x.size, y.shape[-1], x.tolist() if paired else [])
    if x.size < 3:
        raise IogapError(f'fit statistics need at least 3 points, got '
                         f'{x.size}')
    return x, y


class _Lazy(dict):
    '''A dict computing callable values on first read (p-values cost most).'''

    def __getitem__(self, key):
        value = super().__getitem__(key)
        if callable(value):
            value = value()
            self[key] = value
        return value

    def values(self):
        return [self[k] for k in self]


def fit_judged(xs, ys, stat):
    '''One statistic of :func:`fit_statistics` for one night, as a float.'''
    value = float(fit_statistics(xs, ys)[stat])
    if not math.isfinite(value):
        raise IogapError(f'fit statistic {stat} is {value} for {list(ys)}')
    return value
