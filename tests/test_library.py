'''The library's shape: the core names no family, families find
themselves.'''

import os
import re

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
