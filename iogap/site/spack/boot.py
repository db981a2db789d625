'''A Spack of the project's own when none is found: the pinned snapshot from
:data:`URL` or ``IOGAP_SPACK_SOURCE``, refused before unpacking unless its
sha256 is :data:`SHA256`, and renamed into place only when whole.'''

import fcntl
import hashlib
import os
import shutil
import tarfile
import tempfile
import threading
import time
import urllib.request

from iogap import errors
from iogap.site.spack import own
from iogap.site.spack.config import SpackError

#: The pinned Spack: a git archive of this commit (top directory
#: ``spack/``), which no upstream release is
VERSION = '0.23.0.dev0'
COMMIT = 'e8f8cf8543b31ff6ba81a5ab0e515bc9a4856384'
SHA256 = 'b146ceb074022a1f59697685d509b146efbbe845e3390c0dec1f1ffd2b76e472'
#: Where the commit is published; GitHub's archive of it has another top
#: directory, so the checksum refuses it until the pin names a release
URL = f'https://github.com/manuel-g-castro/spack/archive/{COMMIT}.tar.gz'

#: Seconds to wait for a URL to answer (name lookup included)
TIMEOUT = 10

#: Where the bootstrapped Spack lives, one directory per pinned version
BUILD = os.path.join(own.ROOT, 'build')
ROOT = os.path.join(BUILD, f'spack-{VERSION}')
STAMP = '.iogap-sha256'


class Unreachable(SpackError, errors.Unreachable):
    '''The source cannot be reached: the suite runs without Spack.'''


def source():
    '''The tarball to bootstrap from: ``IOGAP_SPACK_SOURCE`` or :data:`URL`.'''
    return os.environ.get('IOGAP_SPACK_SOURCE') or URL


def bootstrapped():
    '''The Spack root bootstrapped here, when whole and of the pin.'''
    try:
        with open(os.path.join(ROOT, STAMP)) as fp:
            whole = fp.read().strip() == SHA256
    except OSError:
        return None
    return ROOT if whole and os.access(os.path.join(ROOT, 'bin', 'spack'),
                                       os.X_OK) else None


def _open(url):
    '''The response of ``url`` within :data:`TIMEOUT`, name lookup included
    (which urlopen's own timeout leaves out).'''
    box = {}

    def opener():
        try:
            box['response'] = urllib.request.urlopen(url, timeout=TIMEOUT)
        except Exception as err:  # noqa: BLE001 (reported to the caller)
            box['error'] = err

    thread = threading.Thread(target=opener, daemon=True)
    thread.start()
    thread.join(TIMEOUT)
    if thread.is_alive():
        raise Unreachable(f'cannot reach the Spack source {url}: no answer '
                          f'in {TIMEOUT} s')
    if 'error' in box:
        reason = getattr(box['error'], 'reason', None) or box['error']
        raise Unreachable(f'cannot reach the Spack source {url}: {reason}')
    return box['response']


def fetch(src, into):
    '''The tarball ``src`` names: a file, or a URL downloaded into ``into``.'''
    if src.startswith('file://') or '://' not in src:
        path = src.removeprefix('file://')
        if not os.path.isfile(path):
            raise SpackError(f'IOGAP_SPACK_SOURCE names {path}, which is not '
                             f'a file: name the Spack {VERSION} tarball or '
                             f'a URL of it')
        return path
    path = os.path.join(into, 'download.tar.gz')
    with _open(src) as response, open(path, 'wb') as fp:
        try:
            shutil.copyfileobj(response, fp)
        except OSError as err:
            raise Unreachable(f'cannot download the Spack source {src}: '
                              f'{err}') from None
    return path


def verify(path, src):
    '''Refuse a tarball whose sha256 is not the pinned one.'''
    digest = hashlib.sha256()
    with open(path, 'rb') as fp:
        for block in iter(lambda: fp.read(1 << 20), b''):
            digest.update(block)
    if digest.hexdigest() != SHA256:
        raise SpackError(f'{src} has sha256 {digest.hexdigest()}, not the '
                         f'pinned {SHA256} of Spack {VERSION} '
                         f'(iogap/site/spack/boot.py): refused, nothing '
                         f'unpacked; name that release with '
                         f'IOGAP_SPACK_SOURCE or a Spack with '
                         f'IOGAP_SPACK_ROOT')


def unpack(path, work):
    '''Unpack the tarball into ``work`` and move its Spack to :data:`ROOT`.'''
    try:
        with tarfile.open(path) as tar:
            # The data filter refuses members that would land outside
            tar.extractall(work, filter='data')
    except (tarfile.TarError, OSError) as err:
        raise SpackError(f'cannot unpack {path}: {err}') from None
    tops = [os.path.join(work, d) for d in os.listdir(work)
            if os.access(os.path.join(work, d, 'bin', 'spack'), os.X_OK)]
    if len(tops) != 1:
        raise SpackError(f'{path} holds no <directory>/bin/spack: not a '
                         f'Spack release tarball')
    with open(os.path.join(tops[0], STAMP), 'w') as fp:
        fp.write(SHA256 + '\n')
    shutil.rmtree(ROOT, ignore_errors=True)  # a stale or foreign one
    os.rename(tops[0], ROOT)


def bootstrap(say):
    '''The Spack root of :data:`ROOT`, bootstrapped first when missing.'''
    if bootstrapped():
        return ROOT
    os.makedirs(BUILD, exist_ok=True)
    with open(os.path.join(BUILD, '.spack-bootstrap.lock'), 'w') as lock:
        # Two setups at once: the second waits, then finds it done
        fcntl.flock(lock, fcntl.LOCK_EX)
        if bootstrapped():
            return ROOT
        src, start = source(), time.time()
        say(f'no Spack found: bootstrapping Spack {VERSION} from {src} '
            f'into {ROOT}')
        work = tempfile.mkdtemp(prefix='.spack-bootstrap.', dir=BUILD)
        try:
            path = fetch(src, work)
            verify(path, src)
            unpack(path, os.path.join(work, 'unpacked'))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    say(f'bootstrapped Spack {VERSION} in {time.time() - start:.0f} s '
        f'(sha256 {SHA256[:12]}… verified)')
    return ROOT
