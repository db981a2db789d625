'''Faults a site's cron meets, at unit level: the results database in every
broken shape, run reports that are empty, cut, foreign or missing at every
entry point, tools that lie about their speed (wrappers around the real dd
that rewrite its report), two I/O jobs on one device, a clock stepped
during a step, files replaced on a full file system. Each gives one line
and a red night, and nothing stored before is changed. docs/faults.md
lists them all.'''

import contextlib
import glob
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from iogap.errors import EXIT
from reframe.core.exceptions import SanityError

from conftest import (ROOT, built_view, cases, needs_tools, reframe_cmd,
                      run_reframe)
from iogap.history import resultsdb, runguard
from iogap.core import jobguard, plausible, steps, traced
from iogap.dd import parse
from iogap.site.spack import own

LIARS = os.path.join(ROOT, 'tests', 'data', 'liars')
MiB = 2**20


def reframe_db(path, sessions=('s1',)):
    '''A database shaped like ReFrame 4.10's, with ``sessions``.'''
    with sqlite3.connect(path) as conn:
        conn.execute('CREATE TABLE sessions(uuid TEXT PRIMARY KEY, '
                     'session_start_unix REAL, session_end_unix REAL, '
                     'json_blob TEXT, report_file TEXT)')
        conn.execute('CREATE TABLE testcases(name TEXT, system TEXT, '
                     'partition TEXT, environ TEXT, '
                     'job_completion_time_unix REAL, session_uuid TEXT, '
                     'uuid TEXT)')
        conn.execute('CREATE TABLE metadata(schema_version TEXT)')
        conn.execute("INSERT INTO metadata VALUES('1.0')")
        conn.execute('CREATE INDEX t ON testcases(name)')
        for i, uuid in enumerate(sessions):
            conn.execute('INSERT INTO sessions VALUES(?, ?, ?, ?, ?)',
                         (uuid, i, i, json.dumps({'session_info': {
                             'uuid': uuid, 'x': 'y' * 9000}, 'runs': []}),
                          ''))
            conn.executemany('INSERT INTO testcases VALUES(?,?,?,?,?,?,?)',
                             [(f'case{j}', 's', 'p', 'e', i, uuid, f'u{j}')
                              for j in range(200)])
    conn.close()
    return path


def test_a_missing_database_is_a_new_history_and_a_sound_one_is_kept(tmp_path):
    db = str(tmp_path / 'results.db')
    resultsdb.check(db)
    assert resultsdb.keep_copy(db) is None
    reframe_db(db)
    resultsdb.check(db)
    copy = resultsdb.keep_copy(db)
    assert copy == db + resultsdb.LAST_GOOD
    assert resultsdb.stored(copy, 's1') is None
    assert 'not in the results database' in resultsdb.stored(db, 'other')


