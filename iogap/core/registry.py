'''The library's test families by name, as references and judgements
name them. A family registers with :func:`family`; a package of families
says ``HOLDS_FAMILIES = True`` and :func:`get` imports it: the core names
none. A check in ``checks/`` subclasses its family under the same name and
adds no parameter, so :func:`case_name` names its cases too.'''

import functools
import importlib
import pkgutil

import reframe.core.builtins as builtins
from reframe.core.meta import make_test

import iogap

#: Parameter ReFrame's ``--repeat N`` adds to every test
REPEAT = '.repeat_no'
_FAMILIES = {}


def family(cls):
    '''Class decorator: make ``cls`` a family references can name.'''
    _FAMILIES[cls.__name__] = cls
    return cls


def packages():
    return [info.name for info in pkgutil.iter_modules(iogap.__path__,
                                                       'iogap.')
            if info.ispkg and getattr(importlib.import_module(info.name),
                                      'HOLDS_FAMILIES', False)]


@functools.lru_cache(maxsize=None)
def _load_all():
    for name in packages():
        package = importlib.import_module(name)
        for info in pkgutil.iter_modules(package.__path__, f'{name}.'):
            importlib.import_module(info.name)


def get(name):
    '''The family called ``name``, or ``None``.'''
    _load_all()
    return _FAMILIES.get(name)


def names():
    _load_all()
    return sorted(_FAMILIES)


def family_name(cls):
    '''The registered family ``cls`` is, or derives from (``None``).'''
    for klass in cls.__mro__:
        if _FAMILIES.get(klass.__name__) is klass:
            return klass.__name__
    return None


def better(name, figure):
    '''The declared direction of family ``name``'s ``figure``, or ``None``.'''
    family = get(name)
    found = family.figures.find(figure) if family is not None and \
        getattr(family, 'figures', None) else None
    return found.better if found is not None else None


def param_values(cls, name):
    space = cls.param_space
    return list(space[name]) if name in space.params else None


def full_params(cls, params):
    '''``params``, the others at their first (default) value.'''
    return {name: params.get(name, cls.param_space[name][0])
            for name in cls.param_space.params if not name.startswith('.')}


def case_name(cls, params, repeat=None):
    '''Unique name of the variant of ``cls`` with ``params`` (the others at
    their first value), ``repeat``: ``(number, of)`` under ``--repeat``.'''
    if repeat is not None:
        cls = _repeated(cls, repeat[1])
    conditions = {k: (lambda x, v=v: x == v)
                  for k, v in full_params(cls, params).items()}
    if repeat is not None:
        conditions[REPEAT] = lambda x, n=repeat[0]: x == n
    nums = cls.get_variant_nums(**conditions)
    if not nums:
        raise LookupError(f'{cls.__name__} has no variant with {params}')
    return cls.variant_name(nums[0])


@functools.lru_cache(maxsize=None)
def _repeated(cls, times):
    # Exactly as reframe.frontend.testgenerators.repeat_tests builds it
    return make_test(cls.__name__, (cls,), {REPEAT: builtins.parameter(
        range(times), loggable=False)}, module=cls.__module__)


def repeat_of(test):
    '''``(number, of)`` if ``test`` runs under ``--repeat``, else ``None``.'''
    if REPEAT not in type(test).param_space.params:
        return None
    return (getattr(test, REPEAT), len(type(test).param_space[REPEAT]))
