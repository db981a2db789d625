'''A reference file declares a figure judged for breakage only across
nights (``changepoints:``, iogap.judge.breakage): the schema and meaning
checks refuse a malformed declaration in one line, the declaration is
found for the case it names and no other, the change-point verdict then
reports only a step worse by half, and the nightly's summary names the
declared reason. Series are simulated with fixed seeds (test_calibration)
or the real nights of tests/data (test_changepoint), said so where used.'''

import copy
import json
import os
import subprocess
import sys
import types
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from iogap.errors import EXIT

from iogap.history import sessions
import yaml

from iogap.night import driver as nightly
from iogap.judge import acrossnights as cp
from conftest import ROOT
from iogap.site import profile
from iogap.core.figures import HIGHER
from iogap.errors import ReferenceFileError
from iogap.judge import breakage, changepoint, references, verdict
from test_calibration import nights
from test_changepoint import copy_db

REASON = 'two ranks on two cores: the goal is out of reach here'

#: What the summary and the step say of a declared figure
SAID = f'judged for breakage only (declared in the reference: {REASON})'

IOR = {'test': 'IORBench', 'partition': 'default',
       'params': {'layout': 'fpp', 'api': 'POSIX', 'mode': 'direct',
                  'procs_per_node': 2},
       'var': 'write_bw', 'breakage_only': REASON}

#: The real nights' cached re-read (tests/data/changepoint)
REREAD = 'DDSingleStream %core_spec=0 %cpu_bind=default %memory=default ' \
    '%darshan=off %mode=buffered @anyhost:default: read_3x_bw'


def write(tmp_path, entries):
    path = tmp_path / 'anyhost.yaml'
    path.write_text(yaml.safe_dump({'system': 'anyhost',
                                    'changepoints': entries},
                                   sort_keys=False))
    return str(path)


def load(tmp_path, entries):
    profile.load(['--system', 'anyhost'], {})
    return references.File(write(tmp_path, entries), 'anyhost',
                           profile.parts())


def test_a_declaration_loads(tmp_path):
    ref = load(tmp_path, [IOR])
    assert ref.data['changepoints'][0]['breakage_only'] == REASON


def _without(key):
    entry = copy.deepcopy(IOR)
    del entry[key]
    return entry


@pytest.mark.parametrize('entry, message', [
    (_without('breakage_only'), "'breakage_only' is a required property"),
    ({**IOR, 'breakage_only': ''}, "breakage_only: '' should be "
     'non-empty'),
    ({**IOR, 'colour': 'red'}, "'colour' was unexpected"),
    (_without('var'), "'var' is a required property"),
    ({**IOR, 'var': 'write_bw_min'}, 'describes the spread of a run'),
    ({**IOR, 'params': {'procs_per_node': 3}}, 'procs_per_node: 3 is '
     'not one of'),
])
def test_a_malformed_declaration_is_one_line(tmp_path, entry, message):
    with pytest.raises(ReferenceFileError) as err:
        load(tmp_path, [entry])
    text = str(err.value)
    assert text.startswith(f'{tmp_path}/anyhost.yaml:') and 'changepoints' \
        in text, text
    assert message in text and '\n' not in text, text


