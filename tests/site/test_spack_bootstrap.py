'''The Spack the build uses when none is found: the pinned release,
bootstrapped into build/ with its checksum checked; a source that cannot
be reached is one line, and the suite runs what it can.'''

import hashlib
import io
import os
import re
import socket
import subprocess
import sys
import tarfile
import time

import pytest

from conftest import ROOT, copy_of_project
from iogap.site.spack import buildcache, stack as spack, boot as spackboot

#: The snapshot the pin names, where .ci/run finds it (../shared)
SNAPSHOT = os.path.join(os.path.dirname(ROOT), 'shared', 'spack',
                        f'spack-{spackboot.VERSION}.tar.gz')
VENV = os.path.dirname(sys.executable)


def spack_cli(repo, action, timeout=120, **environ):
    '''``iogap spack ACTION`` in the copy ``repo``, with no
    Spack on PATH nor in IOGAP_SPACK_ROOT.'''
    return subprocess.run(
        [sys.executable, '-m', 'iogap', 'spack', action], cwd=repo,
        capture_output=True, text=True, timeout=timeout,
        env=dict(os.environ, IOGAP_SPACK_ROOT='', PATH=f'{VENV}:/usr/bin:/bin',
                 **environ))


def tarball(path, members):
    '''A real gzipped tarball of ``{name: (mode, bytes)}``.'''
    with tarfile.open(path, 'w:gz') as tar:
        for name, (mode, body) in members.items():
            info = tarfile.TarInfo(name)
            info.mode, info.size = mode, len(body)
            tar.addfile(info, io.BytesIO(body))
    return str(path)


SPACK_LIKE = {'spack/bin/spack': (0o755, b'#!/bin/sh\necho 0.23.0.dev0\n'),
              'spack/README.md': (0o644, b'not the pinned release\n')}


def test_a_tarball_of_another_checksum_is_refused_and_nothing_unpacked(
        tmp_path):
    repo = copy_of_project(tmp_path / 'repo')
    source = tarball(tmp_path / 'spack.tar.gz', SPACK_LIKE)
    proc = spack_cli(repo, 'bootstrap', IOGAP_SPACK_SOURCE=source)
    assert proc.returncode == 1
    got = hashlib.sha256(open(source, 'rb').read()).hexdigest()
    assert proc.stderr.splitlines()[1:] == [
        f'spack: {source} has sha256 {got}, not the pinned '
        f'{spackboot.SHA256} of Spack {spackboot.VERSION} '
        f'(iogap/tools/spackboot.py): refused, nothing unpacked; name that '
        f'release with IOGAP_SPACK_SOURCE or a Spack with IOGAP_SPACK_ROOT']
    assert os.listdir(repo / 'build') == ['.spack-bootstrap.lock']


@pytest.mark.parametrize('members, error', [
    # The data filter stops at a member outside the target, the first one
    # already unpacked
    ({**SPACK_LIKE, '../escaped': (0o644, b'x')}, 'is outside the '
                                                  'destination'),
    ({'other/bin/tool': (0o755, b'')}, 'holds no <directory>/bin/spack'),
])
def test_an_unpack_that_fails_leaves_nothing(tmp_path, monkeypatch,
                                             members, error):
    source = tarball(tmp_path / 'spack.tar.gz', members)
    build = tmp_path / 'build'
    monkeypatch.setattr(spackboot, 'BUILD', str(build))
    monkeypatch.setattr(spackboot, 'ROOT', str(build / 'spack-x'))
    # Its checksum is the pinned one, so it gets as far as unpacking
    monkeypatch.setattr(spackboot, 'SHA256', hashlib.sha256(
        open(source, 'rb').read()).hexdigest())
    monkeypatch.setenv('IOGAP_SPACK_SOURCE', source)
    with pytest.raises(spackboot.SpackError, match=error):
        spackboot.bootstrap(lambda msg: None)
    assert os.listdir(build) == ['.spack-bootstrap.lock']
    assert not (tmp_path / 'escaped').exists()


def test_an_unreachable_source_is_one_line_and_quick(tmp_path):
    repo = copy_of_project(tmp_path / 'repo')
    url = 'http://127.0.0.1:9/spack.tar.gz'   # the discard port: refused
    start = time.time()
    proc = spack_cli(repo, 'build', IOGAP_SPACK_SOURCE=url)
    assert proc.returncode == 5, proc.stderr   # EXIT["unreachable"]
    [line] = [l for l in proc.stderr.splitlines()
              if not l.startswith('spack: no Spack found')]
    assert line.startswith(f'spack: cannot reach the Spack source {url}: ')
    assert 'dd runs with the OS\'s coreutils' in line
    assert time.time() - start < spackboot.TIMEOUT
    assert os.listdir(repo / 'build') == ['.spack-bootstrap.lock']


