'''The change-point verdict over the history database, on eight real
clean nights (tests/data/changepoint, see make_data.py). A step, and bad
input -- an empty or short history, a renamed figure, a failed case --
are derived from them at run time, each said so where it is made.'''

import json
import math
import os
import shutil
import sqlite3
import xml.etree.ElementTree as ET

import pytest

from iogap.__main__ import main as iogap
from iogap.errors import EXIT
from iogap.history import sessions
from iogap.night.driver import add_suite
from iogap.night import driver as nightly
from iogap.judge import acrossnights as cp
from iogap.core.figures import HIGHER, LOWER
from iogap.judge import changepoint, verdict

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
DB = os.path.join(ROOT, 'tests', 'data', 'changepoint', 'nights-results.db')


#: The derived step: the last nights' figures scaled by this (not a
#: measurement: a known step on real night-to-night noise)
STEP, STEPPED = 0.7, 3


def copy_db(tmp_path, keep=None, edit=None, step=False):
    '''A copy of the real database with only the first ``keep`` sessions;
    ``edit(report)`` rewrites the newest one; ``step`` scales every figure
    of the last ``STEPPED`` nights by ``STEP``.'''
    path = tmp_path / 'results.db'
    shutil.copyfile(DB, path)
    with sqlite3.connect(path) as conn:
        rows = conn.execute('SELECT uuid, json_blob FROM sessions ORDER BY '
                            'session_start_unix').fetchall()
        drop = [u for u, _ in rows[keep:]] if keep is not None else []
        for uuid in drop:
            conn.execute('DELETE FROM testcases WHERE session_uuid = ?',
                         (uuid,))
            conn.execute('DELETE FROM sessions WHERE uuid = ?', (uuid,))
        rows = rows[:keep] if keep is not None else rows
        for uuid, blob in rows[-STEPPED:] if step else []:
            report = json.loads(blob)
            for tc in report['runs'][0]['testcases']:
                for value in (tc.get('perfvalues') or {}).values():
                    value[0] *= STEP
            conn.execute('UPDATE sessions SET json_blob = ? WHERE uuid = ?',
                         (json.dumps(report), uuid))
        if edit and rows:
            uuid, blob = rows[-1]
            report = json.loads(blob)
            edit(report)
            conn.execute('UPDATE sessions SET json_blob = ? WHERE uuid = ?',
                         (json.dumps(report), uuid))
    conn.close()
    return str(path)


def steps(lines):
    return [line for line in lines if line.startswith('STEP ')]


def test_the_clean_nights_are_steady():
    lines, found, cases = cp.judge(DB)
    assert found == [] and not steps(lines)
    assert lines[-1].startswith('STEADY: 0 step change(s) in ')
    assert cases and all(status == 'steady' for _, status, _ in cases)


def test_a_step_is_found_where_it_started_with_its_size(tmp_path):
    path = copy_db(tmp_path, step=True)
    nights = sessions.sessions(path)
    lines, found, cases = cp.judge(path)
    series, _ = sessions.series(nights)
    judged = [name for name, status, _ in cases]
    assert [name for name, _ in found] == [n for n in judged if n in dict(
        found)] and found, lines
    assert lines[-1].startswith(f'STEP: {len(found)} step change(s)')
    start = len(nights) - STEPPED
    for name, step in found:
        key = next(k for k in series if name == f'{k[1]} @{k[0]}: {k[2]}')
        assert series[key][step.start][0] >= start
        assert step.low <= step.size <= step.high < 0
    assert any(series[k][s.start][0] == start for k in series
               for name, s in found if name == f'{k[1]} @{k[0]}: {k[2]}')
    assert sum(status == 'step' for _, status, _ in cases) == len(found)


def test_a_step_names_what_changed_that_night(tmp_path):
    # Derived: the stepped nights' sessions say they ran on another kernel
    # and another Spack environment, as the nightly records them
    path = copy_db(tmp_path, step=True)
    with sqlite3.connect(path) as conn:
        rows = conn.execute('SELECT uuid, json_blob FROM sessions ORDER BY '
                            'session_start_unix').fetchall()
        for i, (uuid, blob) in enumerate(rows):
            report = json.loads(blob)
            new = i >= len(rows) - STEPPED
            report['session_info'].update(kernel='6.2' if new else '6.1',
                                          spack_lock='b' if new else 'a')
            conn.execute('UPDATE sessions SET json_blob = ? WHERE uuid = ?',
                         (json.dumps(report), uuid))
    conn.close()
    lines, found, _ = cp.judge(path)
    assert found and len(steps(lines)) == len(found)
    for line in steps(lines):
        assert line.endswith('what changed that night: kernel 6.1 -> 6.2; '
                             'spack_lock a -> b')


