'''Scratch safety: refusals with the reason and the fix; cleanup.'''

import os
import subprocess

import pytest

from iogap import hostinfo, scratch
from iogap.errors import ScratchError


def test_missing_root(tmp_path):
    with pytest.raises(ScratchError, match='does not exist: create it'):
        scratch.check_root(str(tmp_path / 'nope'))


def test_root_is_a_file(tmp_path):
    path = tmp_path / 'file'
    path.write_text('x')
    with pytest.raises(ScratchError, match='is not a directory'):
        scratch.check_root(str(path))


def test_not_configured():
    with pytest.raises(ScratchError, match='no scratch root is configured'):
        scratch.check_root('')


def test_usable_root_passes_and_is_left_as_found(tmp_path):
    scratch.check_root(str(tmp_path))
    assert os.listdir(tmp_path) == []


@pytest.fixture
def mount(tmp_path):
    '''Mount a small tmpfs (optionally read-only) under tmp_path.'''
    mounted = []

    def _mount(opts):
        path = tmp_path / f'mnt{len(mounted)}'
        path.mkdir()
        proc = subprocess.run(['mount', '-t', 'tmpfs', '-o',
                               f'size=16m,{opts}', 'iogap-test', str(path)],
                              capture_output=True, text=True)
        if proc.returncode:
            pytest.skip(f'cannot mount tmpfs here: {proc.stderr.strip()}')

        mounted.append(path)
        return str(path)

    yield _mount
    for path in mounted:
        subprocess.run(['umount', str(path)])


def test_read_only_root_is_refused_even_for_root(mount):
    root = mount('ro')
    with pytest.raises(ScratchError, match='is not writable'):
        scratch.check_root(root)


def test_root_of_another_user_is_refused(tmp_path):
    if os.geteuid() != 0:
        pytest.skip('needs root to chown a directory to another user')

    root = tmp_path / 'theirs'
    root.mkdir()
    os.chown(root, 65534, 65534)
    with pytest.raises(ScratchError, match='belongs to uid 65534, not to you'):
        scratch.check_root(str(root))


def test_odirect_probe_refuses_memory_file_systems(mount):
    ok, reason = hostinfo.probe_odirect(mount('rw'))
    assert not ok and 'tmpfs' in reason and 'IOGAP_SCRATCH' in reason


def test_odirect_probe_on_disk_leaves_nothing(tmp_path):
    ok, reason = hostinfo.probe_odirect(str(tmp_path))
    if hostinfo.fs_type(str(tmp_path)) in hostinfo.MEMORY_FS:
        assert not ok
    else:
        assert ok, reason
    assert os.listdir(tmp_path) == []


def test_free_space_check(tmp_path):
    with pytest.raises(ScratchError, match='GiB free'):
        scratch.check_free_space(str(tmp_path), 2**60)


def test_job_guard_cleans_up_after_failure(tmp_path):
    '''The job's trap removes its directory even when the job fails.'''
    script = '\n'.join(scratch.job_guard(str(tmp_path), 'T') +
                       ['head -c 1048576 /dev/zero > "$IOGAP_DIR/big"',
                        'false', 'echo unreachable'])
    proc = subprocess.run(['bash', '-c', script], capture_output=True,
                          text=True)
    assert proc.returncode == 1 and 'unreachable' not in proc.stdout
    assert 'iogap: scratch dir' in proc.stdout
    assert os.listdir(tmp_path) == []


def test_job_guard_refuses_missing_root(tmp_path):
    script = '\n'.join(scratch.job_guard(str(tmp_path / 'gone'), 'T'))
    proc = subprocess.run(['bash', '-c', script], capture_output=True,
                          text=True)
    assert proc.returncode == 3
    assert 'is missing, not writable or not yours' in proc.stderr
