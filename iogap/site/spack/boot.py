'''The Spack the stack is built with: ``IOGAP_SPACK_ROOT``, PATH, else one
of the project's own, upstream Spack cloned at :data:`COMMIT`, its
integrity check, or offline the git repository or pinned tarball
``IOGAP_SPACK_SOURCE`` names; renamed into place only when whole.'''

import fcntl
import hashlib
import os
import pathlib
import shutil
import signal
import subprocess
import tarfile
import tempfile
import time

from iogap import errors
from iogap.site.spack import own
from iogap.site.spack.config import SpackError

#: Spack v0.23.1, the last release whose builtin packages are in its tree
#: (1.x fetches them on first use, which an offline site cannot)
VERSION = '0.23.1'
COMMIT = '2bfcc69fa870d3c6919be87593f22647981b648a'
GIT = 'https://github.com/spack/spack.git'
#: Tarballs ``IOGAP_SPACK_SOURCE`` may name, by sha256: the snapshot
#: offline CI builds with (git archive of a fork's e8f8cf85, 2024-06)
TARBALLS = {
    'b146ceb074022a1f59697685d509b146efbbe845e3390c0dec1f1ffd2b76e472':
    '0.23.0.dev0'}

#: Seconds a git source has to answer (name lookup included)
TIMEOUT = 10

BUILD = os.path.join(own.ROOT, 'build')
STAMP = '.iogap-pin'
PINS = 'iogap/site/spack/boot.py'


class Unreachable(SpackError, errors.Unreachable):
    '''The source cannot be reached: the suite runs without Spack.'''


def bootstrapped():
    '''The Spack root bootstrapped here, when whole and of a pin.'''
    for pin, version in [(COMMIT, VERSION), *TARBALLS.items()]:
        root = os.path.join(BUILD, f'spack-{version}')
        try:
            with open(os.path.join(root, STAMP)) as fp:
                if fp.read().strip() == pin and os.access(
                        os.path.join(root, 'bin', 'spack'), os.X_OK):
                    return root
        except OSError:
            pass
    return None


def git(*args, timeout=None):
    '''``(status, stdout, error line)`` of git, killed with its transport
    helper past ``timeout`` (TimeoutExpired).'''
    proc = subprocess.Popen(
        ['git', *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
        env=dict(os.environ, GIT_TERMINAL_PROMPT='0'))
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    # git's first fatal line says why; the ones after give advice
    lines = err.strip().splitlines() or ['']
    return proc.returncode, out.strip(), next(
        (line for line in lines if line.startswith('fatal: ')), lines[-1])


def clone(src, url, work):
    '''Spack's tag ``v<VERSION>`` cloned from ``url`` into ``work``,
    refused unless it is :data:`COMMIT`: ``(tree, version, pin)``.'''
    tag, tree = f'v{VERSION}', os.path.join(work, 'spack')
    if not shutil.which('git'):
        raise SpackError('no git on PATH, which fetches Spack (apt: git)')
    try:
        status, _, err = git('ls-remote', '--exit-code', url,
                             f'refs/tags/{tag}', timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        status, err = 128, f'no answer in {TIMEOUT} s'
    if status == 2:
        raise SpackError(f'{src} has no tag {tag} (Spack {VERSION})')
    if status == 0:
        # An answer within TIMEOUT; a transfer that stalls as long fails
        status, _, err = git('-c', 'http.lowSpeedLimit=1000', '-c',
                             f'http.lowSpeedTime={TIMEOUT}', 'clone', '-q',
                             '--depth', '1', '--branch', tag, url, tree)
    if status:    # a local repository that fails is no network's fault
        raise (SpackError if url.startswith('file://') else Unreachable)(
            f'cannot reach the Spack source {src}: {err}')
    head = git('-C', tree, 'rev-parse', 'HEAD')[1]
    if head != COMMIT:
        raise SpackError(f'{src}: tag {tag} is commit {head}, not the pinned '
                         f'{COMMIT} ({PINS}): refused, nothing kept')
    return tree, VERSION, COMMIT


def unpack(path, work):
    '''The tarball ``path`` unpacked into ``work`` if :data:`TARBALLS`
    pins its sha256: ``(tree, version, pin)``.'''
    with open(path, 'rb') as fp:
        pin = hashlib.file_digest(fp, 'sha256').hexdigest()
    if pin not in TARBALLS:
        raise SpackError(f'{path} has sha256 {pin}, not one {PINS} pins: '
                         f'refused, nothing unpacked (IOGAP_SPACK_SOURCE '
                         f'may name a git repository of Spack)')
    try:
        with tarfile.open(path) as tar:
            # The data filter refuses members that would land outside
            tar.extractall(work, filter='data')
    except (tarfile.TarError, OSError) as err:
        raise SpackError(f'cannot unpack {path}: {err}') from None
    trees = [os.path.join(work, d) for d in os.listdir(work)
             if os.access(os.path.join(work, d, 'bin', 'spack'), os.X_OK)]
    if len(trees) != 1:
        raise SpackError(f'{path} holds no <directory>/bin/spack: not a '
                         f'Spack tarball')
    return trees[0], TARBALLS[pin], pin


def take(src, work):
    '''``(tree, version, pin)`` of the Spack ``src`` names, in ``work``.'''
    path = src.removeprefix('file://')
    if os.path.isfile(path):
        return unpack(path, work)
    if os.path.isdir(path):
        return clone(src, 'file://' + os.path.abspath(path), work)
    if ':' in src:    # a URL, or git's user@host:path
        return clone(src, src, work)
    raise SpackError(f'IOGAP_SPACK_SOURCE names {src}: no tarball, git '
                     f'repository or URL of Spack')


def bootstrap(say):
    '''The Spack root bootstrapped here, bootstrapped first when missing.'''
    if root := bootstrapped():
        return root
    os.makedirs(BUILD, exist_ok=True)
    with open(os.path.join(BUILD, '.spack-bootstrap.lock'), 'w') as lock:
        # Two setups at once: the second waits, then finds it done
        fcntl.flock(lock, fcntl.LOCK_EX)
        if root := bootstrapped():
            return root
        src, start = os.environ.get('IOGAP_SPACK_SOURCE') or GIT, time.time()
        say(f'no Spack found: bootstrapping Spack from {src} into {BUILD}')
        work = tempfile.mkdtemp(prefix='.spack-bootstrap.', dir=BUILD)
        try:
            tree, version, pin = take(src, work)
            pathlib.Path(tree, STAMP).write_text(pin + '\n')
            root = os.path.join(BUILD, f'spack-{version}')
            shutil.rmtree(root, ignore_errors=True)  # a stale or foreign one
            os.rename(tree, root)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    say(f'bootstrapped Spack {version} in {time.time() - start:.0f} s ('
        f'{"sha256" if pin in TARBALLS else "commit"} {pin[:12]}… verified)')
    return root


def spack_command():
    '''``[spack]`` from IOGAP_SPACK_ROOT, PATH or a bootstrap, or ``None``.'''
    if root := os.environ.get('IOGAP_SPACK_ROOT'):
        spack = os.path.join(root, 'bin', 'spack')
        if not os.access(spack, os.X_OK):
            raise SpackError(f'IOGAP_SPACK_ROOT={root} holds no bin/spack')
        return [spack]
    if shutil.which('spack'):
        return [shutil.which('spack')]
    root = bootstrapped()
    return [os.path.join(root, 'bin', 'spack')] if root else None


def found_or_bootstrapped(say):
    '''``[spack]`` as :func:`spack_command` finds it, else bootstrapped now.'''
    return spack_command() or [os.path.join(bootstrap(say), 'bin',
                                            'spack')]
