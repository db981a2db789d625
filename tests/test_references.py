'''Reference files: validation errors name file, key and value.'''

import copy

import pytest
import yaml

from iogap import references, rebaseline, registry
from iogap.errors import ReferenceError
from iogap.ratios import divide
from reframe.core.exceptions import SanityError

PARTS = ('knl', 'haswell')
GOOD = {
    'system': 'x',
    'absolute': [{'test': 'DDSingleStream', 'partition': 'knl',
                  'params': {'mode': 'dsync'}, 'var': 'write_bw',
                  'ref': [31.23, -0.1, None], 'unit': 'MB/s',
                  'provenance': 'study'}],
    'ratios': [{'name': 'r',
                'numerator': {'test': 'DDSingleStream', 'partition': 'knl',
                              'params': {'mode': 'dsync'}, 'var': 'write_bw'},
                'denominator': {'test': 'DDSingleStream',
                                'partition': 'haswell',
                                'params': {'mode': 'dsync'},
                                'var': 'write_bw'},
                'ref': [0.69, -0.1, 0.1], 'unit': 'ratio',
                'provenance': 'study'}],
}


def check(data):
    return references.validate_text('x.yaml', yaml.safe_dump(data), PARTS)


def broken(path, value):
    data = copy.deepcopy(GOOD)
    *keys, last = path
    node = data
    for key in keys:
        node = node[key]
    if value is KeyError:
        del node[last]
    else:
        node[last] = value
    return data


def test_good_file_loads():
    absolute, ratios = check(GOOD)
    assert absolute[0]['ref'] == [31.23, -0.1, None]
    assert ratios[0]['name'] == 'r'


def test_the_shipped_files_load():
    for system, parts in [('cori', PARTS), ('localpair', ('all', 'one'))]:
        absolute, ratios = references.load(system, parts)
        assert ratios and all(r['provenance'] for r in ratios)


def test_malformed_yaml_names_file_and_line():
    with pytest.raises(ReferenceError, match=r'x.yaml line 2: malformed'):
        references.validate_text('x.yaml', 'a: [1,\nb: }', PARTS)


@pytest.mark.parametrize('path,value,message', [
    (('absolute', 0, 'unit'), KeyError, r'absolute\[0\]: unit: missing'),
    (('absolute', 0, 'provenance'), '', r'provenance: missing value'),
    (('absolute', 0, 'test'), 'NoSuch', r"test: unknown test 'NoSuch'"),
    (('absolute', 0, 'partition'), 'gpu', r"partition: no partition 'gpu'"),
    (('absolute', 0, 'params'), {'mode': 'async'},
     r"params.mode: 'async' is not one of"),
    (('absolute', 0, 'params'), {'colour': 1}, r"has no parameter 'colour'"),
    (('absolute', 0, 'var'), 'speed', r"no performance variable 'speed'"),
    (('absolute', 0, 'ref'), [1, 0.1, None], r'lower bound 0.1 must be <= 0'),
    (('absolute', 0, 'ref'), [1, None, -0.1], r'upper bound -0.1 must be >= 0'),
    (('absolute', 0, 'ref'), [1, -2, None], r'below -1'),
    (('absolute', 0, 'ref'), ['fast', -0.1, None], r'expected \[value'),
    (('absolute', 0, 'ref'), [1, -0.1], r'expected \[value'),
    (('absolute', 0, 'bogus'), 1, r"unknown key 'bogus'"),
    (('ratios', 0, 'numerator', 'partition'), 'gpu',
     r"ratios\[0\].numerator: partition: no partition 'gpu'"),
    (('ratios', 0, 'denominator', 'params'), {'cpu_bind': 'sockets'},
     r"ratios\[0\].denominator: params.cpu_bind: 'sockets'"),
    (('ratios', 0, 'unit'), KeyError, r'ratios\[0\]: unit: missing'),
    (('ratios',), 'none', r'ratios: expected a list'),
])
def test_each_validation_error(path, value, message):
    with pytest.raises(ReferenceError, match=message):
        check(broken(path, value))


def test_duplicate_ratio_names():
    data = copy.deepcopy(GOOD)
    data['ratios'].append(copy.deepcopy(data['ratios'][0]))
    with pytest.raises(ReferenceError, match=r"duplicate ratio 'r'"):
        check(data)


def test_zero_denominator_is_a_clear_failure():
    with pytest.raises(SanityError, match='denominator is 0'):
        divide('r', 1.0, 0.0)
    assert divide('r', 1.0, 4.0) == 0.25


@pytest.mark.parametrize('unit,spread,expected', [
    ('MB/s', 0.01, (-0.25, None)),   # bandwidth: a floor only, >= 25%
    ('MB/s', 0.1, (-0.3, None)),
    ('ops/s', 0.5, (-0.9, None)),    # capped: never a bound of -100%
    ('us', 0.02, (None, 0.25)),      # latency: a ceiling only
    ('ratio', 0.1, (-0.3, 0.3)),     # ratios: both sides
])
def test_tolerance_semantics(unit, spread, expected):
    assert rebaseline.tolerance(unit, spread) == pytest.approx(expected)


def test_variant_names_fill_defaults():
    family = registry.family('DDSingleStream')
    assert registry.variant_name(family, {'mode': 'buffered'}) == \
        registry.variant_name(family, {'mode': 'buffered', 'core_spec': 0,
                                       'cpu_bind': 'default',
                                       'memory': 'default'})


class _Ran:
    '''A dependency as the ratio engine sees it once it has run.'''

    class current_system:
        name = 'x'

    display_name = 'DDSingleStream %mode=dsync'

    def __init__(self, perfvalues):
        self.perfvalues = perfvalues


def test_ratio_side_missing_its_value_is_a_clear_failure():
    from iogap.ratios import measured
    side = {'partition': 'knl', 'var': 'write_bw'}
    assert measured(_Ran({'x:knl:write_bw': (31.0, 0, 0, 0, 'MB/s')}),
                    side) == 31.0
    for values in ({}, {'x:knl:write_bw': (None, 0, 0, 0, 'MB/s')}):
        with pytest.raises(SanityError, match='on knl reported no write_bw'):
            measured(_Ran(values), side)