def broken(tmp_path, how):
    db = reframe_db(str(tmp_path / 'results.db'))
    size = os.path.getsize(db)
    if how == 'garbage':
        with open(db, 'wb') as fp:
            fp.write(os.urandom(5000))
    elif how == 'empty':
        open(db, 'w').close()
    elif how == 'truncated':
        os.truncate(db, size // 2)
    elif how == 'corrupt page':
        with open(db, 'r+b') as fp:     # a page of the index, overwritten
            fp.seek(size - 4096 * 3)
            fp.write(b'\xff' * 4096)
    elif how == 'not reframe':
        os.remove(db)
        with sqlite3.connect(db) as conn:
            conn.execute('CREATE TABLE photos(name TEXT)')
        conn.close()
    return db


@pytest.mark.parametrize('how,said', [
    ('garbage', 'is not an SQLite database'),
    ('empty', 'is empty'),
    ('truncated', 'is truncated'),
    ('corrupt page', 'integrity_check|is corrupt'),
    ('not reframe', 'not ReFrame\'s'),
])
def test_a_broken_database_is_refused_and_left_as_it_was(tmp_path, how, said):
    db = broken(tmp_path, how)
    before = open(db, 'rb').read()
    with pytest.raises(resultsdb.ResultsDBError, match=said) as err:
        resultsdb.check(db)
    assert '\n' not in str(err.value) and 'the run stops' in str(err.value)
    with pytest.raises(resultsdb.ResultsDBError):
        resultsdb.keep_copy(db)      # a bad history never replaces the copy
    assert open(db, 'rb').read() == before


def test_the_refusal_names_the_last_good_copy(tmp_path):
    db = reframe_db(str(tmp_path / 'results.db'))
    resultsdb.keep_copy(db)
    os.truncate(db, 1000)
    with pytest.raises(resultsdb.ResultsDBError,
                       match=f'cp -p {db}.last-good {db}'):
        resultsdb.check(db)


def holding(db, how):
    '''Another process that holds ``db`` (``lock``: a write lock, ``open``:
    the file open), until killed.'''
    begin = "c.execute('BEGIN EXCLUSIVE'); " if how == 'lock' else ''
    proc = subprocess.Popen(
        [sys.executable, '-c', f"import sqlite3, sys; c = sqlite3.connect("
         f"sys.argv[1]); {begin}print('held', flush=True); sys.stdin.read()",
         db], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == 'held'
    return proc


def test_a_busy_database_is_named_and_never_to_be_replaced(tmp_path,
                                                           monkeypatch):
    '''Busy is not broken: the advice to restore the last good copy (or
    move the file away) lost what the holder was storing.'''
    db = reframe_db(str(tmp_path / 'results.db'))
    resultsdb.keep_copy(db)
    monkeypatch.setattr(resultsdb, 'BUSY_SECONDS', 0.2)
    holder = holding(db, 'lock')
    try:
        with pytest.raises(resultsdb.ResultsDBError) as err:
            resultsdb.check(db)
    finally:
        holder.kill()
        holder.wait()
    said = str(err.value)
    assert f'is busy: locked by pid {holder.pid} (python' in said, said
    assert 'it is sound' in said
    assert 'cp -p' not in said and 'move it away' not in said
    resultsdb.check(db)


def test_a_damaged_database_a_run_holds_open_is_not_to_be_replaced(
        tmp_path):
    db = reframe_db(str(tmp_path / 'results.db'))
    resultsdb.keep_copy(db)
    holder = holding(db, 'open')
    try:
        os.truncate(db, 1000)
        with pytest.raises(resultsdb.ResultsDBError) as err:
            resultsdb.check(db)
    finally:
        holder.kill()
        holder.wait()
    said = str(err.value)
    assert 'is truncated' in said and f'pid {holder.pid} (python' in said
    assert 'replace nothing while it is open' in said
    assert 'cp -p' not in said
    with pytest.raises(resultsdb.ResultsDBError, match='cp -p'):
        resultsdb.check(db)         # no one holds it now


def test_a_session_missing_from_a_sound_history_advises_no_restore(
        tmp_path):
    from types import SimpleNamespace
    from iogap.night import driver
    db = reframe_db(str(tmp_path / 'results.db'))
    resultsdb.keep_copy(db)
    out = tmp_path / 'reframe.out'
    out.write_text('\x1b[33mWARNING: failed to store results in the '
                   'database: database is locked\x1b[0m\n')
    night = SimpleNamespace(results_db=db, stdout=str(out))
    [line] = driver._stored(night, 'tonight')
    assert line.startswith('RED: tonight was not stored in the history: '
                           'session tonight is not in the results database')
    assert line.endswith('(reframe: failed to store results in the '
                         'database: database is locked)'), line
    os.truncate(db, 1000)
    [line] = driver._stored(night, 'tonight')
    assert f'cp -p {db}.last-good {db}' in line


# Every entry point that reads a run report, on reports a cron leaves
BAD_REPORTS = {
    'empty': '', 'truncated': '{"session_info": {"uuid": "a"}, "ru',
    'object': '{}', 'list': '[]', 'foreign': '{"name": "package.json"}',
}


def entry_points(path, tmp_path):
    from iogap.__main__ import main as iogap
    yield 'verdict', lambda: iogap(['verdict', path])
    yield 'report', lambda: iogap(['report', path, '-o',
                                   str(tmp_path / 'html')])
    yield 'rebaseline', lambda: iogap(['rebaseline', path, '--dry-run'])


@pytest.mark.parametrize('kind', [*BAD_REPORTS, 'missing'])
def test_a_bad_run_report_is_one_line_at_every_entry_point(tmp_path, capsys,
                                                           kind):
    path = str(tmp_path / 'run-report-1.json')
    if kind != 'missing':
        with open(path, 'w') as fp:
            fp.write(BAD_REPORTS[kind])
    for name, call in entry_points(path, tmp_path):
        code = call()
        out = capsys.readouterr()
        message = (out.out + out.err).strip()
        # one line, and the one status of an unusable input everywhere
        assert code == EXIT['input'], f'{name}: {code} for a {kind} report'
        assert len(message.splitlines()) == 1 and path in message and \
            'Traceback' not in message, f'{name}: {message}'
        assert os.path.exists(path) == (kind != 'missing')


def guard_script(root):
    return '\n'.join(['#!/bin/bash', *jobguard.job_guard(
        str(root), 'T', io_lock=True), 'sleep 1.5'])


def test_two_roots_on_one_device_take_turns(tmp_path, io_lock_dir):
    '''Two runs' jobs on different scratch roots of one disk: the second
    waits for the first, saying who holds the device.'''
    roots = [tmp_path / 'a', tmp_path / 'b']
    for root in roots:
        root.mkdir()
    assert os.stat(roots[0]).st_dev == os.stat(roots[1]).st_dev
    first = subprocess.Popen(['bash', '-c', guard_script(roots[0])],
                             stdout=subprocess.PIPE, text=True)
    assert first.stdout.readline().startswith('iogap-scratch: ')
    assert 'waited=0s' in first.stdout.readline()
    second = subprocess.run(['bash', '-c', guard_script(roots[1])],
                            capture_output=True, text=True, timeout=60)
    first.wait(timeout=30)
    assert second.returncode == 0, second.stderr
    assert 'iogap: waiting for the I/O lock of device' in second.stderr
    assert f'held by pid={first.pid} root={roots[0]}' in second.stderr
    waited = [l for l in second.stdout.splitlines() if 'waited=' in l]
    assert waited and not waited[0].endswith('waited=0s')


def dd_stream(tmp_path, count, mode='buffered', **env):
    '''Run the dd driver as a job runs it, with the lying dd; its output.'''
    for name in own.FILES:
        shutil.copy(own.source(name), tmp_path)
    flags = {'buffered': [], 'dsync': ['--write-flags', 'oflag=dsync']}[mode]
    proc = subprocess.run(
        ['bash', './dd-stream.sh', '--dd', os.path.join(LIARS, 'dd'),
         '--file', str(tmp_path / 'dd.dat'), '--bs', '1M', '--count',
         str(count), '--reps', '1', '--reads', '3', '--evict', 'fadvise',
         '--calibrations', str(plausible.CALIBRATIONS),
         '--trace', str(traced.trace_quantum(2 * count * MiB)), *flags],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env=dict(os.environ, LC_ALL='C', **env))
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


# 256 is the generic profile's dd_count, 128 the smallest a profile uses
# (localpair, minicori), 64 the short step
@pytest.mark.parametrize('count,mode,lie', [
    (256, 'buffered', {'IOGAP_LIAR_FACTOR': '2'}),
    (128, 'buffered', {'IOGAP_LIAR_FACTOR': '2'}),
    (128, 'dsync', {'IOGAP_LIAR_FACTOR': '2'}),
    (128, 'buffered', {'IOGAP_LIAR_RATE': '4e15'}),
    (64, 'buffered', {'IOGAP_LIAR_RATE': '4e15'}),
])
def test_a_lying_dd_fails_with_both_numbers(tmp_path, count, mode, lie):
    '''Twice the truth fails the job at whichever step shows it (how
    often each step alone shows it: bench/plausibility.py).'''
    text = dd_stream(tmp_path, count, mode, **lie)
    with pytest.raises(SanityError, match=r'^dd \S+ \(repetition 1\): the '
                       r'tool reports [0-9.e+]+ MB/s .* but the harness saw '
                       r'at most [0-9.]+ MB/s \(traced: .* not '
                       r'plausible') as err:
        parse.check_steps(text, count * MiB, 5)
    if 'IOGAP_LIAR_RATE' in lie:
        assert 'reports 4e+09 MB/s' in str(err.value)


def test_a_dd_that_moves_nothing_fails_whatever_time_it_claims(tmp_path):
    '''A summary of every byte, in a plausible time, with no byte moved:
    the trace shows none, so no step can pass.'''
    text = dd_stream(tmp_path, 64, IOGAP_LIAR_IDLE='1')
    with pytest.raises(SanityError, match=r'^dd memory \(repetition 1\): '
                       rf'{2 * 64 * MiB} bytes \(read and written\) must '
                       r'have moved by its end, but the harness traced at '
                       r'most \d+ in any of its processes'):
        parse.check_steps(text, 64 * MiB, 5)


@pytest.mark.parametrize('count', [1, 16, 256])
def test_a_copy_faster_than_the_tracer_starts_is_held_whole(count):
    '''dd copies 1 MiB in memory before the tracer's first sample, 256
    MiB within milliseconds, often partly before it: a trace counts from
    the tool's start, so every byte is there, and the honest claim
    passes (with no sample inside the copy, a stretch of 0 s).'''
    for _ in range(5):
        proc = subprocess.run(
            [sys.executable, os.path.join(ROOT, 'iogap', 'core',
                                          'iotrace.py'),
             str(traced.trace_quantum(2 * count * MiB)), 'dd',
             'if=/dev/zero', 'of=/dev/null', 'bs=1M', f'count={count}'],
            capture_output=True, text=True, timeout=60,
            env=dict(os.environ, LC_ALL='C'))
        [step] = steps.parse('iogap-step: op=memory\n' + proc.stdout +
                             proc.stderr)
        assert step.traces[0][-1][1] >= 2 * count * MiB, proc.stdout
        assert traced.check_traced([parse.dd_record(step)[1]], step.traces,
                                   2 * count * MiB, 'dd memory',
                                   count * MiB), proc.stdout


def test_the_same_wrapper_telling_the_truth_passes(tmp_path):
    text = dd_stream(tmp_path, 64, IOGAP_LIAR_FACTOR='1')
    found, overhead = parse.check_steps(text, 64 * MiB, 5)
    assert len(found) == 5 and 0 < overhead.min <= overhead.max


def test_a_clock_stepped_during_a_step_is_timed_by_the_monotonic_clock():
    script = (f'. {steps.JOB_SH}\n'
              'iogap_begin op=write\n'
              # The wall clock read at the start, as if it had jumped back
              'iogap_t0=$((iogap_t0 + 3600000000))\n'
              'sleep 0.3\n'
              'iogap_end\n')
    proc = subprocess.run(['bash', '-c', script], capture_output=True,
                          text=True, timeout=30)
    [step] = steps.parse(proc.stdout)
    assert 0.28 <= step.seconds <= 0.5, proc.stdout
    assert 'the wall clock moved by' in proc.stderr
    assert 'timed by the monotonic clock' in proc.stderr


def test_a_file_replaced_on_a_full_file_system_keeps_its_old_text(tmp_path):
    if os.geteuid() != 0 or not shutil.which('mount'):
        pytest.skip('mounting a small tmpfs needs root')
    mnt = tmp_path / 'full'
    mnt.mkdir()
    made = subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=256k',
                           'iogap-test', str(mnt)], capture_output=True,
                          text=True)
    if made.returncode:
        pytest.skip(f'cannot mount a tmpfs here: {made.stderr.strip()}')
    try:
        target = mnt / 'summary.txt'
        target.write_text('last night\n')
        subprocess.run(['dd', 'if=/dev/zero', f'of={mnt}/filler', 'bs=4k'],
                       capture_output=True)
        with pytest.raises(OSError):
            runguard.replace_file(str(target), 'tonight\n' * 100000)
        assert target.read_text() == 'last night\n'
        assert sorted(os.listdir(mnt)) == ['filler', 'summary.txt']
        with pytest.raises(Exception, match='0 MiB free'):
            runguard.check_output(str(mnt))
    finally:
        subprocess.run(['umount', '-l', str(mnt)])


