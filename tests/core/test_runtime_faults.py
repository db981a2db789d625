'''Faults a night meets at run time, each named for what it is: a tool the
view names but that cannot run (never another one in its place), a
failing tool whose job waited for the I/O lock (the reason is the tool's
error, not the wait), and scratch left under another host's name (swept
when no run holds it, else reported with its size). docs/faults.md lists
them with these tests.'''

import os
import re
import shutil
import subprocess
import time

import pytest

from conftest import lock_holder, run_reframe
from iogap.core import ending, jobguard, leftovers, runlock, scratch
from iogap.errors import IogapError
from iogap.core import runnable
from iogap.core.provider import find_tool
from test_nightly_faults import dd_case, guard_script
from test_osu_parse import fake_test

DD = shutil.which('dd')


def view_with(tmp_path, name, how):
    '''A view whose ``bin/name`` is spoiled ``how``.'''
    bin_dir = tmp_path / 'view' / 'bin'
    bin_dir.mkdir(parents=True)
    path = bin_dir / name
    if how == 'not executable':
        shutil.copy(DD, path)
        path.chmod(0o644)
    elif how == 'broken link':
        os.symlink(tmp_path / 'gone' / name, path)
    elif how == 'directory':
        path.mkdir()
    elif how == 'no interpreter':
        path.write_text('#!/nonexistent/python3\n')
        path.chmod(0o755)
    elif how == 'other machine':
        shutil.copy(DD, path)
        with open(path, 'r+b') as fp:   # e_machine: aarch64, or x86_64
            fp.seek(18)
            fp.write((62 if os.uname().machine == 'aarch64' else 183)
                     .to_bytes(2, 'little'))
    return str(tmp_path / 'view'), str(path)


SAID = {'not executable': r'is not executable \(-rw-r--r--\)',
        'broken link': r'is a broken link to \S+/gone/',
        'directory': r'is a directory',
        'no interpreter': r'is a script whose interpreter /nonexistent/'
                          r'python3 is missing',
        'other machine': r'is built for (aarch64|x86_64), this host is '}


@pytest.mark.parametrize('how', sorted(SAID))
def test_a_tool_the_view_names_but_cannot_run_is_named_with_why(tmp_path,
                                                                 how):
    '''Before, a non-executable dd in the view ran /usr/bin/dd from PATH
    and a broken ior link said ``ior not found``.'''
    view, path = view_with(tmp_path, 'dd', how)
    with pytest.raises(IogapError, match=rf'^dd from the Spack view {view} '
                       rf'cannot be used: {re.escape(path)} {SAID[how]}.*'
                       rf'no other dd is run in its place$'):
        find_tool(fake_test(view), 'dd')


@pytest.mark.parametrize('how', ['other machine', 'no interpreter'])
def test_what_the_check_says_will_not_start_does_not(tmp_path, how):
    _, path = view_with(tmp_path, 'dd', how)
    with pytest.raises(OSError):
        subprocess.run([path, '--version'], capture_output=True)


def test_a_remote_partition_checks_only_what_its_node_would_share(tmp_path):
    '''A view the host sees is checked for links and modes, not for the
    host's machine: the compute node may be another one.'''
    view, path = view_with(tmp_path, 'dd', 'other machine')
    assert find_tool(fake_test(view, scheduler='slurm'), 'dd')[0] == path
    view, _ = view_with(tmp_path / 'b', 'dd', 'broken link')
    with pytest.raises(IogapError, match='is a broken link'):
        find_tool(fake_test(view, scheduler='slurm'), 'dd')


def test_files_a_job_reads_need_no_execute_bit(tmp_path):
    lib = tmp_path / 'view' / 'lib' / 'libdarshan.so'
    lib.parent.mkdir(parents=True)
    lib.write_bytes(b'\x7fELF')
    lib.chmod(0o644)
    assert find_tool(fake_test(str(tmp_path / 'view')), 'libdarshan.so',
                     ('lib',), runs=False)[0] == str(lib)
    os.remove(lib)
    os.symlink(tmp_path / 'gone.so', lib)
    assert runnable.why_not(str(lib), runs=False).endswith(
        f'is a broken link to {tmp_path}/gone.so')


def test_a_healthy_view_and_path_are_unchanged(tmp_path):
    bin_dir = tmp_path / 'view' / 'bin'
    bin_dir.mkdir(parents=True)
    os.symlink(DD, bin_dir / 'dd')
    assert find_tool(fake_test(str(tmp_path / 'view')), 'dd') == \
        (str(bin_dir / 'dd'), f'spack-view:{bin_dir}/dd')
    assert find_tool(fake_test(), 'dd') == (DD, f'PATH:{DD}')


@pytest.mark.reframe
def test_a_dd_case_with_a_view_dd_that_cannot_run_fails_naming_it(tmp_path):
    view, path = view_with(tmp_path, 'dd', 'not executable')
    run = run_reframe(tmp_path, *dd_case('buffered'), '-r',
                      env={'IOGAP_SPACK_VIEW': view})
    assert run.returncode == 1
    [tc] = [tc for tc in run.testcases() if tc['name'].startswith('DD')]
    assert tc['result'] == 'fail' and tc['fail_phase'] == 'setup'
    assert f'{path} is not executable' in tc['fail_reason']
    assert not tc.get('tool_provider', '').startswith('PATH')