def test_an_empty_history_is_one_line(tmp_path):
    path = copy_db(tmp_path, keep=0)
    lines, found, cases = cp.judge(path)
    assert lines == [f'change points: tonight is not in {path}: not '
                     f'judged'] and not found and not cases


def test_a_short_history_is_one_line_and_no_alert(tmp_path):
    path = copy_db(tmp_path, keep=3)
    lines, found, cases = cp.judge(path)
    assert not found and not steps(lines)
    short = [line for line in lines if 'too few nights' in line]
    assert len(short) == 1 and '3 night(s): a step needs at least 6' in \
        short[0]
    assert {status for _, status, _ in cases} == {'short'}


def test_only_the_nights_up_to_tonight_are_read():
    nights = sessions.sessions(DB)
    assert [i['uuid'] for i, _ in sessions.sessions(DB, kept=3)] == \
        [i['uuid'] for i, _ in nights[-3:]]
    tonight = nights[4][0]['uuid']
    assert [i['uuid'] for i, _ in sessions.sessions(DB, tonight)] == \
        [i['uuid'] for i, _ in nights[:5]]
    assert sessions.sessions(DB, 'no-such-session') == []


def test_a_missing_database_is_one_line(tmp_path):
    lines, found, _ = cp.judge(str(tmp_path / 'none.db'))
    assert len(lines) == 1 and 'unreadable' in lines[0] and not found


def _rename(report):
    for tc in report['runs'][0]['testcases']:
        tc['perfvalues'] = {k.replace(':write_bw', ':write_bandwidth'): v
                            for k, v in tc.get('perfvalues', {}).items()}


def test_a_renamed_figure_is_one_line_each_way_and_no_alert(tmp_path):
    # Derived: tonight's write_bw is called write_bandwidth (not a declared
    # figure: it is not judged); the old name has no value tonight
    path = copy_db(tmp_path, edit=_rename)
    lines, found, _ = cp.judge(path)
    assert not found and not steps(lines)
    gone = [line for line in lines if 'renamed or dropped' in line]
    assert len(gone) == 1 and gone[0].endswith(': write_bw')


def _fail_direct(report):
    for tc in report['runs'][0]['testcases']:
        if tc.get('mode') == 'direct':
            tc.update(result='fail', fail_phase='sanity',
                      fail_reason='dd: error writing', perfvalues={})


def test_a_failed_case_is_one_line_and_no_alert(tmp_path):
    # Derived: tonight's direct dd failed in sanity (no figures)
    path = copy_db(tmp_path, edit=_fail_direct)
    lines, found, _ = cp.judge(path)
    assert not found and not steps(lines)
    failed = [line for line in lines if 'failed tonight' in line]
    assert len(failed) == 1 and '%mode=direct' in failed[0]
    assert not [line for line in lines if 'renamed or dropped' in line]


def test_a_latency_steps_up_not_down(tmp_path):
    # Derived: the reciprocal of a stepped real bandwidth series behaves
    # like a latency; the direction comes from the declaration alone
    series, _ = sessions.series(sessions.sessions(copy_db(tmp_path, step=True)))
    key = next(k for k in series if k[2] == 'read_3x_bw' and
               'buffered' in k[1])
    values = [v for _, v in series[key]]
    down, _ = changepoint.recent_step(values, HIGHER)
    up, _ = changepoint.recent_step([1 / v for v in values], LOWER)
    wrong, _ = changepoint.recent_step([1 / v for v in values], HIGHER)
    assert down is not None and up is not None and wrong is None
    assert up.start == down.start
    assert up.size == pytest.approx(1 / (1 + down.size) - 1)


@pytest.mark.parametrize('values, why', [
    ([], '0 night(s): a step needs at least 6'),
    ([1.0, 2.0, 0.0, 1.0, 1.0, 1.0], 'a value is not a positive number'),
    ([1.0, None, 1.0, 1.0, 1.0, 1.0], 'a value is not a positive number'),
    ([2.0] * 8, 'the values do not vary: nothing to test'),
])
def test_bad_series_give_a_reason(values, why):
    assert changepoint.recent_step(values, HIGHER) == (None, why)
    assert changepoint.recent_step([1.0] * 8, None)[1] == \
        'the figure declares no better direction'