def test_default_time_limits_grow_with_the_bytes_from_minutes():
    from iogap.core.ending import FIXED_SECONDS, time_limit
    assert time_limit(0) == FIXED_SECONDS
    generic = time_limit(256 * MiB * 3 * 4)     # dd_count 256, 3 reps
    assert FIXED_SECONDS < generic < 10 * 60
    assert time_limit(10**11) > time_limit(10**10) > generic


# Real runs: one or two small dd or IOR cases each

DD = ('-S', 'DDSingleStream.repetitions=1')


def dd_case(mode, count=16):
    return ('-n', f'DDSingleStream.*%cpu_bind=default.*%darshan=off.*'
                  f'%mode={mode}', *DD, '-S', f'DDSingleStream.count={count}')


def one_error_line(run):
    said = [line for line in run.stdout.splitlines()
            if line.startswith(('ERROR', 'iogap:'))]
    assert said and 'Traceback' not in run.stdout, run.stdout
    return said


@pytest.mark.reframe
def test_a_broken_history_stops_the_run_before_any_job(tmp_path):
    db = broken(tmp_path, 'truncated')
    before = open(db, 'rb').read()
    run = run_reframe(tmp_path, *dd_case('buffered'), '-r',
                      env={'IOGAP_RESULTS_DB': db})
    assert run.returncode != 0
    [line] = [l for l in one_error_line(run) if 'results database' in l]
    assert 'is truncated' in line and 'the run stops' in line
    assert not os.path.exists(os.path.join(run.out, 'stage'))
    assert open(db, 'rb').read() == before


