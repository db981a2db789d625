'''Faults injected for real: unusable, memory-backed and full scratch roots,
a dd that dies, two runs at once, reframe killed outright. Each outcome is
the right one with its true reason, and nothing outside the test's scratch
and output directories changes.'''

import glob
import os
import re
import shutil
import signal
import subprocess
import time

import pytest

from conftest import ROOT, cases, reframe_cmd, run_reframe
from iogap.core import scratch
from iogap.history.runguard import COLOUR, plain

pytestmark = pytest.mark.reframe

SIZES = ('-S', 'DDSingleStream.count=16', '-S',
         'DDSingleStream.repetitions=1')
DD = ('-n', 'DDSingleStream.*%cpu_bind=default.*%darshan=off', *SIZES)


def dd_mode(mode):
    return ('-n', f'DDSingleStream.*%cpu_bind=default.*%darshan=off.*'
                  f'%mode={mode}', *SIZES)


def snapshot():
    '''Files a run could litter, with their modification times: the
    repository's top level, its site data and checks, and $HOME.'''
    found = {}
    tops = [(os.path.join(ROOT, d), ()) for d in ('systems', 'reference',
                                                  'checks')]
    tops += [(os.path.expanduser('~'), ('.cache', '.npm'))]
    found.update({os.path.join(ROOT, f): os.stat(os.path.join(ROOT, f))
                  .st_mtime_ns for f in os.listdir(ROOT)
                  if os.path.isfile(os.path.join(ROOT, f))})
    found.update({os.path.join(ROOT, d): 0 for d in os.listdir(ROOT)})
    for top, skip in tops:
        for d, dirs, files in os.walk(top):
            dirs[:] = [x for x in dirs if x not in skip]
            for f in files:
                path = os.path.join(d, f)
                try:
                    found[path] = os.stat(path).st_mtime_ns
                except OSError:
                    pass
    return found


@pytest.fixture(autouse=True)
def nothing_else_changes():
    before = snapshot()
    yield
    after = snapshot()
    changed = {p for p in set(before) | set(after)
               if before.get(p) != after.get(p)}
    assert not changed, f'files outside scratch and output changed: ' \
        f'{sorted(changed)[:5]}'