def test_steps_are_their_own_junit_suite(tmp_path):
    junit = tmp_path / 'junit.xml'
    ET.ElementTree(ET.Element('testsuites')).write(junit)
    _, found, cases = cp.judge(copy_db(tmp_path, step=True))
    assert found
    add_suite(str(junit), 'changepoint', cases)
    [suite] = ET.parse(junit).getroot().findall('testsuite')
    assert suite.get('name') == 'changepoint'
    assert int(suite.get('failures')) == sum(s == 'step' for _, s, _ in cases)
    assert int(suite.get('failures')) == len(suite.findall('.//failure'))
    assert math.isclose(int(suite.get('tests')), len(cases))


def test_a_step_turns_a_green_night_red():
    green = ['1 cases', 'GREEN: every case passed, every figure within its '
             'reference']
    assert verdict.with_series(green, ['STEADY: 0'], False) == \
        ['1 cases', 'STEADY: 0', green[1]]
    stepped = verdict.with_series(green, ['STEP x', 'STEP: 1'], True)
    assert stepped[:3] == ['1 cases', 'STEP x', 'STEP: 1']
    assert stepped[-1].startswith('RED: ') and 'stepped' in stepped[-1]
    red = verdict.with_series(['RED: 1 failed case(s)'], ['STEP: 1'], True)
    assert red[-1] == 'RED: 1 failed case(s); a step change across nights'


def test_the_report_page_shows_the_step_beside_the_band(tmp_path,
                                                       monkeypatch):
    from matplotlib.figure import Figure
    from iogap.report import write_page
    monkeypatch.setattr(Figure, 'savefig', lambda self, path, **kw: open(
        path, 'wb').write(b'\x89PNG\r\n\x1a\n'))
    out, path = tmp_path / 'report', copy_db(tmp_path, step=True)
    write_page(db=path, output=str(out))
    manifest = json.loads((out / 'figures.json').read_text())
    history = next(s for s in manifest['sections'] if s['key'] == 'history')
    head, rows = history['table']['head'], history['table']['rows']
    across = head.index('across nights')
    assert head[across - 1] == 'newest verdict'
    stepped = [r for r in rows if r[across].startswith('step ')]
    _, found, _ = cp.judge(path)
    assert len(stepped) == len(found) and rows[:len(stepped)] == stepped
    assert all(r[across] in ('steady', '') for r in rows[len(stepped):])
    assert 'step change across nights' in (out / 'index.html').read_text()


def test_provenance_names_the_kernel_and_the_spack_lock(tmp_path):
    import hashlib
    from iogap.night import provenance
    from conftest import built_view
    view = built_view()
    lock = view and os.path.join(os.path.dirname(view), 'spack.lock')
    if not lock or not os.path.exists(lock):
        pytest.skip('no Spack environment with a spack.lock built here')
    found = provenance.extras({'IOGAP_SPACK_VIEW': view})
    assert found['kernel'] == os.uname().release
    with open(lock, 'rb') as fp:
        assert found['spack_lock'] == hashlib.sha256(fp.read()).hexdigest()[
            :12]
    assert 'ior@4.0.0' in found['tools'].split(';')
    assert not any(',' in v for v in found.values())
    assert sessions.changes(
        {'commit': 'a', 'kernel': found['kernel']},
        {'commit': 'b', 'kernel': found['kernel'], 'spack_lock': 'x'}) == [
            'commit a -> b', 'spack_lock unrecorded -> x']


def test_the_command_line_judges_a_database(tmp_path, capsys):
    assert iogap(['changepoints', DB]) == 0
    rules, last = capsys.readouterr().out.splitlines()
    assert last.startswith('STEADY: 0 step change(s)')
    # Eight nights: too few to calibrate, said so
    assert rules == 'change points: 0 of 6 figure(s) with the threshold ' \
        'calibrated on their clean nights, 6 with Bonferroni at 1% (fewer ' \
        'than 60 clean nights)'
    assert iogap(['changepoints', copy_db(tmp_path, step=True)]) == 1
    assert 'STEP ' in capsys.readouterr().out
    assert iogap(['changepoints', str(tmp_path / 'none.db')]) == \
        EXIT['input']
    err = capsys.readouterr().err
    assert err.count('\n') == 1 and 'none.db' in err
