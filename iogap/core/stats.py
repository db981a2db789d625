'''Statistics for repeated measurements and the CPU-frequency fit.'''

import math
import statistics

from iogap.core.figures import SPREAD
from iogap.errors import IogapError


def summary(values):
    '''Median, min, max and coefficient of variation (%) of ``values``.'''
    if not values:
        raise IogapError('no measurements to summarise')

    mean = statistics.fmean(values)
    stdev = statistics.stdev(values) if len(values) > 1 else 0.0
    return {
        'median': statistics.median(values),
        'min': min(values),
        'max': max(values),
        'cv': 100 * stdev / mean if mean else math.inf,
    }


def figures(name, values, unit):
    '''A median figure with its spread figures (see
    :func:`iogap.core.figures.spread_figures`): ``{name: (value, unit)}``.'''
    spread = summary(values)
    return {name: (spread['median'], unit),
            **{f'{name}_{s}': (spread[s], own or unit)
               for s, own in SPREAD.items()}}


def linear_fit(xs, ys):
    '''Least-squares fit ``y = slope*x + intercept``; returns slope,
    intercept and r².

    A fit needs at least two distinct x values; a degenerate input is an
    error, never a NaN that would slip through a reference check. Constant
    y (zero variance) gives r² = 0 by convention: x explains nothing.
    '''
    if len(xs) != len(ys):
        raise IogapError(f'fit needs paired data, got {len(xs)} x and '
                         f'{len(ys)} y values')
    if len(set(xs)) < 2:
        raise IogapError(f'fit needs at least two distinct x values, got '
                         f'{sorted(set(xs))}')

    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx)**2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    syy = sum((y - my)**2 for y in ys)
    slope = sxy / sxx
    intercept = my - slope * mx
    r2 = 0.0 if syy == 0 else sxy**2 / (sxx * syy)
    return {'slope': slope, 'intercept': intercept, 'r2': r2}
