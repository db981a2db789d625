'''Where a case runs and how it presents itself: the constraints a family
and its variants declare (features, not system names) decide the
partitions of each case; its family's docstring and figures describe it.
'''

import functools
import inspect
import string

import reframe.core.runtime as rt
import reframe.utility.sanity as sn
from reframe.core.exceptions import SanityError

from iogap.core import registry, variants
from iogap.core.variants import feature  # noqa: F401 (families' import)
from iogap.site import profile


@functools.lru_cache(maxsize=None)
def constraints(cls):
    '''Every constraint ``cls`` and its bases declare, and those of the
    variants whose parameters it has (:data:`variants.CONSTRAINTS`).'''
    found = [c for name in cls.param_space.params
             for c in variants.CONSTRAINTS.get(name, ())]
    for klass in reversed(cls.__mro__):
        found += [c for c in klass.__dict__.get('CONSTRAINTS', ())
                  if c not in found]

    return found


def runtime_parts():
    '''The partitions of the running system, as profile parts.'''
    return [profile.Part.of(p) for p in rt.runtime().system.partitions]


def case_params(test):
    return {n: getattr(test, n) for n in type(test).param_space.params
            if not n.startswith('.')}


def runs_on(cls, params, part):
    '''Whether the case of ``cls`` with ``params`` (all of them) is
    generated on ``part`` (an :class:`iogap.site.profile.Part`).'''
    return all(fn(params, part) for fn in constraints(cls))


def describe(test, figures):
    '''Give ``test`` a ``descr`` (its family's docstring), tags (the tool
    family and, where the case has one, its I/O mode) and ``figures`` (a
    :class:`iogap.core.figures.Figures`) as declared performance
    variables.'''
    owner = registry.get(registry.family_name(type(test)) or '') or \
        type(test)
    doc = inspect.getdoc(owner) or owner.__name__
    test.descr = ' '.join(doc.split('\n\n')[0].split())
    test.tags |= {getattr(test, 'TOOL', '') or owner.__module__.split('.')[1]}
    if isinstance(getattr(test, 'mode', None), str):
        test.tags.add(test.mode)

    # What --describe shows; the figures a run measured replace them
    # (:meth:`iogap.core.base.IogapTest.report`)
    test.perf_variables = {
        name: sn.make_performance_function(_unmeasured, fig.unit)
        for fig in figures for name in expand(fig)}


def _unmeasured():
    raise SanityError('the figure was not measured')


def expand(figure):
    '''Every name ``figure`` can take (a field of any integer stays a
    ``{field}``).'''
    names = ['']
    for literal, field, _, _ in string.Formatter().parse(figure.template):
        values = figure.fields.get(field, ()) if field else ()
        values = [f'{{{field}}}'] if values is int or values is str else \
            [str(v) for v in values] or ['']
        names = [n + literal + v for n in names for v in values]

    return names
