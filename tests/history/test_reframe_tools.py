'''ReFrame's own tools on the results database the suite and the nightly
keep: ``--list-stored-sessions``, ``--performance-report`` and
``--performance-compare``, on a database two real small runs fill here,
and on the committed ones: real nights (tests/data/changepoint) and the
report's (tests/data/report).'''

import csv
import os
import re
import shutil
import sqlite3

import pytest

from iogap.night import driver as history
from conftest import run_reframe

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
NIGHTS = os.path.join(ROOT, 'tests', 'data', 'changepoint',
                      'nights-results.db')
REPORT_DB = os.path.join(ROOT, 'tests', 'data', 'report', 'generic-results.db')
_NOISE = re.compile(r'Traceback|ERROR|WARNING|has no attribute|KeyError')

pytestmark = pytest.mark.reframe


def rows(run):
    '''The CSV table a ``--table-format=csv`` command printed.'''
    lines = [line for line in run.stdout.splitlines() if ',' in line]
    return list(csv.DictReader(lines))


def clean(run):
    text = run.stdout + run.proc.stderr
    assert run.returncode == 0 and not _NOISE.search(text), text
    return run


def uuids(db):
    with sqlite3.connect(db) as conn:
        found = [u for (u,) in conn.execute(
            'SELECT uuid FROM sessions ORDER BY session_start_unix')]
    conn.close()
    return found


def test_the_tools_work_on_a_database_of_two_real_runs(tmp_path):
    select = ('-n', 'DDSingleStream.*cpu_bind=default.*mode=buffered',
              '-x', 'darshan=on', '-S', 'DDSingleStream.count=16',
              '-S', 'DDSingleStream.repetitions=1')
    env = {'IOGAP_RESULTS_DB': str(tmp_path / 'out' / 'results.db')}
    first = clean(run_reframe(tmp_path, *select, '-r',
                              '--session-extras', 'commit=a1', env=env))
    second = clean(run_reframe(tmp_path, *select, '-r',
                               '--session-extras', 'commit=b2',
                               '--performance-report', env=env))
    # The report of the second run compares it with the first
    assert 'PERFORMANCE REPORT' in second.stdout
    assert 'read_3x_bw' in second.stdout
    one, two = uuids(env['IOGAP_RESULTS_DB'])
    assert f'session stored with UUID: {one}' in first.stdout

    listing = clean(run_reframe(tmp_path, '--list-stored-sessions',
                                '--table-format=csv', env=env))
    assert [(r['UUID'], r['commit']) for r in rows(listing)] == [
        (one, 'a1'), (two, 'b2')]

    compare = clean(run_reframe(tmp_path, '--performance-compare',
                                f'{two}/{one}/mean:/', '--table-format=csv',
                                env=env))
    figures = {r['pvar'] for r in rows(compare)}
    assert {'write_bw', 'read_once_bw', 'read_3x_bw'} <= figures
    # The nightly's own comparison spec reads it too
    nightly = clean(run_reframe(tmp_path, '--performance-compare',
                                history.spec(two, 7), '--table-format=csv',
                                env=env))
    assert any(r['pvar'] == 'write_bw' for r in rows(nightly))


def test_the_tools_work_on_the_committed_nights(tmp_path):
    db = tmp_path / 'results.db'
    shutil.copyfile(NIGHTS, db)       # ReFrame may write to its database
    env = {'IOGAP_RESULTS_DB': str(db)}
    first, *_, last = uuids(db)
    listing = clean(run_reframe(tmp_path, '--list-stored-sessions', first,
                                '--table-format=csv', env=env))
    [row] = rows(listing)
    assert row['UUID'] == first and row['slowdown'] == '0'
    compare = clean(run_reframe(tmp_path, '--performance-compare',
                                f'{last}/{first}/mean:/',
                                '--table-format=csv', env=env))
    assert any(r['pvar'] == 'read_once_bw' and r['pdiff (%)']
               for r in rows(compare))


def test_the_tools_work_on_the_committed_report_database(tmp_path):
    '''Three real generic sessions (tests/data/report), the newest with
    the scratch device throttled to 150 MB/s.'''
    db = tmp_path / 'results.db'
    shutil.copyfile(REPORT_DB, db)
    env = {'IOGAP_RESULTS_DB': str(db)}
    stored = uuids(db)
    # The day they ran, whatever today is
    listing = clean(run_reframe(tmp_path, '--list-stored-sessions',
                                '20261124T0000+0000:20261125T0000+0000',
                                '--table-format=csv', env=env))
    assert [r['UUID'] for r in rows(listing)] == stored
    compare = clean(run_reframe(tmp_path, '--performance-compare',
                                f'{stored[-1]}/{stored[0]}/mean:/',
                                '--table-format=csv', env=env))
    reads = [float(r['pdiff (%)']) for r in rows(compare)
             if r['name'].startswith('DDSingleStream') and
             r['pvar'] == 'read_once_bw']
    assert reads and all(d < -80 for d in reads), reads