def dd_run_measuring(env, scratch):
    '''A small dd run, started in the background and returned once its
    job has made its directory under ``scratch``.'''
    proc = subprocess.Popen(reframe_cmd() + ['-C', 'reframe_config.py',
                                             *dd_case('buffered', 64), '-r'],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 300
    while not any(e.startswith('iogap.') for e in os.listdir(scratch)):
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.05)
    return proc


@pytest.mark.reframe
def test_a_session_that_was_not_stored_fails_the_run(tmp_path):
    '''The history breaks while the run measures: ReFrame only warns that
    it failed to store the session; the run fails naming why.'''
    db = tmp_path / 'history.db'
    env = dict(os.environ, IOGAP_OUTPUT=str(tmp_path / 'out'),
               IOGAP_SCRATCH=str(tmp_path / 'scratch'), RFM_COLORIZE='n',
               IOGAP_RESULTS_DB=str(db))
    (tmp_path / 'scratch').mkdir()
    proc = dd_run_measuring(env, tmp_path / 'scratch')
    db.write_bytes(b'garbage')
    out = proc.communicate(timeout=300)[0]
    assert proc.returncode == 1, out
    assert 'failed to store results in the database' in out
    assert 'iogap: the run is not complete' in out
    assert 'the session was not stored' in out and str(db) in out


