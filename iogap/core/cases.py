'''Where a case runs (the features its family and variants require, never
system names) and how it describes itself.'''

import functools
import inspect
import string

import reframe.core.runtime as rt
import reframe.utility.sanity as sn
from reframe.core.exceptions import SanityError

from iogap.core import registry, variants
from iogap.site import profile


@functools.lru_cache(maxsize=None)
def constraints(cls):
    '''The constraints ``cls``, its bases and its variants declare.'''
    found = [c for name in cls.param_space.params
             for c in variants.CONSTRAINTS.get(name, ())]
    for klass in reversed(cls.__mro__):
        found += [c for c in klass.__dict__.get('CONSTRAINTS', ())
                  if c not in found]
    return found


def runtime_parts():
    return [profile.Part.of(p) for p in rt.runtime().system.partitions]


def case_params(test):
    return {n: getattr(test, n) for n in type(test).param_space.params
            if not n.startswith('.')}


def runs_on(cls, params, part):
    '''Whether the case of ``cls`` with ``params`` is generated on ``part``.'''
    return all(fn(params, part) for fn in constraints(cls))


def describe(test, figures):
    '''Give ``test`` its ``descr`` (its family docstring's first paragraph),
    tags, and ``figures`` as unmeasured performance variables.'''
    owner = registry.get(registry.family_name(type(test)) or '') or \
        type(test)
    doc = inspect.getdoc(owner) or owner.__name__
    test.descr = ' '.join(doc.split('\n\n')[0].split())
    test.tags |= {getattr(test, 'TOOL', '') or owner.__module__.split('.')[1]}
    if isinstance(getattr(test, 'mode', None), str):
        test.tags.add(test.mode)
    test.perf_variables = {
        name: sn.make_performance_function(_unmeasured, fig.unit)
        for fig in figures for name in expand(fig)}


def _unmeasured():
    raise SanityError('the figure was not measured')


def expand(figure):
    '''Every name ``figure`` can take (an int or str field as ``{field}``).'''
    names = ['']
    for literal, field, _, _ in string.Formatter().parse(figure.template):
        values = figure.fields.get(field, ()) if field else ()
        values = [f'{{{field}}}'] if values is int or values is str else \
            [str(v) for v in values] or ['']
        names = [n + literal + v for n in names for v in values]
    return names
