'''The four readings of a judgement: absolute bounds of a case's figures,
ratios of two cases' figures (or curves of them), fits over a sweep and
mechanisms observed directly.'''

from iogap.core import registry, stats
from iogap.core.cases import runs_on
from iogap.core.control import geometric_mean
from iogap.errors import IogapError
from iogap.judge import references, schema
from iogap.judge.judgement import Judgement

# re-exported: checks/judge.py and the plan parametrise the readings
from iogap.judge.sides import curve_points, named, ratio_sides
from iogap.judge.targets import (  # noqa: F401 (the checks read them here)
    absolute_targets, entries, target_name)


def _case(side):
    return (side['test'], side['partition'], registry.full_params(
        registry.get(side['test']), side.get('params') or {}))


class AbsoluteCheck(Judgement):
    '''The figures of one case against their absolute references; the
    ``target`` parameter is ``(family, partition, params, {var: entry})``.'''

    def cases(self):
        family, part, params, _ = self.target
        return [(family, part, params)]

    def vars_of(self, index):
        return list(self.target[3])

    def entries_judged(self):
        return list(self.target[3].values())

    def provenance(self):
        return '; '.join(sorted({e['provenance']
                                 for e in self.target[3].values()}))

    def entry_name(self):
        return target_name(self.target)

    def bounds(self):
        return {var: (e['ref'], e['unit'])
                for var, e in self.target[3].items()}

    def judged(self, figures):
        return {var: (figures[0][var], *bound)
                for var, bound in self.bounds().items()}


class RatioCheck(Judgement):
    '''One figure over another, or a paired figure (a numerator alone);
    the ``ratio`` parameter is an entry. A curve is the geometric mean of
    the ratios at its points; where a ``precondition`` does not hold, the
    ratio is not applicable.'''

    def sides(self):
        return ratio_sides(self.ratio)

    def cases(self):
        return [_case(s) for s in self.sides()]

    def vars_of(self, index):
        return [self.sides()[index]['var']]

    def entries_judged(self):
        return [self.ratio]

    def provenance(self):
        return self.ratio['provenance']

    def entry_name(self):
        return self.ratio['name']

    def bounds(self):
        return {self.ratio['name']: (self.ratio['ref'], self.ratio['unit'])}

    def judged(self, figures):
        values = [next(iter(f.values())) for f in figures]
        per = len(named(self.ratio))
        points = curve_points(self.ratio)
        if self.ratio.get('precondition'):
            self.check_precondition(*values[per * points:])
        ratios = []
        pairs = values[:2 * points] if per == 2 else [values[0], 1.0]
        for num, den, at in zip(pairs[0::2], pairs[1::2],
                                self.ratio.get('at') or [None]):
            if den == 0:
                where = f' at {self.ratio["over"]}={at}' if at else ''
                raise IogapError(f'{self.ratio["name"]}: the denominator '
                                 f'is 0{where}')
            ratios.append(num / den)
        # a point that moved nothing makes the curve 0, as a ratio would
        value = ratios[0] if len(ratios) == 1 else 0.0 if min(ratios) <= 0 \
            else geometric_mean(ratios)
        return {self.ratio['name']: (value, self.ratio['ref'],
                                     self.ratio['unit'])}

    def check_precondition(self, num, den):
        pre = self.ratio['precondition']
        value = num / den if den else float('inf')
        holds = value <= pre['at_most'] if 'at_most' in pre else \
            value >= pre['at_least']
        bound = f'at most {pre["at_most"]}' if 'at_most' in pre else \
            f'at least {pre["at_least"]}'
        sides = f'{pre["numerator"]["var"]} {num:.4g} over ' \
            f'{pre["denominator"]["var"]} {den:.4g}'
        if not holds:
            self.inapplicable(f'{pre["what"]} does not hold ({sides} = '
                              f'{value:.3g}, needs {bound})')
        self.method = (f'{self.method}; precondition {pre["what"]}: '
                       f'{sides} = {value:.3g} ({bound})')


class FitCheck(Judgement):
    '''A statistic of a figure's least-squares line over a swept parameter
    (the study's bandwidth against CPU clock); the ``fit`` parameter is an
    entry, its points every value of ``over`` the partition runs.'''

    def cases(self):
        fit = self.fit
        cls = registry.get(fit['test'])
        part = references.current().partitions[fit['partition']]
        points = []
        for value in registry.param_values(cls, fit['over']):
            params = registry.full_params(
                cls, {**(fit.get('params') or {}), fit['over']: value})
            if runs_on(cls, params, part):
                points.append((fit['test'], fit['partition'], params))
        return points

    def vars_of(self, index):
        return [self.fit['var']]

    def entries_judged(self):
        return [self.fit]

    def provenance(self):
        return self.fit['provenance']

    def entry_name(self):
        return self.fit['name']

    def bounds(self):
        return {self.fit['name']: (self.fit['ref'], self.fit['unit'])}

    def judged(self, figures):
        _, factor = schema.AXES[self.fit['over']]
        xs = [params[self.fit['over']] * factor
              for _, _, params in self.cases()]
        ys = [f[self.fit['var']] for f in figures]
        return {self.fit['name']: (stats.fit_judged(xs, ys, self.fit['stat']),
                                   self.fit['ref'], self.fit['unit'])}


class MechanismCheck(Judgement):
    '''A direct observation of a mechanism (a share of the bytes
    resident, or moved by the device) against a bound any healthy host
    meets; the ``mechanism`` parameter is an entry.'''

    def cases(self):
        return [_case(self.mechanism)]

    def vars_of(self, index):
        return [self.mechanism['var']]

    def entries_judged(self):
        return []       # a bound any healthy host meets: no noise model

    def bounds(self):
        m = self.mechanism
        return {m['name']: (m['ref'], m['unit'])}

    def provenance(self):
        return self.mechanism['provenance']

    def entry_name(self):
        return self.mechanism['name']

    def judged(self, figures):
        m = self.mechanism
        return {m['name']: (figures[0][m['var']], m['ref'], m['unit'])}
