'''The history database after any night: ReFrame's own stored-session
tools read it. ReFrame 4.10 cannot read back a session whose info holds a
'}' (iogap.history.resultsdb): the split night's ``--report-file
'...-{sessionid}.json'`` did that for good (tests/data/plan's database is
one such night, kept as it was). A damaged history is mended, saying so
in one line, and loses no session.'''

import json
import os
import shutil
import sqlite3

import pytest

from conftest import ROOT, run_reframe
from iogap.history import resultsdb

#: A split night's history as ReFrame 4.10 left it (4 sessions, all
#: unreadable by --list-stored-sessions)
DAMAGED = os.path.join(ROOT, 'tests', 'data', 'plan',
                       'split-night-results.db')


def blobs(db):
    with sqlite3.connect(db) as conn:
        found = dict(conn.execute('SELECT uuid, json_blob FROM sessions'))
    conn.close()
    return found


def test_a_brace_in_the_session_info_is_what_reframe_cannot_read():
    info = {'uuid': 'u', 'cmdline': "reframe --report-file 'r-{sessionid}'"}
    blob = json.dumps({'session_info': info, 'runs': []})
    assert not resultsdb.readable(blob)
    mended = resultsdb.mended(blob)
    assert resultsdb.readable(mended)
    assert json.loads(mended) == json.loads(blob)    # the same session


def test_a_damaged_history_is_mended_in_one_line_losing_nothing(tmp_path):
    db = str(tmp_path / 'results.db')
    shutil.copy(DAMAGED, db)
    before = blobs(db)
    with sqlite3.connect(db) as conn:
        assert len(resultsdb.unreadable(conn)) == 4
    conn.close()

    said = resultsdb.mend(db)
    assert '\n' not in said and said.startswith(
        f'results database {db}: 4 of 4 stored session(s) unreadable by '
        f'ReFrame'), said
    assert 'mended in place, all 4 kept' in said
    after = blobs(db)
    assert after.keys() == before.keys()
    assert all(json.loads(after[u]) == json.loads(before[u]) for u in before)
    assert all(resultsdb.readable(b) for b in after.values())
    # the file as it was is kept, and a mended history is left alone
    assert blobs(db + resultsdb.BEFORE_MEND) == before
    assert resultsdb.mend(db) is None


@pytest.mark.reframe
def test_reframes_tools_read_the_mended_history(tmp_path):
    db = str(tmp_path / 'results.db')
    shutil.copy(DAMAGED, db)
    env = {'IOGAP_RESULTS_DB': db}
    listing = run_reframe(tmp_path, '--list-stored-sessions', env=env)
    assert listing.returncode != 0 and "Expecting ','" in \
        listing.stdout + listing.proc.stderr     # as the night left it
    resultsdb.mend(db)
    listing = run_reframe(tmp_path, '--list-stored-sessions', env=env)
    assert listing.returncode == 0, listing.stdout + listing.proc.stderr
    assert all(u in listing.stdout for u in blobs(db))


# --- nights by the nightly driver ----------------------------------------

def tools(tmp_path, db, uuid, other):
    '''ReFrame's stored-session tools on ``db``: ``{command: Run}``.'''
    env = {'IOGAP_RESULTS_DB': db}
    return {
        'list': run_reframe(tmp_path, '--list-stored-sessions', env=env),
        'describe': run_reframe(tmp_path, '--describe-stored-session', uuid,
                                env=env),
        'compare': run_reframe(
            tmp_path, '--performance-compare',
            f'{uuid}/{other}/mean:/', '--table-format=csv', env=env)}


@pytest.mark.reframe
def test_a_split_night_then_a_plain_one_leave_a_history_reframe_reads(
        tmp_path):
    '''From a history a split night damaged: the first night mends it and
    says so; a split job, then a plain night whose selection holds braces
    (a site's pattern), are stored readable; ReFrame's tools read all.'''
    from test_pipeline import DATA, nightly
    db = str(tmp_path / 'history' / 'results.db')
    os.makedirs(os.path.dirname(db))
    shutil.copy(DAMAGED, db)
    (tmp_path / 'split').mkdir()
    (tmp_path / 'plain').mkdir()
    green = os.path.join(DATA, 'green')
    select = '-n AbsoluteCheck -x darshan=on -S DDSingleStream.count=16'

    split = nightly(tmp_path / 'split', green, select, IOGAP_RESULTS_DB=db,
                    IOGAP_NIGHT_JOB='shared')
    assert split.returncode == 0, split.stdout + split.stderr
    assert f'history: results database {db}: 4 of 4 stored session(s) ' \
           f'unreadable by ReFrame' in split.stdout
    # its report named through ReFrame's variable: its session is sound
    assert 'iogap: results database' not in split.stdout
    [report] = (tmp_path / 'split' / 'out' / 'reports').glob(
        'run-report-shared-*.json')        # still named by its session

    plain = nightly(tmp_path / 'plain', green, select.replace(
        'darshan=on', "'darshan=o{1}n'"), IOGAP_RESULTS_DB=db)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    # ReFrame stored the braces as given; the run mended its session
    assert f'iogap: results database {db}: 1 of 6 stored session(s) ' \
           f'unreadable by ReFrame' in plain.stdout, plain.stdout

    stored = blobs(db)
    assert len(stored) == 6 and all(resultsdb.readable(b)
                                    for b in stored.values())
    uuid = json.load(open(report))['session_info']['uuid']
    [other] = (tmp_path / 'plain' / 'out' / 'reports').glob('*.json')
    ran = tools(tmp_path, db, uuid,
                json.load(open(other))['session_info']['uuid'])
    for name, run in ran.items():
        assert run.returncode == 0, (name, run.stdout + run.proc.stderr)
    assert all(u in ran['list'].stdout for u in stored)
    assert json.loads(ran['describe'].stdout[ran['describe'].stdout.index(
        '['):])[0]['session_info']['uuid'] == uuid
    assert 'write_bw' in ran['compare'].stdout


# --- the history as a person reads it ------------------------------------

def test_tonight_is_placed_in_the_quartile_of_the_past_nights():
    from iogap.core.figures import HIGHER, LOWER
    from iogap.report import style
    from iogap.report.plot_history import placed
    past = [100, 110, 120, 130, 140]
    assert placed(past, 90, HIGHER) == (
        'tonight below Q1 of the 5 past nights', style.FAIL)
    assert placed(past, 90, LOWER)[1] == style.PASS     # a latency fell
    assert placed(past, 125, HIGHER)[0].startswith(
        'tonight between the median and Q3')
    assert placed(past, 200, None) == (
        'tonight above Q3 of the 5 past nights', 'grey')


def test_the_report_draws_each_figure_beside_its_past_nights(tmp_path):
    from iogap.report import write_page
    from test_changepoint import copy_db
    out = tmp_path / 'report'
    write_page(db=str(copy_db(tmp_path, step=True)), output=str(out))
    manifest = json.loads((out / 'figures.json').read_text())
    [history] = [f for s in manifest['sections'] if s['key'] == 'history'
                 for f in s['figures']]
    assert 'as UMAMI shows it' in history['caption']
    png = (out / os.path.basename(history['file'])).read_bytes()
    assert png.startswith(b'\x89PNG')
