'''The host's I/O lock as a job runs it: a waiter names the live holder.'''

import glob
import os
import re
import subprocess
import time

import pytest

from conftest import run_reframe
from iogap.core import jobguard
from iogap.core.ending import first_error


def lock_script(root, hold, wait=None):
    return '\n'.join(['set -eu', f'iogap_root={root}',
                      'iogap_fail() { echo "iogap: $*" >&2; exit 1; }',
                      *jobguard.io_lock_lines(wait), f'sleep {hold}'])


def test_a_job_that_cannot_get_the_lock_fails_naming_the_holder(
        tmp_path, io_lock_dir):
    '''It waited past its own time limit and failed as "job timed out",
    the holder named in its stderr only.'''
    holder = subprocess.Popen(['bash', '-c', lock_script(tmp_path, 30)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().startswith('iogap-io-lock: ')
        started = time.monotonic()
        waiter = subprocess.run(['bash', '-c', lock_script(tmp_path, 0, 1)],
                                capture_output=True, text=True, timeout=30)
        took = time.monotonic() - started
    finally:
        holder.kill()
        holder.wait()
    assert waiter.returncode == 1 and 1 <= took < 10
    said = first_error(waiter.stderr, 'dd')
    assert re.fullmatch(rf'iogap: could not take the I/O lock of device '
                        rf'\d+:\d+ \(\S+\) in 1 s: held by pid={holder.pid} '
                        rf'root={tmp_path} job=\S+ since=\S+', said), said


def test_a_waiter_names_the_job_that_holds_the_lock(tmp_path, io_lock_dir):
    for stale in ('', 'pid=999999999 root=/gone job=/gone since=then'):
        for old in io_lock_dir.iterdir():
            old.unlink()
        if stale:
            dev = subprocess.run(
                lock_script(tmp_path, 0) + '\necho "$iogap_dev"', shell=True,
                executable='/bin/bash', capture_output=True, text=True,
                check=True).stdout.split()[-1]
            (io_lock_dir / f'iogap-io-{dev}.lock.holder').write_text(
                stale + '\n')
        holder = subprocess.Popen(['bash', '-c', lock_script(tmp_path, 1)],
                                  stdout=subprocess.PIPE, text=True)
        assert holder.stdout.readline().startswith('iogap-io-lock: ')
        started = time.monotonic()
        waiter = subprocess.run(['bash', '-c', lock_script(tmp_path, 0)],
                                capture_output=True, text=True)
        holder.wait()
        assert waiter.returncode == 0, waiter.stderr
        assert f'held by pid={holder.pid} root={tmp_path} ' in waiter.stderr
        assert time.monotonic() - started >= 0.5
        assert not [p for p in io_lock_dir.iterdir()
                    if '.holder.' in p.name]


def test_two_jobs_started_at_once_name_each_other_whole(tmp_path,
                                                        io_lock_dir):
    # the one that waits may look while the other has only just locked
    for _ in range(8):
        jobs = [subprocess.Popen(['bash', '-c', lock_script(tmp_path, 0.3)],
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
                for _ in range(2)]
        outs = [job.communicate() for job in jobs]
        said = ''.join(err for _, err in outs)
        if 'waiting' in said:
            assert any(f'held by pid={job.pid} ' in said for job in jobs), said


@pytest.mark.reframe
def test_the_wait_for_the_lock_is_added_to_the_jobs_time_limit(tmp_path):
    '''A case of 20 s waits for the lock at most 20 s, in a job of 40 s:
    waiting behind a hung job, an IOR case failed as "job timed out
    (213.7 s > 203.0 s)".'''
    run = run_reframe(tmp_path, '-n', 'DDSingleStream.*%cpu_bind=default'
                      '.*%darshan=off.*%mode=buffered', '-S',
                      'DDSingleStream.time_limit=20s', '--dry-run',
                      env={'RFM_COLORIZE': 'y'})     # ReFrame's default
    [tc] = [tc for tc in run.testcases() if tc['name'].startswith('DD')]
    assert tc['time_limit'] == 40, run.stdout
    [script] = glob.glob(os.path.join(run.out, 'stage', '**', 'rfm_job.sh'),
                         recursive=True)
    assert '  flock -w 20 9 || iogap_fail "could not take the I/O lock' in \
        open(script).read()