@pytest.mark.reframe
@pytest.mark.parametrize('how', ['full', 'read-only'])
def test_a_full_or_read_only_output_stops_the_run(tmp_path, small_fs, how):
    out = small_fs(size='4m' if how == 'full' else '64m',
                   ro=how == 'read-only')
    run = run_reframe(tmp_path, *dd_case('buffered'), '-r',
                      env={'IOGAP_OUTPUT': str(out)})
    assert run.returncode != 0
    [line] = [l for l in one_error_line(run) if str(out) in l]
    assert ('MiB free' if how == 'full' else 'is not writable') in line


@pytest.fixture
def small_fs(tmp_path):
    '''A tmpfs of the given size under tmp_path, optionally read-only.'''
    mounted = []

    def _mount(size, ro=False):
        path = tmp_path / f'fs{len(mounted)}'
        path.mkdir()
        proc = subprocess.run(['mount', '-t', 'tmpfs', '-o', f'size={size}',
                               'iogap-test', str(path)],
                              capture_output=True, text=True)
        if proc.returncode:
            pytest.skip(f'cannot mount a tmpfs here: {proc.stderr.strip()}')
        mounted.append(path)
        if ro:
            subprocess.run(['mount', '-o', 'remount,ro', str(path)],
                           check=True)
        return path

    yield _mount
    for path in reversed(mounted):
        subprocess.run(['umount', '-l', str(path)])


