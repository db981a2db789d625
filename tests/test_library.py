'''The library's shape: the core names no family, families find
themselves.'''

import os
import re
import sys

from conftest import ROOT
from iogap.core import registry


def test_families_register_themselves_and_the_core_names_none():
    assert registry.packages() == ['iogap.dd', 'iogap.fio', 'iogap.osu',
                                   'iogap.pio']
    assert {'DDSingleStream', 'FioThreads', 'IORBench', 'OSULatency'} <= \
        set(registry.names())
    core = os.path.join(ROOT, 'iogap', 'core')
    for name in os.listdir(core):
        if name.endswith('.py'):
            with open(os.path.join(core, name)) as fp:
                text = fp.read()
            assert not re.search(r'iogap\.(dd|pio|osu|fio)\b|\b(DD|IOR|OSU|'
                                 r'MDTest|Fio)[A-Z]\w+', text), name


def test_no_family_names_a_parameter_or_variable_after_a_harness_component():
    # The base sets these at set-up: a family's own parameter or variable
    # of that name would be overwritten (OSU's ``placement`` once was)
    components = {'task_placement', 'eviction', 'darshan_run'}
    for name in registry.names():
        family = registry.get(name)
        declared = set(family.param_space.params) | set(family.var_space.vars)
        assert not components & declared, (name, components & declared)
