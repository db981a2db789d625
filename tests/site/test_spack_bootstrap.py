'''The Spack the build uses when none is found: upstream Spack cloned at
the pinned commit, or offline a git repository or the pinned tarball; a
source that cannot be reached is one line, and the suite runs what it can.'''

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
from iogap.site.spack import stack as spack, boot as spackboot

#: The snapshot offline CI builds with, where .ci/run finds it (../shared)
[SNAPSHOT] = [os.path.join(os.path.dirname(ROOT), 'shared', 'spack',
                           f'spack-{v}.tar.gz')
              for v in spackboot.TARBALLS.values()]
VENV = os.path.dirname(sys.executable)


def spack_cli(repo, action, timeout=120, **environ):
    '''``iogap spack ACTION`` in the copy ``repo``, with no
    Spack on PATH nor in IOGAP_SPACK_ROOT.'''
    return subprocess.run(
        [sys.executable, '-m', 'iogap', 'spack', action], cwd=repo,
        capture_output=True, text=True, timeout=timeout,
        env={**os.environ, 'IOGAP_SPACK_ROOT': '',
             'PATH': f'{VENV}:/usr/bin:/bin', **environ})


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


def git_spack(path, tag_at):
    '''A git repository of a stand-in Spack with two commits, the tag of
    the pinned release on commit ``tag_at`` (0 or 1): the commits.'''
    def git(*args):
        return subprocess.run(
            ['git', '-C', str(path), '-c', 'user.name=t', '-c',
             'user.email=t@t', *args], check=True, capture_output=True,
            text=True).stdout.strip()
    (path / 'bin').mkdir(parents=True)
    git('init', '-q')
    commits = []
    for n in range(2):
        (path / 'bin' / 'spack').write_text(f'#!/bin/sh\necho {n}\n')
        (path / 'bin' / 'spack').chmod(0o755)
        git('add', '-A')
        git('commit', '-q', '-m', f'commit {n}')
        commits.append(git('rev-parse', 'HEAD'))
    git('tag', '-a', '-m', 'release', f'v{spackboot.VERSION}',
        commits[tag_at])
    return commits


@pytest.fixture
def build(tmp_path, monkeypatch):
    '''The bootstrap's build directory, in ``tmp_path``.'''
    monkeypatch.setattr(spackboot, 'BUILD', str(tmp_path / 'build'))
    return tmp_path / 'build'


def test_the_default_is_upstream_spack_cloned_at_the_pinned_commit(
        tmp_path, monkeypatch, build):
    # Upstream, as a site fetches it; here a repository standing in for it
    assert spackboot.GIT == 'https://github.com/spack/spack.git'
    commits = git_spack(tmp_path / 'upstream', tag_at=1)
    monkeypatch.setattr(spackboot, 'GIT', f'file://{tmp_path}/upstream')
    monkeypatch.setattr(spackboot, 'COMMIT', commits[1])
    monkeypatch.delenv('IOGAP_SPACK_SOURCE', raising=False)
    said = []
    root = spackboot.bootstrap(said.append)
    assert root == str(build / f'spack-{spackboot.VERSION}')
    head = subprocess.run(['git', '-C', root, 'rev-parse', 'HEAD'],
                          capture_output=True, text=True).stdout.strip()
    assert head == commits[1]
    assert said[-1].endswith(f'(commit {commits[1][:12]}… verified)')
    assert sorted(os.listdir(build)) == [
        '.spack-bootstrap.lock', f'spack-{spackboot.VERSION}']
    # Found from then on, whatever the source says now
    monkeypatch.setenv('IOGAP_SPACK_SOURCE', '/nonexistent')
    assert spackboot.bootstrap(said.append) == root and len(said) == 2


def test_a_tag_on_another_commit_is_refused_and_nothing_kept(
        tmp_path, monkeypatch, build):
    commits = git_spack(tmp_path / 'mirror', tag_at=1)
    monkeypatch.setattr(spackboot, 'COMMIT', commits[0])
    monkeypatch.setenv('IOGAP_SPACK_SOURCE', str(tmp_path / 'mirror'))
    with pytest.raises(spackboot.SpackError) as err:
        spackboot.bootstrap(lambda msg: None)
    assert str(err.value) == (
        f'{tmp_path}/mirror: tag v{spackboot.VERSION} is commit '
        f'{commits[1]}, not the pinned {commits[0]} '
        f'(iogap/site/spack/boot.py): refused, nothing kept')
    assert os.listdir(build) == ['.spack-bootstrap.lock']


def test_a_directory_that_is_no_spack_repository_is_one_line(tmp_path):
    repo = copy_of_project(tmp_path / 'repo')
    (tmp_path / 'plain').mkdir()
    proc = spack_cli(repo, 'bootstrap', IOGAP_SPACK_SOURCE=str(
        tmp_path / 'plain'))
    assert proc.returncode == 1
    [line] = proc.stderr.splitlines()[1:]
    assert line.startswith(f'spack: cannot reach the Spack source '
                           f'{tmp_path}/plain: fatal: ')
    git_spack(tmp_path / 'untagged', tag_at=0)
    subprocess.run(['git', '-C', tmp_path / 'untagged', 'tag', '-d',
                    f'v{spackboot.VERSION}'], check=True, capture_output=True)
    proc = spack_cli(repo, 'bootstrap', IOGAP_SPACK_SOURCE=str(
        tmp_path / 'untagged'))
    assert (proc.returncode, proc.stderr.splitlines()[1:]) == (1, [
        f'spack: {tmp_path}/untagged has no tag v{spackboot.VERSION} '
        f'(Spack {spackboot.VERSION})'])
    # Without git (no apt package of it yet): one line too
    proc = spack_cli(repo, 'build', PATH=VENV,
                     IOGAP_SPACK_SOURCE='http://127.0.0.1:9/spack.git')
    assert (proc.returncode, proc.stderr.splitlines()[1:]) == (
        1, ['spack: no git on PATH, which fetches Spack (apt: git)'])
    assert os.listdir(repo / 'build') == ['.spack-bootstrap.lock']