@pytest.mark.reframe
def test_the_nightly_on_a_broken_history_is_red_in_one_line(tmp_path):
    db = broken(tmp_path, 'garbage')
    before = open(db, 'rb').read()
    env = dict(os.environ, IOGAP_OUTPUT=str(tmp_path / 'out'),
               IOGAP_SCRATCH=str(tmp_path / 'scratch'), IOGAP_RESULTS_DB=db,
               IOGAP_SELECT=' '.join(dd_case('buffered')))
    proc = subprocess.run([sys.executable, '-m', 'iogap', 'night'],
                          cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 1
    [red] = [l for l in proc.stdout.splitlines() if l.startswith('RED')]
    assert 'is not an SQLite database' in red and 'Traceback' not in \
        proc.stdout + proc.stderr
    assert 'reframe' not in proc.stdout.split(red)[0].split('history')[-1]
    assert open(db, 'rb').read() == before


@pytest.mark.reframe
def test_two_runs_on_two_roots_of_one_disk_never_measure_at_once(tmp_path):
    '''Two runs started together, each with its scratch root and output
    on one disk: their jobs take turns, the one that waits says for whom.'''
    roots = [tmp_path / 'scratch1', tmp_path / 'scratch2']
    case = dd_case('dsync', 256) + ('-S', 'DDSingleStream.repetitions=2')
    runs = []
    for n, root in enumerate(roots, start=1):
        root.mkdir()
        env = dict(os.environ, IOGAP_OUTPUT=str(tmp_path / f'out{n}'),
                   IOGAP_SCRATCH=str(root), RFM_COLORIZE='n')
        runs.append(subprocess.Popen(
            reframe_cmd() + ['-C', 'reframe_config.py', *case, '-r'],
            cwd=ROOT, env=env, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True))
    outs = [run.communicate(timeout=600)[0] for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outs
    held, said = [], ''
    for out in glob.glob(str(tmp_path / 'out*' / 'output' / '**' /
                             'rfm_job.out'), recursive=True):
        text = open(out).read()
        [at] = re.findall(r'^iogap-io-lock: .* at=([0-9.]+)$', text, re.M)
        [gone] = re.findall(r'^iogap-io-released: at=([0-9.]+)$', text, re.M)
        held.append((float(at), float(gone)))
        said += open(out.replace('.out', '.err')).read()
    (start1, end1), (start2, end2) = sorted(held)
    assert end1 <= start2, f'both measured at once: {held}'
    if 'waiting for the I/O lock' in said:
        assert re.search(r'iogap: waiting for the I/O lock of device '
                         r'\d+:\d+ \(.*scratch[12]\), held by pid=\d+ '
                         r'root=.*scratch[12]', said), said


@pytest.mark.reframe
def test_a_hung_dd_fails_its_case_in_time_and_the_night_goes_on(tmp_path):
    fake = tmp_path / 'view' / 'bin'
    fake.mkdir(parents=True)
    (fake / 'dd').write_text('#!/bin/bash\ncase "$*" in *count=16*oflag=dsync'
                             '*) sleep 3600 ;; esac\nexec /usr/bin/dd "$@"\n')
    (fake / 'dd').chmod(0o755)
    run = run_reframe(tmp_path, '-n', 'DDSingleStream.*%cpu_bind=default.*'
                      '%darshan=off.*%mode=(buffered|dsync)', *DD, '-S',
                      'DDSingleStream.count=16', '-S',
                      'DDSingleStream.time_limit=20s', '-r',
                      env={'IOGAP_SPACK_VIEW': str(tmp_path / 'view')},
                      timeout=300)
    found = {tc['mode']: tc for tc in cases(run, 'DDSingleStream')}
    assert found['buffered']['result'] == 'pass', run.stdout
    assert found['dsync']['result'] == 'fail'
    assert 'timed out' in found['dsync']['fail_reason']
    assert not [e for e in os.listdir(tmp_path / 'scratch')
                if e.startswith('iogap.')]


@pytest.mark.reframe
def test_a_lying_dd_fails_its_case_with_both_numbers(tmp_path):
    view = tmp_path / 'view' / 'bin'
    view.mkdir(parents=True)
    os.symlink(os.path.join(LIARS, 'dd'), view / 'dd')
    run = run_reframe(tmp_path, *dd_case('dsync', 128), '-r',
                      env={'IOGAP_SPACK_VIEW': str(tmp_path / 'view'),
                           'IOGAP_LIAR_FACTOR': '2'})
    [tc] = cases(run, 'DDSingleStream')
    assert tc['result'] == 'fail', run.stdout
    assert re.search(r'dd \w+ \(repetition 1\): the tool reports [0-9.]+ '
                     r'MB/s .* but the harness saw (at most )?[0-9.]+ MB/s .* '
                     r'not plausible', tc['fail_reason']), tc['fail_reason']


def ior_liar(tmp_path, block, **lie):
    view = tmp_path / 'view' / 'bin'
    view.mkdir(parents=True)
    os.symlink(os.path.join(LIARS, 'ior'), view / 'ior')
    return run_reframe(
        tmp_path, '-n', 'IORBench.*%cpu_bind=default.*%darshan=off.*'
        '%procs_per_node=2.*%layout=fpp.*%api=POSIX.*%mode=(buffered|direct)',
        '-S', f'IORBench.block_size={block}', '-r',
        env={'IOGAP_SPACK_VIEW': str(tmp_path / 'view'),
             'IOGAP_LIAR_IOR': os.path.join(built_view(), 'bin', 'ior'),
             **lie}, timeout=600)


# 64m is the generic profile's block, 16m the smallest a profile uses
# (minicori, minicluster)
@needs_tools
@pytest.mark.reframe
@pytest.mark.parametrize('block,lie,told', [
    ('64m', {'IOGAP_LIAR_FACTOR': '2'}, r'[0-9.]+'),
    ('16m', {'IOGAP_LIAR_FACTOR': '2'}, r'[0-9.]+'),
    ('16m', {'IOGAP_LIAR_RATE': '4e15'}, r'4e\+09'),
], ids=['64m-twice', '16m-twice', '16m-4PBps'])
def test_a_lying_ior_fails_with_both_numbers(tmp_path, block, lie, told):
    '''Two tasks on one node, buffered and direct: an IOR claiming twice
    its speed, or 4 PB/s, fails at whichever step shows it first.'''
    run = ior_liar(tmp_path, block, **lie)
    found = {tc['mode']: tc for tc in cases(run, 'IORBench')}
    assert set(found) == {'buffered', 'direct'}, run.stdout
    for mode, tc in found.items():
        assert tc['result'] == 'fail', (mode, 'the lie passed')
        assert re.search(rf'IOR (write|read)[^:]*: the tool reports {told} '
                         rf'MB/s .* but the harness saw (at most )?[0-9.]+ '
                         rf'MB/s .* not plausible', tc['fail_reason']), \
            (mode, tc['fail_reason'])


@pytest.mark.reframe
def test_an_output_that_fills_during_the_run_is_one_line(tmp_path, small_fs):
    '''The output file system fills while a job measures: no traceback per
    log record, the run fails naming the full file system, and the history
    kept elsewhere stays sound.'''
    out = small_fs(size='20m')
    db = reframe_db(str(tmp_path / 'history.db'))
    (tmp_path / 'scratch').mkdir()
    env = dict(os.environ, IOGAP_OUTPUT=str(out), RFM_COLORIZE='n',
               IOGAP_SCRATCH=str(tmp_path / 'scratch'), IOGAP_RESULTS_DB=db)
    proc = dd_run_measuring(env, tmp_path / 'scratch')
    subprocess.run(['dd', 'if=/dev/zero', f'of={out}/filler', 'bs=64k'],
                   capture_output=True)
    text = proc.communicate(timeout=300)[0]
    assert proc.returncode != 0, text
    assert 'Traceback' not in text and 'Logging error' not in text, text
    assert 'No space left on device' in text
    assert 'iogap: the run is not complete' in text
    resultsdb.check(db)


def night_env(tmp_path, **more):
    '''A night's environment with ReFrame's default settings (colours
    on), its scratch, output and history of its own, a dd case running
    long enough to be stopped.'''
    (tmp_path / 'scratch').mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith('RFM_')}
    return dict(env, IOGAP_OUTPUT=str(tmp_path / 'out'),
                IOGAP_SCRATCH=str(tmp_path / 'scratch'),
                IOGAP_RESULTS_DB=reframe_db(str(tmp_path / 'history.db')),
                IOGAP_SELECT=' '.join(dd_case('dsync', 256) + (
                    '-S', 'DDSingleStream.repetitions=3')), **more)


def night_of(env, **popen):
    return subprocess.Popen([sys.executable, '-m', 'iogap', 'night'],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, **popen)


def processes_of(out):
    '''``{pid: command}`` of the processes of the night writing in
    ``out`` (reframe, its jobs and their tools), the night aside.'''
    found = {}
    for pid in filter(str.isdigit, os.listdir('/proc')):
        try:
            with open(f'/proc/{pid}/environ', 'rb') as fp:
                if f'IOGAP_OUTPUT={out}\0'.encode() not in fp.read():
                    continue
            with open(f'/proc/{pid}/cmdline', 'rb') as fp:
                command = fp.read().replace(b'\0', b' ').decode()
        except OSError:
            continue
        if ' -m iogap night' not in command:
            found[int(pid)] = command
    return found


def measuring(proc, scratch, deadline=300, found=lambda: False):
    '''Wait until the night's dd job has made its directory (or ``found``
    says an earlier moment has come).'''
    end = time.monotonic() + deadline
    while not found() and not any(e.startswith('iogap.')
                                  for e in os.listdir(scratch)):
        assert time.monotonic() < end and proc.poll() is None
        time.sleep(0.002)


def left_in(scratch, within=30):
    '''The job directories still in ``scratch`` after ``within`` s.'''
    end = time.monotonic() + within
    while time.monotonic() < end:
        left = [e for e in os.listdir(scratch) if e.startswith('iogap.')]
        if not left:
            return []
        time.sleep(0.1)
    return left


@pytest.fixture
def no_orphans(tmp_path):
    '''Whatever a night left running is killed after the test.'''
    yield
    for pid in processes_of(tmp_path / 'out'):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


LAST_NIGHT = {'summary.txt': 'last night\n', 'night.env': 'last=night\n',
              'reframe.out': 'last night\n'}


def last_night(tmp_path):
    ci = tmp_path / 'out' / 'ci'
    ci.mkdir(parents=True)
    for name, text in LAST_NIGHT.items():
        (ci / name).write_text(text)
    return ci


@pytest.mark.reframe
@pytest.mark.parametrize('sig', ['SIGTERM', 'SIGINT', 'SIGHUP'])
def test_a_signal_to_the_nightly_stops_its_reframe_and_jobs(tmp_path, sig,
                                                            no_orphans):
    '''A batch system or an admin signals the nightly's own pid: reframe
    went on as an orphan and stored a session nothing judged, while
    night.env and summary.txt still told of the night before.'''
    ci = last_night(tmp_path)
    env = night_env(tmp_path)
    night = night_of(env)
    measuring(night, tmp_path / 'scratch')
    os.kill(night.pid, getattr(signal, sig))
    stopped = time.monotonic()
    out = night.communicate(timeout=60)[0]
    while processes_of(tmp_path / 'out') and \
            time.monotonic() - stopped < 10:
        time.sleep(0.1)
    assert not processes_of(tmp_path / 'out'), out
    assert night.returncode == EXIT['red'], out
    said = f'RED: the night was aborted by {sig} after '
    assert (ci / 'summary.txt').read_text().splitlines()[1].startswith(said)
    assert (ci / 'night.env').read_text() == (
        f"IOGAP_RUN_REPORT=''\nIOGAP_RESULTS_DB={env['IOGAP_RESULTS_DB']}"
        f"\nIOGAP_NIGHT_ABORTED={sig}\n")
    assert 'last night' not in (ci / 'reframe.out').read_text()
    assert not left_in(tmp_path / 'scratch') and 'Traceback' not in out
    resultsdb.check(env['IOGAP_RESULTS_DB'])


@pytest.mark.reframe
def test_a_second_night_on_one_output_touches_nothing_of_the_first(
        tmp_path, no_orphans):
    '''The second was refused, having truncated the first's reframe.out
    (1,085 NUL bytes, the night's start lost) and reset night.env and
    summary.txt.'''
    ci = last_night(tmp_path)
    env = night_env(tmp_path)
    first = night_of(env)
    try:
        measuring(first, tmp_path / 'scratch')
        before = {name: (ci / name).read_bytes() for name in LAST_NIGHT}
        second = subprocess.run([sys.executable, '-m', 'iogap', 'night'],
                                cwd=ROOT, env=env, capture_output=True,
                                text=True, timeout=120)
        after = {name: (ci / name).read_bytes() for name in LAST_NIGHT}
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=60)
    said = (second.stdout + second.stderr).strip()
    assert second.returncode == EXIT['input'] and '\n' not in said, said
    assert re.fullmatch(rf'iogap night: output directory {tmp_path}/out is '
                        rf'in use by another run \(pid {first.pid} on \S+, '
                        rf'started [0-9: -]+\): wait for it or choose '
                        rf'another directory', said), said
    assert after['summary.txt'] == before['summary.txt'] == b'last night\n'
    assert after['night.env'] == before['night.env'] == b'last=night\n'
    assert after['reframe.out'].startswith(before['reframe.out'])
    assert b'\0' not in after['reframe.out']
    assert before['reframe.out'].startswith(b'[ReFrame Setup]') or \
        b'ReFrame' in before['reframe.out']


