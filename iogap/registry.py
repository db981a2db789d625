'''The library's test families by name, for references and ratios.

Reference files name a family (the undecorated library class); the thin
check in ``checks/`` subclasses it under the same name and adds no
parameters, so a family's variant numbers are the check's too.
'''

import importlib
import re

#: Family name -> module that defines it
FAMILIES = {
    'DDSingleStream': 'iogap.ddstream',
    'DDFrequencySweep': 'iogap.ddfreq',
    'DDFrequencyFit': 'iogap.ddfreq',
    'IORBench': 'iogap.ior',
    'IORCollective': 'iogap.iorcollective',
    'MDTestBench': 'iogap.mdtest',
    'OSULatency': 'iogap.osu',
    'OSUBandwidth': 'iogap.osu',
    'OSUBiBandwidth': 'iogap.osu',
    'OSUAlltoall': 'iogap.osu',
    'OSUAllreduce': 'iogap.osu',
}


def family(name):
    module = FAMILIES.get(name)
    return getattr(importlib.import_module(module), name) if module else None


def names():
    return sorted(FAMILIES)


def family_name(cls):
    '''The registered family ``cls`` is, or derives from.'''
    for klass in cls.__mro__:
        if FAMILIES.get(klass.__name__) == klass.__module__:
            return klass.__name__

    return None


def param_values(cls, name):
    space = cls.param_space
    return space[name] if name in space.params else None


def has_perf_var(cls, var):
    return any(re.fullmatch(p, var) for p in cls.PERF_VARS)


def full_params(cls, params):
    '''``params`` completed with the first (default) value of the others.'''
    return {name: params.get(name, cls.param_space[name][0])
            for name in cls.param_space.params}


def variant_name(cls, params):
    '''Unique name of the variant of ``cls`` with ``params``; parameters not
    given take their first value.'''
    full = full_params(cls, params)
    nums = cls.get_variant_nums(**{k: (lambda x, v=v: x == v)
                                   for k, v in full.items()})
    return cls.variant_name(nums[0])