def test_a_tarball_of_another_checksum_is_refused_and_nothing_unpacked(
        tmp_path):
    repo = copy_of_project(tmp_path / 'repo')
    source = tarball(tmp_path / 'spack.tar.gz', SPACK_LIKE)
    proc = spack_cli(repo, 'bootstrap', IOGAP_SPACK_SOURCE=source)
    assert proc.returncode == 1
    got = hashlib.sha256(open(source, 'rb').read()).hexdigest()
    assert proc.stderr.splitlines()[1:] == [
        f'spack: {source} has sha256 {got}, not one iogap/site/spack/boot.py '
        f'pins: refused, nothing unpacked (IOGAP_SPACK_SOURCE may name a '
        f'git repository of Spack)']
    assert os.listdir(repo / 'build') == ['.spack-bootstrap.lock']


@pytest.mark.parametrize('members, error', [
    # The data filter stops at a member outside the target, the first one
    # already unpacked
    ({**SPACK_LIKE, '../escaped': (0o644, b'x')}, 'is outside the '
                                                  'destination'),
    ({'other/bin/tool': (0o755, b'')}, 'holds no <directory>/bin/spack'),
])
def test_an_unpack_that_fails_leaves_nothing(tmp_path, monkeypatch, build,
                                             members, error):
    source = tarball(tmp_path / 'spack.tar.gz', members)
    # Its checksum is pinned, so it gets as far as unpacking
    monkeypatch.setattr(spackboot, 'TARBALLS', {hashlib.sha256(
        open(source, 'rb').read()).hexdigest(): 'x'})
    monkeypatch.setenv('IOGAP_SPACK_SOURCE', source)
    with pytest.raises(spackboot.SpackError, match=error):
        spackboot.bootstrap(lambda msg: None)
    assert os.listdir(build) == ['.spack-bootstrap.lock']
    assert not (tmp_path / 'escaped').exists()


def test_an_unreachable_source_is_one_line_and_quick(tmp_path):
    repo = copy_of_project(tmp_path / 'repo')
    url = 'http://127.0.0.1:9/spack.git'   # the discard port: refused
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
        url = f'http://127.0.0.1:{server.getsockname()[1]}/spack.git'
        monkeypatch.setattr(spackboot, 'TIMEOUT', 1)
        start = time.time()
        with pytest.raises(spackboot.Unreachable, match='no answer in 1 s'):
            spackboot.take(url, str(tmp_path))
        assert time.time() - start < 3


def test_a_named_source_that_does_not_exist_is_refused(tmp_path):
    repo = copy_of_project(tmp_path / 'repo')
    proc = spack_cli(repo, 'bootstrap', IOGAP_SPACK_SOURCE='/nonexistent.tgz')
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[-1] == (
        'spack: IOGAP_SPACK_SOURCE names /nonexistent.tgz: no tarball, git '
        'repository or URL of Spack')


@pytest.mark.skipif(not os.path.exists(SNAPSHOT),
                    reason=f'no {SNAPSHOT} (the pinned snapshot)')
def test_the_pinned_snapshot_bootstraps_once_and_is_found_after(tmp_path):
    repo = copy_of_project(tmp_path / 'repo')
    first = spack_cli(repo, 'bootstrap', IOGAP_SPACK_SOURCE=SNAPSHOT)
    assert first.returncode == 0, first.stderr
    [version] = spackboot.TARBALLS.values()
    root = repo / 'build' / f'spack-{version}'
    assert first.stdout.strip() == str(root)
    assert 'verified' in first.stderr.splitlines()[-1]
    out = subprocess.run([root / 'bin' / 'spack', '--version'],
                         capture_output=True, text=True,
                         env=dict(os.environ, SPACK_PYTHON=sys.executable))
    assert out.stdout.strip() == version
    assert sorted(os.listdir(repo / 'build')) == [
        '.spack-bootstrap.lock', f'spack-{version}']
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


@pytest.mark.skipif(spackboot.spack_command() is None, reason='no Spack')
def test_the_build_cache_lends_its_lock_only_to_the_same_inputs_and_host(
        tmp_path, monkeypatch):
    cache = tmp_path / 'cache'
    monkeypatch.setenv('IOGAP_SPACK_BUILDCACHE', str(cache))
    command = spackboot.spack_command()
    env = spack.Environment(str(tmp_path / 'env'), 'generic')
    env.prepare()
    assert spack.reuse_lock(env, command) is None
    kept = spack.lock_path(env, command, str(cache))
    # platform-os-target, as Spack names this host
    host = spack.host(env, command)
    assert re.fullmatch(r'linux-\w+-\w+', host)
    assert os.path.basename(kept).startswith(f'{host}-')
    os.makedirs(os.path.dirname(kept))
    with open(kept, 'w') as fp:
        fp.write('{"concrete_specs": {}}')
    assert spack.reuse_lock(env, command) == kept
    assert (tmp_path / 'env' / 'spack.lock').read_text() == open(kept).read()
    # Other inputs (another overlay): their own lock, none kept yet
    other = spack.Environment(str(tmp_path / 'other'), 'cori')
    other.prepare()
    assert spack.lock_path(other, command, str(cache)) != kept
    assert spack.reuse_lock(other, command) is None
