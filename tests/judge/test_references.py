'''Reference files: every malformed entry is refused before any job, in one
line naming file, line, key and value; the shipped files load.'''

import copy
import os

import pytest
import yaml

from conftest import ROOT
from iogap.site import profile
from iogap.errors import ReferenceFileError
from iogap.judge import readings, references

pytestmark = pytest.mark.usefixtures('cori')

GOOD = {
    'system': 'cori',
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
    'fits': [{'name': 'f', 'test': 'DDFrequencySweep', 'partition': 'knl',
              'params': {'mode': 'buffered'}, 'over': 'cpu_freq',
              'var': 'write_bw', 'stat': 'slope', 'ref': [100, -0.5, 0.5],
              'unit': 'MB/s/GHz', 'provenance': 'study',
              'noise': {'line': [40, 100]}}],
    'noise': [{'var': '*', 'cv': 0.01, 'source': 'the study'}],
}


def check(tmp_path, data, text=None):
    path = tmp_path / 'cori.yaml'
    path.write_text(text if text is not None else
                    yaml.safe_dump(data, sort_keys=False))
    return references.File(str(path), 'cori', profile.parts())


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


def test_good_file_loads(tmp_path):
    ref = check(tmp_path, GOOD)
    assert [e['name'] for e in ref.entries('ratios')] == ['r']


@pytest.mark.parametrize('system', ['anyhost', 'cori', 'localpair'])
def test_the_shipped_files_load(system):
    profile.load(['--system', system], {})
    name = profile.current()['name']
    ref = references.File(os.path.join(ROOT, 'reference', f'{name}.yaml'),
                          name, profile.parts())
    assert ref.entries('ratios')


@pytest.mark.parametrize('path,value,message', [
    (['absolute', 0, 'test'], 'NoSuch', "absolute[0].test: unknown test "
     "'NoSuch'"),
    (['absolute', 0, 'partition'], 'gpu', "no partition 'gpu' in system "
     "cori"),
    (['absolute', 0, 'params'], {'mode': 'odd'}, "params.mode: 'odd' is "
     "not one of"),
    (['absolute', 0, 'params'], {'colour': 'red'}, "has no parameter "
     "'colour'"),
    (['absolute', 0, 'params'], {'mode': 'dsync', 'memory': 'mcdram'},
     None),
    (['absolute', 0, 'var'], 'speed', "reports no figure 'speed'"),
    (['absolute', 0, 'var'], 'write_bw_cv', 'describes the spread'),
    (['absolute', 0, 'unit'], 'MiB/s', "'MiB/s' differs from the "
     "figure's unit 'MB/s'"),
    (['absolute', 0, 'ref'], [float('nan'), -0.1, None],
     'nan is not a number'),
    (['absolute', 0, 'ref'], [-3, -0.1, None], 'must be positive'),
    (['absolute', 0, 'ref'], [0, -0.1, None], 'must be positive'),
    (['absolute', 0, 'ref'], [True, -0.1, None], "True is not of type 'number'"),
    (['absolute', 0, 'ref'], [31, 0.2, None], 'lower bound 0.2'),
    (['absolute', 0, 'ref'], [31, None, -1], 'upper bound -1'),
    (['absolute', 0, 'ref'], [31, None, None], 'both bounds are null'),
    (['absolute', 0, 'ref'], [31, -0.1], 'is too short'),
    (['absolute', 0, 'colour'], 'red', "'colour' was unexpected"),
    (['absolute', 0, 'provenance'], KeyError, "'provenance' is a "
     "required property"),
    (['ratios', 0, 'numerator', 'var'], 'speed', "reports no figure"),
    (['ratios', 0, 'unit'], 'MB/s', "differs from the figure's unit "
     "'ratio'"),
    (['fits', 0, 'stat'], 'mean', "'mean' is not one of"),
    (['fits', 0, 'unit'], 'MB/s', "'MB/s' differs from the figure's "
     "unit 'MB/s/GHz'"),
    (['fits', 0, 'params'], {'mode': 'buffered', 'cpu_freq': 1400000},
     'fixes cpu_freq'),
    (['system'], 'other', "names 'other', but the file is for system "
     "'cori'"),
])
def test_each_error_names_file_line_key_and_value(tmp_path, path, value,
                                                   message):
    data = broken(path, value)
    if message is None:
        # memory=mcdram exists only on knl: move the entry to haswell
        data['absolute'][0]['partition'] = 'haswell'
        message = 'is not generated on partition haswell'
    with pytest.raises(ReferenceFileError) as err:
        check(tmp_path, data)
    text = str(err.value)
    assert text.startswith(f'{tmp_path}/cori.yaml:'), text
    assert message in text and '\n' not in text, text


def test_line_numbers_point_at_the_entry(tmp_path):
    data = broken(['ratios', 0, 'numerator', 'var'], 'speed')
    text = yaml.safe_dump(data, sort_keys=False)
    lines = text.splitlines()
    with pytest.raises(ReferenceFileError) as err:
        check(tmp_path, None, text)
    line = int(str(err.value).split(':')[1])
    assert lines[line - 1].strip() == 'var: speed'


def test_empty_file_and_malformed_yaml(tmp_path):
    with pytest.raises(ReferenceFileError, match=r'cori.yaml:1: the file is '
                       r'empty'):
        check(tmp_path, None, '# nothing here\n')
    with pytest.raises(ReferenceFileError, match=r'cori.yaml:4: malformed YAML: expected'):
        check(tmp_path, None, 'system: cori\nratios:\n- [unclosed\n')


def test_duplicates_name_the_first_line(tmp_path):
    data = copy.deepcopy(GOOD)
    data['absolute'].append(copy.deepcopy(data['absolute'][0]))
    with pytest.raises(ReferenceFileError, match=r'absolute\[1\]: duplicates the '
                       r'entry on line 3'):
        check(tmp_path, data)
    data = copy.deepcopy(GOOD)
    data['ratios'].append(copy.deepcopy(data['ratios'][0]))
    with pytest.raises(ReferenceFileError, match=r"'r' is already used on line"):
        check(tmp_path, data)
    with pytest.raises(ReferenceFileError, match=r'system: duplicate key'):
        check(tmp_path, None, 'system: cori\nsystem: cori\n')


def test_most_specific_absolute_entry_wins(tmp_path, monkeypatch):
    data = copy.deepcopy(GOOD)
    data['absolute'].append({**data['absolute'][0],
                             'params': {'mode': 'dsync', 'memory': 'dram'},
                             'ref': [30.0, -0.1, None]})
    monkeypatch.setattr(references, '_current', check(tmp_path, data))
    targets = {readings.target_name(t): t for t in readings.absolute_targets(references.current())}
    dram = [t for name, t in targets.items() if 'memory=dram' in name and
            'cpu_bind=default' in name and 'core_spec=0' in name and
            'darshan=off' in name]
    [(_, _, _, entries)] = dram
    assert entries['write_bw']['ref'][0] == 30.0
    default = [t for name, t in targets.items()
               if 'memory=default' in name and 'cpu_bind=default' in name
               and 'core_spec=0' in name]
    assert default[0][3]['write_bw']['ref'][0] == 31.23