def test_a_failing_tool_behind_the_io_lock_is_the_reason(tmp_path):
    '''A job waits for the I/O lock another job holds, then its tool fails:
    the reason shown is the tool's error, not the wait (before, it was
    ``iogap: waiting for the I/O lock…``).'''
    roots = [tmp_path / 'a', tmp_path / 'b']
    for root in roots:
        root.mkdir()
    first = subprocess.Popen(['bash', '-c', guard_script(roots[0])],
                             stdout=subprocess.PIPE, text=True)
    assert first.stdout.readline().startswith('iogap-scratch: ')
    first.stdout.readline()
    script = '\n'.join(['#!/bin/bash', *jobguard.job_guard(
        str(roots[1]), 'T', io_lock=True), 'dd if=/nonexistent of=/dev/null'])
    job = subprocess.run(['bash', '-c', script], capture_output=True,
                         text=True, timeout=60)
    first.wait(timeout=30)
    assert job.returncode != 0
    text = job.stderr + job.stdout
    assert 'iogap: waiting for the I/O lock of device' in text
    assert ending.first_error(text, 'dd') == \
        "dd: failed to open '/nonexistent': No such file or directory"


def notes_of_healthy_jobs():
    '''Every ``iogap:`` line the job guard and job.sh print that ends no
    job (no ``exit`` on its line, not through ``iogap_fail``).'''
    sources = '\n'.join(jobguard.job_guard('/r', 'T', io_lock=True))
    with open(os.path.join(os.path.dirname(ending.__file__),
                           'job.sh')) as fp:
        sources += '\n' + fp.read()
    return [m.group(1) for line in sources.splitlines()
            if 'exit' not in line and 'iogap_fail' not in line
            for m in [re.search(r'(?:echo|print) "(iogap: [^"$]*)', line)]
            if m]


def test_no_note_of_a_healthy_job_is_taken_for_its_failure():
    notes = notes_of_healthy_jobs()
    assert len(notes) >= 3, notes       # the lock, the root, the clock
    for note in notes:
        assert ending.PROGRESS.search(note), note
        assert ending.first_error(f'{note}\nior: ERROR: bad', 'ior') == \
            'ior: ERROR: bad'
    for record in ('iogap-step: failed-write', 'iogap-io-released: at=1'):
        assert ending.first_error(record, 'dd') == \
            'no error message in the job\'s output'


def left_by(root, host, mib=515):
    '''A test directory a job of ``host`` left, holding ``mib`` MiB.'''
    path = root / f'iogap.DDSingleStream_1.{host}'
    path.mkdir(parents=True)
    (path / '.owner').write_text(f'host={host} pid=4242 start=0\n')
    with open(path / 'dd.dat', 'wb') as fp:
        fp.truncate(mib * 2**20)
    return path


def test_scratch_of_a_renamed_host_is_swept_when_nothing_holds_it(tmp_path):
    '''Before, a directory under another host's name was never swept nor
    reported (515 MiB left after the host was renamed).'''
    left = left_by(tmp_path, 'oldname')
    assert runlock.idle(str(tmp_path))
    line = leftovers.remove_leftovers(str(tmp_path), idle=True)
    assert line == (f'iogap: removed 1 scratch dir(s) left by dead runs '
                    f'under {tmp_path} (515.0 MiB; of host(s) oldname): '
                    f'{left.name}')
    assert not left.exists()


def test_scratch_a_live_job_elsewhere_holds_is_kept_and_reported(tmp_path):
    left = left_by(tmp_path, 'nid0001')
    job = subprocess.Popen(['flock', '-s', str(left / '.owner'), 'sleep',
                            '60'])
    try:
        deadline = time.monotonic() + 10
        while not leftovers._held(str(left)):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        line = leftovers.remove_leftovers(str(tmp_path), idle=True)
    finally:
        job.kill()
        job.wait()
    assert line.startswith(f'iogap: kept 1 scratch dir(s) under {tmp_path}')
    assert '(515.0 MiB; of host(s) nid0001)' in line
    assert left.exists()


def test_scratch_of_another_host_is_kept_while_a_run_holds_the_root(tmp_path):
    left = left_by(tmp_path, 'oldname', 1)
    holder = lock_holder(tmp_path, 'knl')
    try:
        idle = runlock.idle(str(tmp_path))
    finally:
        holder.kill()
        holder.wait()
    assert not idle
    assert '(1.0 MiB; of host(s) oldname)' in \
        leftovers.remove_leftovers(str(tmp_path), idle)
    assert left.exists()


def test_a_running_job_holds_its_directory(tmp_path):
    '''The job guard's lock, seen from outside while the job runs.'''
    root = tmp_path / 'root'     # of its own: tmp_path holds the I/O locks
    root.mkdir()
    job = subprocess.Popen(['bash', '-c', '\n'.join(
        [*jobguard.job_guard(str(root), 'T'), 'sleep 3'])],
        stdout=subprocess.PIPE, text=True)
    path = job.stdout.readline().split(' ', 1)[1].strip()
    assert leftovers._held(path)
    assert leftovers.remove_leftovers(str(root), idle=True) is None
    job.wait(timeout=30)
    assert job.returncode == 0 and not os.path.exists(path)


@pytest.mark.reframe
def test_a_run_sweeps_what_the_host_left_under_its_old_name(tmp_path):
    root = tmp_path / 'scratch'
    root.mkdir()
    (root / scratch.MARKER).write_text('')
    left = left_by(root, 'oldname')
    run = run_reframe(tmp_path, *dd_case('buffered'), '-r', scratch=root)
    assert run.returncode == 0, run.stdout
    said = run.stdout + run.proc.stderr
    assert (f'iogap: removed 1 scratch dir(s) left by dead runs under '
            f'{root} (515.0 MiB; of host(s) oldname): {left.name}') in said
    assert not left.exists()