def busy(cores=2):
    '''Processes keeping ``cores`` CPUs busy: a loaded machine.'''
    return [subprocess.Popen([sys.executable, '-c', 'while True: pass'])
            for _ in range(cores)]


#: When the CI runner cancels the night: seconds after it started, after
#: reframe wrote the dd job's script (reframe cancels the job a moment
#: later, as the job makes its directory), or after the job made it
MOMENTS = [('start', 4), ('script', 0), ('script', 0.02), ('script', 0.05),
           ('script', 0.1), ('script', 0.2), ('job', 0), ('job', 0.3),
           ('job', 1), ('job', 3)]


@pytest.mark.reframe
@pytest.mark.parametrize('since,after', MOMENTS,
                         ids=[f'{s}+{a}s' for s, a in MOMENTS])
def test_the_ci_runner_cancelling_the_night_loses_nothing(tmp_path, since,
                                                          after, no_orphans):
    '''GitLab cancels a job with SIGTERM to its process group, here on a
    loaded machine: at any moment the run's job ends, its scratch
    directory goes and the history stays sound (one moment was tested,
    and a loaded machine once kept the directory: a signal between its
    making and the trap that removes it).'''
    env = night_env(tmp_path)
    hogs = busy()
    try:
        night = night_of(env, start_new_session=True)
        if since != 'start':
            measuring(night, tmp_path / 'scratch', found=lambda: since ==
                      'script' and glob.glob(str(tmp_path / 'out' / 'stage'
                                                 / '*' / '*' / '*' / 'DD*' /
                                                 'rfm_job.sh')))
        time.sleep(after)
        os.killpg(night.pid, signal.SIGTERM)
        out = night.communicate(timeout=120)[0]
        left = left_in(tmp_path / 'scratch')
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert night.returncode != 0, out
    assert not left, out
    db = env['IOGAP_RESULTS_DB']
    resultsdb.check(db)
    # the copy is kept before reframe starts, whole or not at all
    assert os.path.exists(db + resultsdb.LAST_GOOD) or since == 'start'
    assert not glob.glob(db + '*.part*')