def test_a_source_that_never_answers_is_given_up_after_the_timeout(
        tmp_path, monkeypatch):
    # Accepts connections (the kernel's backlog) and never answers
    with socket.socket() as server:
        server.bind(('127.0.0.1', 0))
        server.listen(1)
        url = f'http://127.0.0.1:{server.getsockname()[1]}/spack.tar.gz'
        monkeypatch.setattr(spackboot, 'TIMEOUT', 1)
        start = time.time()
        with pytest.raises(spackboot.Unreachable, match='cannot reach'):
            spackboot.fetch(url, str(tmp_path))
        assert time.time() - start < 3


def test_a_named_tarball_that_does_not_exist_is_refused(tmp_path):
    repo = copy_of_project(tmp_path / 'repo')
    proc = spack_cli(repo, 'bootstrap', IOGAP_SPACK_SOURCE='/nonexistent.tgz')
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[-1] == (
        f'spack: IOGAP_SPACK_SOURCE names /nonexistent.tgz, which is not a '
        f'file: name the Spack {spackboot.VERSION} tarball or a URL of it')


@pytest.mark.skipif(not os.path.exists(SNAPSHOT),
                    reason=f'no {SNAPSHOT} (the pinned release)')
def test_the_pinned_release_bootstraps_once_and_is_found_after(tmp_path):
    repo = copy_of_project(tmp_path / 'repo')
    first = spack_cli(repo, 'bootstrap', IOGAP_SPACK_SOURCE=SNAPSHOT)
    assert first.returncode == 0, first.stderr
    root = repo / 'build' / f'spack-{spackboot.VERSION}'
    assert first.stdout.strip() == str(root)
    assert 'verified' in first.stderr.splitlines()[-1]
    version = subprocess.run([root / 'bin' / 'spack', '--version'],
                             capture_output=True, text=True,
                             env=dict(os.environ, SPACK_PYTHON=sys.executable))
    assert version.stdout.strip() == spackboot.VERSION
    assert sorted(os.listdir(repo / 'build')) == [
        '.spack-bootstrap.lock', f'spack-{spackboot.VERSION}']
    # Found from then on, whatever the source says now
    again = spack_cli(repo, 'bootstrap', IOGAP_SPACK_SOURCE='/nonexistent')
    assert (again.returncode, again.stdout, again.stderr) == (
        0, first.stdout, '')


@pytest.mark.reframe
def test_with_the_source_unreachable_the_first_command_runs_dd(tmp_path):
    '''A fresh clone's ``./setup.sh suite`` (its venv made from nothing):
    one line on the Spack source, then the dd checks pass.'''
    repo = copy_of_project(tmp_path / 'repo')
    scratch = tmp_path / 'scratch'
    scratch.mkdir()
    proc = subprocess.run(
        ['./setup.sh', 'suite', '-n', 'DDSingleStream'], cwd=repo,
        capture_output=True, text=True, timeout=900,
        env=dict(os.environ, IOGAP_SPACK_ROOT='', PATH='/usr/bin:/bin',
                 IOGAP_SPACK_SOURCE='http://127.0.0.1:9/spack.tar.gz',
                 IOGAP_SCRATCH=str(scratch), RFM_COLORIZE='n',
                 IOGAP_OUTPUT=str(tmp_path / 'out')))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    said = [l for l in proc.stderr.splitlines() if 'Spack source' in l]
    assert len(said) == 1 and said[0].startswith('spack: cannot reach')
    ran = re.search(r'\[\s+PASSED\s+\] Ran (\d+)/(\d+) test case',
                    proc.stdout)
    assert ran and ran[1] == ran[2] != '0', proc.stdout


@pytest.mark.skipif(spack.spack_command() is None, reason='no Spack')
def test_the_build_cache_lends_its_lock_only_to_the_same_inputs_and_host(
        tmp_path, monkeypatch):
    cache = tmp_path / 'cache'
    monkeypatch.setenv('IOGAP_SPACK_BUILDCACHE', str(cache))
    command = spack.spack_command()
    env = spack.Environment(str(tmp_path / 'env'), 'generic')
    env.prepare()
    assert buildcache.reuse_lock(env, command) is None
    kept = buildcache.lock_path(env, command, str(cache))
    # platform-os-target, as Spack names this host
    host = buildcache.host(env, command)
    assert re.fullmatch(r'linux-\w+-\w+', host)
    assert os.path.basename(kept).startswith(f'{host}-')
    os.makedirs(os.path.dirname(kept))
    with open(kept, 'w') as fp:
        fp.write('{"concrete_specs": {}}')
    assert buildcache.reuse_lock(env, command) == kept
    assert (tmp_path / 'env' / 'spack.lock').read_text() == open(kept).read()
    # Other inputs (another overlay): their own lock, none kept yet
    other = spack.Environment(str(tmp_path / 'other'), 'cori')
    other.prepare()
    assert buildcache.lock_path(other, command, str(cache)) != kept
    assert buildcache.reuse_lock(other, command) is None
