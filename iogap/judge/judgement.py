'''Judgements: measure first, then judge, so that no failure hides another.

A judgement reads the figures of the cases it depends on and reports what it
judges as performance variables, with the references as ReFrame's own.'''

import inspect
import logging
import math
import sys

import reframe as rfm
import reframe.core.logging as rlog
import reframe.core.runtime as rt
import reframe.utility.sanity as sn
from reframe.core.builtins import (
    run_after,
    run_before,
    sanity_function,
    variable,
)
from reframe.core.exceptions import SanityError, SkipTestError

from iogap.core import registry
from iogap.errors import IogapError
from iogap.judge import references
from iogap.judge.skips import NOT_APPLICABLE

#: The parameter ReFrame's ``--distribute`` adds to every test it copies
DISTRIBUTED = '.nid'


class Judgement(rfm.RunOnlyRegressionTest):
    '''Read the figures of the cases a reading names, and judge them.

    A reading gives ``cases()``: ``[(family, partition, full params)]``;
    ``vars_of(index)``: the figures it needs of case ``index``;
    ``judged(figures)`` (one ``{var: value}`` per case): ``{name: (value,
    (ref, lower, upper), unit)}``; ``bounds()``: ``{name: ((ref, lower,
    upper), unit)}``; ``entries_judged()``, ``provenance()`` and
    ``entry_name()``: its reference entries, where they come from, its
    name.'''

    #: Whether this run's --distribute was said (once)
    distributed = False
    valid_prog_environs = ['+tools']
    executable = 'true'
    local = True

    #: Where the judged figures come from; logged like a measurement's
    tool_provider = variable(str, value='judgement', loggable=True)
    #: The reference's provenance
    method = variable(str, value='', loggable=True)
    #: The reference entry judged (its name, or its case)
    judgement = variable(str, value='', loggable=True)
    #: Why the judgement does not apply on this host ('' when it does)
    not_applicable = variable(str, value='', loggable=True)
    #: Share of healthy nights it fails at its assumed noise (the audit's)
    false_alarms = variable(float, type(None), value=None, loggable=True)

    def inapplicable(self, reason):
        '''Skip as not applicable on this host, saying why.'''
        self.not_applicable = reason
        self.method = f'{NOT_APPLICABLE} {reason}'
        try:
            rlog.getperflogger(self).log(logging.INFO, 'not applicable')
        except Exception:     # a perflog that cannot be written hides nothing
            pass
        raise SkipTestError(f'{NOT_APPLICABLE} {reason}')

    @run_after('init')
    def depend_on_cases(self):
        if DISTRIBUTED in type(self).param_space.params:
            # its per-node copies have names no judgement can depend on;
            # said once, as ReFrame drops a test skipped at init unsaid
            why = ('--distribute measures each node apart: the judgements '
                   'are not run (judge a run without --distribute)')
            if not Judgement.distributed:
                Judgement.distributed = True
                print(f'iogap: {why}', file=sys.stderr)
            self.skip(why)
        system = rt.runtime().system
        selected = {p.name for p in system.partitions}
        repeat = registry.repeat_of(self)
        self.missing, self.names = [], []
        for family, part, params in self.cases():
            name = registry.case_name(registry.get(family), params, repeat)
            self.names.append((name, part))
            if part not in selected:
                self.missing.append(f'{family} on {system.name}:{part}')
            elif (name, part) not in self.names[:-1]:
                self.depends_on(name, how=on_partition(part))

        # Runs beside the first case; the arithmetic is local
        self.valid_systems = [f'{system.name}:{self.cases()[0][1]}']
        self.method = self.provenance()
        what = inspect.getdoc(type(self)).split(';')[0].split('.')[0]
        self.descr = f'{" ".join(what.split())} ({self.method})'
        self.tags |= {'judge'}
        # known from the start: --describe shows them
        self.reference = {'*': {name: (*ref, unit) for name, (ref, unit)
                                in self.bounds().items()}}
        self.perf_variables = {
            name: sn.make_performance_function(
                lambda n=name: self.verdicts[n][0], unit)
            for name, (_, unit) in self.bounds().items()}
        self.judgement = self.entry_name()
        ref = references.current()
        rates = [ref.rate_of(e) for e in self.entries_judged()] if ref else []
        if rates and None not in rates:
            # several absolute figures of one case: any of them may fail
            self.false_alarms = 1 - math.prod(1 - r for r in rates)

    @run_after('setup')
    def all_sides_selected(self):
        if self.missing:
            missing = ', '.join(dict.fromkeys(self.missing))
            raise SkipTestError(f'needs {missing}, which this run did not '
                                f'select')

    @sanity_function
    def validate(self):
        figures = []
        for index, (name, part) in enumerate(self.names):
            case = self.getdep(name, part=part)
            results = case.measured()
            need = self.vars_of(index)
            absent = [v for v in need if v not in results]
            why = [case.inapplicable[v] for v in absent
                   if v in getattr(case, 'inapplicable', {})]
            if why:
                self.inapplicable(f'{", ".join(absent)}: {why[0]}')
            if absent:
                raise SanityError(f'{name} on {part} measured no '
                                  f'{", ".join(absent)}')
            figures.append({v: results[v] for v in need})
        try:
            self.verdicts = self.judged(figures)
        except IogapError as err:
            raise SanityError(str(err)) from None
        return True

    @run_before('performance')
    def figures_judged(self):
        # this copy's own verdicts (ReFrame copies the test after init);
        # a dry run judges no figure
        if self.is_dry_run():
            self.reference = {}
        self.perf_variables = {
            name: sn.make_performance_function(
                lambda n=name: self.verdicts[n][0], unit)
            for name, (_, _, unit) in getattr(self, 'verdicts', {}).items()
        }


def on_partition(partition):
    '''A dependency's ``how``: the measured case on ``partition``.'''
    def how(src, dst):
        return dst[0] == partition and dst[1] == src[1]
    return how