@pytest.mark.parametrize('share', ['150%', 'nan%', '-1'])
def test_a_bad_minimum_stops_the_night_before_anything_runs(tmp_path,
                                                            share):
    '''It was refused only by the verdict, after the whole suite ran.'''
    from test_bad_input import one_line, run
    proc = run('iogap', 'night', IOGAP_MIN_JUDGED=share,
               IOGAP_OUTPUT=str(tmp_path / 'out'),
               IOGAP_SCRATCH=str(tmp_path / 'scratch'),
               IOGAP_SELECT='-n NoSuchCheck',
               IOGAP_RESULTS_DB=str(tmp_path / 'history' / 'results.db'))
    assert one_line(proc, f"iogap night: IOGAP_MIN_JUDGED='{share}' is "
                    f"neither a count of figures nor a share such as 80%")
    assert proc.returncode == EXIT['input']
    assert not {'out', 'history'} & set(os.listdir(tmp_path))


def test_a_missing_home_changes_no_entry_point(tmp_path):
    '''Cron may run with no HOME: the report still answers in one line.'''
    env = {k: v for k, v in os.environ.items() if k != 'HOME'}
    proc = subprocess.run([sys.executable, '-m', 'iogap', 'report',
                           str(tmp_path / 'none.json'), '-o',
                           str(tmp_path / 'html')], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == EXIT['input']
    assert proc.stderr.strip().splitlines() == [
        f'iogap report: {tmp_path}/none.json: No such file or directory']