def test_the_audit_says_a_malformed_declaration_in_one_line(tmp_path):
    path = write(tmp_path, [_without('breakage_only')])
    proc = subprocess.run([sys.executable, '-m', 'iogap', 'audit', path],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == EXIT['input'] and 'Traceback' not in proc.stderr
    assert proc.stderr.count('\n') == 1 and "changepoints[0]: " \
        "'breakage_only' is a required property" in proc.stderr


def test_the_shipped_declarations_name_ior_with_two_ranks_and_dd_paired():
    ref, said = breakage.reference('anyhost')
    assert said == []
    case = {'core_spec': 0, 'cpu_bind': 'default', 'darshan': 'off',
            'num_nodes': 1, 'procs_per_node': 2, 'layout': 'fpp',
            'api': 'POSIX', 'mode': 'direct'}
    for var in ('write_bw', 'read_once_bw'):
        why = breakage.reason(ref, 'IORBench', 'default', case, var)
        assert '21-27 % between nights' in why and '19-38 %' in why
        # the Darshan twin of the case runs on the same two cores
        assert breakage.reason(ref, 'IORBench', 'default',
                               {**case, 'darshan': 'on'}, var) == why
    assert breakage.reason(ref, 'IORBench', 'default', case,
                           'read_3x_bw') is None
    for other in ({'procs_per_node': 1}, {'mode': 'buffered'}):
        assert breakage.reason(ref, 'IORBench', 'default',
                               {**case, **other}, 'write_bw') is None
    # dd: the figures paired with the memory copy, in every mode, with
    # their measured spread; the raw figures are judged for 10 % (their
    # own nights decide)
    dd = {'core_spec': 0, 'cpu_bind': 'default', 'memory': 'default',
          'darshan': 'off'}
    for mode in ('direct', 'buffered'):
        for var in ('write_bw', 'read_once_bw', 'read_3x_bw'):
            why = breakage.reason(ref, 'DDSingleStream', 'default',
                                  {**dd, 'mode': mode}, f'{var}_paired')
            assert 'memory copy' in why and ' % between ' in why
            assert breakage.reason(ref, 'DDSingleStream', 'default',
                                   {**dd, 'mode': mode}, var) is None
    assert breakage.reason(None, 'IORBench', 'default', case,
                           'write_bw') is None


def test_the_nightlys_names_find_the_declared_case(tmp_path):
    ref = load(tmp_path, [IOR])
    name = 'IORBench %core_spec=0 %cpu_bind=default %darshan=off ' \
        '%num_nodes=1 %procs_per_node=2 %layout=fpp %api=POSIX %mode=direct'
    assert breakage.case_params(name)[1]['procs_per_node'] == 2
    assert breakage.declared(ref, 'anyhost:default', name, 'write_bw') == \
        REASON
    assert breakage.declared(ref, 'anyhost:default', name,
                             'read_once_bw') is None
    assert breakage.declared(ref, 'anyhost:default', name.replace(
        'procs_per_node=2', 'procs_per_node=4'), 'write_bw') is None
    assert breakage.declared(ref, 'cori:knl', name, 'write_bw') is None


def _stepped(drop):
    # Simulated: 73 nights at 4.1 % (the quiet host's direct dd), the last
    # three lower by ``drop``
    values = list(np.exp(nights(0.041, 73, seed=5)))
    return values[:70] + [(1 - drop) * v for v in values[70:]]


def test_a_declared_figure_reports_only_a_step_worse_by_half():
    values = _stepped(0.2)
    step, why = changepoint.recent_step(values, HIGHER)
    assert why == 'step' and step.size == pytest.approx(-0.2, abs=0.05)
    assert 'judged for breakage only' not in step.describe()
    step, why = changepoint.recent_step(values, HIGHER, breakage=REASON)
    assert step is None and why.startswith('no breakage') and SAID in why
    step, why = changepoint.recent_step(_stepped(0.6), HIGHER,
                                        breakage=REASON)
    assert why == 'step' and step.size < -0.5
    assert step.rule.breakage_only and SAID in step.describe()


def test_a_declaration_holds_with_too_few_nights_to_calibrate():
    values = list(np.exp(nights(0.041, 30, seed=5)))
    step, why = changepoint.recent_step(values[:27] + [
        0.7 * v for v in values[27:]], HIGHER, breakage=REASON)
    assert step is None and 'Bonferroni' in why and SAID in why


def test_the_nightly_honours_and_names_the_declaration(tmp_path):
    # The real nights with their last three scaled by 0.7 (derived, as in
    # test_changepoint): the cached re-read steps by -49 %, a step unless
    # declared judged for breakage only
    path = copy_db(tmp_path, step=True)
    _, found, _ = cp.judge(path)
    assert REREAD in dict(found)
    ref = load(tmp_path, [{'test': 'DDSingleStream', 'partition': 'default',
                           'params': {'mode': 'buffered'},
                           'var': 'read_3x_bw', 'breakage_only': REASON}])
    lines, honoured, cases = cp.judge(path, ref=ref)
    assert REREAD not in dict(honoured)
    assert set(dict(honoured)) == set(dict(found)) - {REREAD}
    declared = [line for line in lines if 'declared in the reference' in
                line]
    assert len(declared) == 1 and declared[0].startswith(
        f'change points: {REREAD} judged for breakage only: no breakage')
    assert SAID in declared[0]
    assert dict((n, s) for n, s, _ in cases)[REREAD] == 'steady'


def test_an_unreadable_reference_is_one_line_and_judges_in_full(
        tmp_path, monkeypatch):
    monkeypatch.setenv('IOGAP_REFERENCE_DIR', str(tmp_path))
    write(tmp_path, [{**IOR, 'breakage_only': ''}])
    ref, said = breakage.reference('anyhost')
    assert ref is None and len(said) == 1
    assert 'should be non-empty' in said[0]
    assert said[0].endswith('no figure is judged for breakage only by its '
                            'declaration')
    monkeypatch.setenv('IOGAP_REFERENCE_DIR', str(tmp_path / 'none'))
    os.mkdir(tmp_path / 'none')
    assert breakage.reference('anyhost') == (None, [])


def test_the_nights_change_points_read_the_systems_reference(tmp_path,
                                                            monkeypatch):
    # The suite's own step (iogap/night/driver.py) on the derived stepped
    # nights, the reference file taken from IOGAP_REFERENCE_DIR
    path = copy_db(tmp_path, step=True)
    uuid = sessions.sessions(path)[-1][0]['uuid']
    monkeypatch.setenv('IOGAP_REFERENCE_DIR', str(tmp_path))
    write(tmp_path, [{'test': 'DDSingleStream', 'partition': 'default',
                      'params': {'mode': 'buffered'}, 'var': 'read_3x_bw',
                      'breakage_only': REASON}])
    green = ['GREEN: every case passed, every figure within its reference']
    lines, status, _, _ = verdict.across_nights(green, 0, path, uuid,
                                                'anyhost')
    assert status == verdict.RED and not [
        line for line in lines if line.startswith(f'STEP {REREAD}')]
    assert [line for line in lines if SAID in line and REREAD in line]
