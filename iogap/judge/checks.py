'''Judgements: measure first, then judge, so that no failure hides another.

Measuring tests only report figures. A judgement depends on the cases it
reads (one, two or a whole sweep), takes their figures once they have run,
and reports what it judges as performance variables with the references
of ``reference/<system>.yaml``: ReFrame's own assertion, perflogs, run
report and results database cover absolute bounds, ratios and fits alike.
A judgement runs whenever its cases measured, even if another judgement of
the same figures failed; under ``--repeat N`` each repetition judges its
own cases. One engine, three readings: :class:`AbsoluteCheck`,
:class:`RatioCheck`, :class:`FitCheck`.
'''

import inspect

import reframe as rfm
import reframe.core.runtime as rt
import reframe.utility.sanity as sn
from reframe.core.builtins import (run_after, run_before, sanity_function,
                                   variable)
from reframe.core.exceptions import SanityError, SkipTestError

from iogap.core import registry, stats
from iogap.core.base import runs_on
from iogap.errors import IogapError
from iogap.judge import references, schema


class Judgement(rfm.RunOnlyRegressionTest):
    '''Read the figures of :meth:`cases`, judge :meth:`judged`.'''

    valid_prog_environs = ['+tools']
    executable = 'true'
    local = True

    #: Where the judged figures come from; logged like a measurement's
    tool_provider = variable(str, value='judgement', loggable=True)

    #: The reference's provenance; logged
    method = variable(str, value='', loggable=True)

    def cases(self):
        '''``[(family, partition, full params)]`` this judgement reads.'''
        raise NotImplementedError

    def judged(self, figures):
        '''``{name: (value, (ref, lower, upper), unit)}`` from ``figures``,
        one ``{var: value}`` per case in :meth:`cases` order.'''
        raise NotImplementedError

    def vars_of(self, index):
        '''The figures the judgement needs from case ``index``.'''
        raise NotImplementedError

    def provenance(self):
        '''Where the references come from (logged as the method).'''
        raise NotImplementedError

    def declared(self):
        '''``{figure: unit}`` the judgement reports.'''
        raise NotImplementedError

    @run_after('init')
    def depend_on_cases(self):
        system = rt.runtime().system
        selected = {p.name for p in system.partitions}
        repeat = registry.repeat_of(self)
        self.missing, self.names = [], []
        for family, part, params in self.cases():
            name = registry.case_name(registry.get(family), params, repeat)
            self.names.append((name, part))
            if part in selected:
                self.depends_on(name, how=_on(part))
            else:
                self.missing.append(f'{family} on {system.name}:{part}')

        # Runs beside the first case; the arithmetic is local
        self.valid_systems = [f'{system.name}:{self.cases()[0][1]}']
        self.method = self.provenance()
        what = inspect.getdoc(type(self)).split(';')[0].split('.')[0]
        self.descr = f'{" ".join(what.split())} ({self.method})'
        self.tags |= {'judge'}
        self.perf_variables = {
            name: sn.make_performance_function(
                lambda n=name: self.verdicts[n][0], unit)
            for name, unit in self.declared().items()}

    @run_after('setup')
    def all_sides_selected(self):
        if self.missing:
            raise SkipTestError(f'needs {", ".join(self.missing)}, which this '
                                f'run did not select')

    @sanity_function
    def validate(self):
        figures = []
        for index, (name, part) in enumerate(self.names):
            results = self.getdep(name, part=part).results
            need = self.vars_of(index)
            absent = [v for v in need if v not in results]
            if absent:
                raise SanityError(f'{name} on {part} measured no '
                                  f'{", ".join(absent)}')
            figures.append({v: results[v][0] for v in need})

        try:
            self.verdicts = self.judged(figures)
        except IogapError as err:
            raise SanityError(str(err)) from None

        return True

    @run_before('performance')
    def references(self):
        self.reference = {'*': {name: (*ref, unit) for name, (_, ref, unit)
                                in self.verdicts.items()}} \
            if not self.is_dry_run() else {}
        self.perf_variables = {
            name: sn.make_performance_function(
                lambda n=name: self.verdicts[n][0], unit)
            for name, (_, _, unit) in getattr(self, 'verdicts', {}).items()
        }


def _on(partition):
    def how(src, dst):
        return dst[0] == partition and dst[1] == src[1]

    return how


class AbsoluteCheck(Judgement):
    '''The figures of one case against their absolute references; the
    ``target`` parameter is ``(family, partition, params, {var: entry})``.'''

    def cases(self):
        family, part, params, _ = self.target
        return [(family, part, params)]

    def vars_of(self, index):
        return list(self.target[3])

    def provenance(self):
        return '; '.join(sorted({e['provenance']
                                 for e in self.target[3].values()}))

    def declared(self):
        return {var: e['unit'] for var, e in self.target[3].items()}

    def judged(self, figures):
        return {var: (figures[0][var], e['ref'], e['unit'])
                for var, e in self.target[3].items()}


class RatioCheck(Judgement):
    '''One figure over another; the ``ratio`` parameter is an entry.'''

    def cases(self):
        return [(s['test'], s['partition'], registry.full_params(
            registry.get(s['test']), s.get('params') or {}))
            for s in (self.ratio['numerator'], self.ratio['denominator'])]

    def vars_of(self, index):
        side = ('numerator', 'denominator')[index]
        return [self.ratio[side]['var']]

    def provenance(self):
        return self.ratio['provenance']

    def declared(self):
        return {self.ratio['name']: self.ratio['unit']}

    def judged(self, figures):
        (num,), (den,) = (f.values() for f in figures)
        if den == 0:
            raise IogapError(f'{self.ratio["name"]}: the denominator is 0')

        return {self.ratio['name']: (num / den, self.ratio['ref'],
                                     self.ratio['unit'])}


class FitCheck(Judgement):
    '''A statistic of a figure's least-squares line over a swept parameter
    (the study's bandwidth against CPU clock); the ``fit`` parameter is an
    entry, the points are every value of ``over`` the partition runs.'''

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

    def provenance(self):
        return self.fit['provenance']

    def declared(self):
        return {self.fit['name']: self.fit['unit']}

    def judged(self, figures):
        _, factor = schema.AXES[self.fit['over']]
        xs = [params[self.fit['over']] * factor
              for _, _, params in self.cases()]
        ys = [f[self.fit['var']] for f in figures]
        line = stats.linear_fit(xs, ys)
        return {self.fit['name']: (line[self.fit['stat']], self.fit['ref'],
                                   self.fit['unit'])}


def absolute_targets():
    '''Cases that absolute references judge: ``(family, partition,
    params, {var: entry})``, the most specific entry winning per var.'''
    ref = references.current()
    if ref is None:
        return []

    targets = {}
    for entry in ref.entries('absolute'):
        cls = registry.get(entry['test'])
        part = ref.partitions[entry['partition']]
        given = entry.get('params') or {}
        for params in references.variants(cls, given, partial=True):
            if not runs_on(cls, params, part):
                continue
            key = (entry['test'], entry['partition'],
                   tuple(sorted(params.items())))
            best = targets.setdefault(key, {})
            old = best.get(entry['var'])
            if old is None or len(given) >= len(old.get('params') or {}):
                best[entry['var']] = entry

    return [(f, p, dict(params), entries)
            for (f, p, params), entries in sorted(targets.items())]


def target_name(target):
    family, part, params, _ = target
    return f'{family}@{part}:' + ','.join(f'{k}={v}' for k, v in
                                         sorted(params.items()))


def entries(kind):
    ref = references.current()
    return ref.entries(kind) if ref else []