@pytest.fixture
def mount(tmp_path):
    '''Mount a file system of the given type and options under tmp_path.'''
    mounted = []

    def _mount(fstype, opts, size_mib=64):
        path = tmp_path / f'mnt{len(mounted)}'
        path.mkdir()
        if fstype == 'tmpfs':
            cmd = ['mount', '-t', 'tmpfs', '-o', f'size={size_mib}m,{opts}',
                   'iogap-test', str(path)]
        else:
            image = tmp_path / f'fs{len(mounted)}.img'
            subprocess.run(['truncate', '-s', f'{size_mib}M', str(image)],
                           check=True)
            made = subprocess.run(['mkfs.ext4', '-q', '-F', str(image)],
                                  capture_output=True, text=True)
            if made.returncode:
                pytest.skip(f'cannot make an ext4 image: {made.stderr}')
            cmd = ['mount', '-o', f'loop,{opts}', str(image), str(path)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode:
            pytest.skip(f'cannot mount {fstype} here: {proc.stderr.strip()}')
        mounted.append(path)
        return path

    yield _mount
    for path in reversed(mounted):
        subprocess.run(['umount', '-l', str(path)])


def modes(run):
    return {tc['mode']: tc for tc in cases(run, 'DDSingleStream')}


def test_a_root_under_a_missing_parent_is_refused_before_anything_runs(
        tmp_path):
    root = tmp_path / 'gone' / 'nope'
    run = run_reframe(tmp_path, *DD, '-r', scratch=root)
    errors = [line for line in run.stdout.splitlines() if 'ERROR' in line]
    assert run.proc.returncode != 0 and len(errors) == 1, run.stdout
    assert f'{root.parent} is no directory on this host' in errors[0]
    assert 'Traceback' not in run.stdout + run.proc.stderr
    assert not glob.glob(os.path.join(run.out, 'reports', '*.json'))


@pytest.mark.parametrize('how', ['file', 'read-only'])
def test_an_unusable_root_fails_every_mode_with_its_reason(tmp_path, mount,
                                                           how):
    if how == 'file':
        root, reason = tmp_path / 'file', 'is not a directory'
        root.write_text('x')
    else:
        root, reason = mount('ext4', 'ro'), 'is not writable'
    run = run_reframe(tmp_path, *DD, '-r', scratch=root)
    found = modes(run)
    assert set(found) == {'buffered', 'dsync', 'direct'}, run.stdout
    for tc in found.values():
        assert tc['result'] == 'fail' and reason in tc['fail_reason'], \
            (tc['mode'], tc['fail_reason'])


def test_a_missing_root_is_made_the_suites_on_first_use(tmp_path):
    root = tmp_path / 'first-use'
    run = run_reframe(tmp_path, '-n', 'DDSingleStream.*%cpu_bind=default.*'
                      '%darshan=off.*%mode=buffered', '-S',
                      'DDSingleStream.count=64', '-r', scratch=root)
    [tc] = cases(run, 'DDSingleStream')
    assert tc['result'] == 'pass', tc['fail_reason']
    said = [line for line in run.proc.stderr.splitlines()
            if 'created scratch root' in line]
    assert said == [f'iogap: created scratch root {root}, marked '
                    f'{scratch.MARKER} as the suite\'s']
    assert scratch.MARKER in os.listdir(root)
    assert not [e for e in os.listdir(root) if e.startswith('iogap.')]


def test_a_memory_backed_root_is_named(tmp_path, mount):
    root = mount('tmpfs', 'rw', size_mib=128)
    run = run_reframe(tmp_path, *DD, '-r', scratch=root)
    found = modes(run)
    assert found['direct']['result'] == 'skip'
    assert 'is on tmpfs (memory)' in run.skip_reason(
        found['direct']['display_name'])
    assert found['buffered']['result'] == 'fail'
    assert 'is on tmpfs, which lives in memory and cannot be evicted' in \
        found['buffered']['fail_reason']
    assert not [e for e in os.listdir(root) if e.startswith('iogap.')]


def test_a_small_root_shows_its_free_space_in_mib(tmp_path, mount):
    root = mount('ext4', 'rw', size_mib=32)
    run = run_reframe(tmp_path, '-n', 'DDSingleStream.*%cpu_bind=default.*'
                      '%darshan=off.*%mode=direct', '-S',
                      'DDSingleStream.count=64', '-r', scratch=root)
    [tc] = cases(run, 'DDSingleStream')
    assert tc['result'] == 'fail'
    assert f'scratch root {root} has' in tc['fail_reason']
    assert 'MiB free; this test writes 64.0 MiB' in tc['fail_reason']


def fake_dd(tmp_path, body):
    bindir = tmp_path / 'fake'
    bindir.mkdir()
    (bindir / 'dd').write_text(f'#!/bin/bash\n{body}\n')
    (bindir / 'dd').chmod(0o755)
    (tmp_path / 'noview').mkdir()
    return {'IOGAP_SPACK_VIEW': str(tmp_path / 'noview'),
            'PATH': f'{bindir}:{os.environ["PATH"]}'}


def test_a_full_disk_and_a_missing_binary_are_one_line(tmp_path):
    env = fake_dd(tmp_path, 'for a; do case $a in of=*) ;; *) args+=("$a");; '
                  'esac; done; exec /bin/dd of=/dev/full "${args[@]}"')
    run = run_reframe(tmp_path, *dd_mode('buffered'), '-r', env=env)
    [tc] = cases(run, 'DDSingleStream')
    assert tc['result'] == 'fail'
    assert 'No space left on device' in tc['fail_reason']
    assert 'Traceback' not in run.stdout
    scratch_dir = tmp_path / 'scratch'
    assert not [e for e in os.listdir(scratch_dir) if e.startswith('iogap.')]

    # Every tool of the OS but dd
    other = tmp_path / 'other'
    (other / 'bin').mkdir(parents=True)
    (other / 'noview').mkdir()
    for d in ('/usr/local/bin', '/usr/bin', '/bin'):
        for tool in os.listdir(d):
            if tool != 'dd' and not (other / 'bin' / tool).exists():
                os.symlink(os.path.join(d, tool), other / 'bin' / tool)
    run = run_reframe(other, *dd_mode('buffered'), '-r',
                      env={'IOGAP_SPACK_VIEW': str(other / 'noview'),
                           'PATH': f'{os.path.dirname(reframe_cmd()[0])}:'
                                   f'{other}/bin'})
    [tc] = cases(run, 'DDSingleStream')
    assert tc['result'] == 'skip'
    assert run.skip_reason(tc['display_name']).startswith('dd not found')


def start(tmp_path, scratch_dir, out, *args, colour='n'):
    env = dict(os.environ, IOGAP_OUTPUT=str(out), IOGAP_SCRATCH=str(
        scratch_dir), RFM_COLORIZE=colour)
    return subprocess.Popen(reframe_cmd() + ['-C', 'reframe_config.py',
                                             *args],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)


def wait_for_job(scratch_dir, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        found = [e for e in os.listdir(scratch_dir)
                 if e.startswith(scratch.DIR_PREFIX)]
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError('no job started')


def kill_everything_in(path):
    '''SIGKILL every process working in ``path`` (a job's stage
    directory): the job shell, the launcher, the tool, the watchdog.'''
    for pid in filter(str.isdigit, os.listdir('/proc')):
        try:
            cwd = os.readlink(f'/proc/{pid}/cwd')
        except OSError:
            continue
        if cwd.startswith(str(path)) and int(pid) != os.getpid():
            try:
                os.kill(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass


LONG = ('-n', 'DDSingleStream.*%cpu_bind=default.*%darshan=off.*%mode='
        'dsync', '-S', 'DDSingleStream.count=512',
        '-S', 'DDSingleStream.repetitions=20')


def test_a_second_run_stops_naming_the_first(tmp_path):
    root = tmp_path / 'scratch'
    root.mkdir()
    first = start(tmp_path, root, tmp_path / 'out1', *LONG, '-r')
    try:
        wait_for_job(root)
        for out in (tmp_path / 'out2', tmp_path / 'out1'):
            second = run_reframe(tmp_path / out.name, *LONG, '-r',
                                 scratch=root, timeout=120)
            if out.name == 'out1':     # the same output directory
                second = run_reframe(tmp_path, *LONG, '-r', scratch=root,
                                     env={'IOGAP_OUTPUT': str(out)})
            assert second.returncode != 0
            [line] = [l for l in second.stdout.splitlines() if 'ERROR' in l]
            assert 'is in use by another run (pid ' in line
            assert f'pid {first.pid} on' in line and 'started 20' in line
    finally:
        os.killpg(first.pid, signal.SIGTERM)
        first.wait(timeout=60)


def test_killing_reframe_ends_its_job_and_leftovers_are_cleared(tmp_path):
    root = tmp_path / 'scratch'
    root.mkdir()
    run = start(tmp_path, root, tmp_path / 'out1', *LONG, '-r')
    wait_for_job(root)
    run.kill()          # reframe alone: its job must not go on writing
    run.wait()
    end = time.time() + 15
    while time.time() < end and [e for e in os.listdir(root)
                                 if e.startswith(scratch.DIR_PREFIX)]:
        time.sleep(0.2)
    assert not [e for e in os.listdir(root)
                if e.startswith(scratch.DIR_PREFIX)], 'the job went on'

    # reframe and its job killed outright: nothing can clean up...
    run = start(tmp_path, root, tmp_path / 'out2', *LONG, '-r')
    [left] = wait_for_job(root)
    time.sleep(1)
    os.killpg(run.pid, signal.SIGKILL)
    kill_everything_in(tmp_path / 'out2')
    run.wait()
    assert left in os.listdir(root)
    # ... so the next run does, and says so in one line
    again = run_reframe(tmp_path / 'again', *dd_mode('direct'), '-r',
                        scratch=root)
    assert f'iogap: removed 1 scratch dir(s) left by dead runs under {root}' \
        in again.proc.stderr
    assert left not in os.listdir(root)


def test_a_scratch_root_removed_under_the_run_stops_it(tmp_path):
    '''Removed while the first case measures, then made again: every later
    case failed ("No such file or directory", 37 in one run), or carried
    on in the new root without its lock.'''
    root = tmp_path / 'scratch'
    root.mkdir()
    run = start(tmp_path, root, tmp_path / 'out', '-n', 'DDSingleStream.*'
                '%cpu_bind=default.*%darshan=off.*%mode=(buffered|dsync)',
                '-S', 'DDSingleStream.count=256', '-S',
                'DDSingleStream.repetitions=2', '-r', colour='y')
    wait_for_job(root)
    shutil.rmtree(root)
    root.mkdir()
    (root / scratch.MARKER).write_text('')
    out = run.communicate(timeout=300)[0]
    assert run.returncode == 1, out
    [line] = [plain(l) for l in out.splitlines() if 'ERROR' in l]
    assert line.endswith(f'scratch root {root} was removed during the run '
                         f'(and the lock this run took on it): the run '
                         f'stops; no case runs in a root it did not lock')
    assert len(re.findall(r'^\[ +ABORT \] .*DDSingleStream',
                          COLOUR.sub('', out), re.M)) == 2
    # the second case's job never started
    assert len(glob.glob(str(tmp_path / 'out' / 'stage' / '**' /
                             'rfm_job.out'), recursive=True)) == 1
    assert os.listdir(root) == [scratch.MARKER]
