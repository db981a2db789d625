'''The scratch directory is sacred: a root is an absolute directory of the
suite's own, not ``/``, a system one or ``$HOME``, and empty (``lost+found``
aside) or marked; each test writes in a fresh ``iogap.<test>.*`` of it.'''

import os
import shutil

from iogap.core.runlock import RUN_LOCK, lock_run  # noqa: F401 (API)
from iogap.errors import ScratchError

#: Prefix of every per-test directory; nothing else under a root is touched
DIR_PREFIX = 'iogap.'
#: The files that mark a scratch root and an output directory the suite's
MARKER, OUTPUT_MARKER = '.iogap-scratch', '.iogap-output'

_SYSTEM_DIRS = ('/', '/bin', '/boot', '/dev', '/etc', '/home', '/lib',
                '/lib32', '/lib64', '/media', '/mnt', '/opt', '/proc',
                '/root', '/run', '/sbin', '/srv', '/sys', '/tmp', '/usr',
                '/var', '/var/tmp', '/var/lib', '/var/log', '/scratch')

_FIX = 'set IOGAP_SCRATCH or the partition\'s extras["scratch_root"]'


def check_rules(root):
    '''Refuse a root no suite should write into (a pure path check).'''
    if not root or not os.path.isabs(root):
        raise ScratchError(f'scratch root {root!r} is not an absolute path: '
                           f'{_FIX}')
    real = os.path.realpath(root)
    home = os.path.realpath(os.path.expanduser('~'))
    if real in _SYSTEM_DIRS or real == home or home.startswith(real + '/'):
        raise ScratchError(f'scratch root {root} is a system or home '
                           f'directory: use a directory of its own, e.g. '
                           f'/var/tmp/iogap-$USER ({_FIX})')


def create(root):
    '''Make a missing ``root`` the suite's; the line saying so, or ``None``.'''
    check_rules(root)
    if os.path.lexists(root) or not os.path.isdir(os.path.dirname(
            os.path.normpath(root))):
        return None
    try:
        os.mkdir(root, 0o700)
    except FileExistsError:
        return None     # another run made it first
    except OSError as err:
        raise ScratchError(f'scratch root {root} does not exist and cannot '
                           f'be created ({err.strerror}): {_FIX}') from None
    with open(os.path.join(root, MARKER), 'w'):
        pass
    return (f'iogap: created scratch root {root}, marked {MARKER} as the '
            f'suite\'s')


def make_output(path):
    '''The output directory, made and marked as the suite's on first use.'''
    os.makedirs(path, exist_ok=True)
    marker = os.path.join(path, OUTPUT_MARKER)
    if not os.path.exists(marker):
        with open(marker, 'w'):
            pass


def problem(root):
    '''Why ``root`` cannot be used now, or ``None``.'''
    if not os.path.exists(root):
        parent = os.path.dirname(os.path.normpath(root))
        return (f'scratch root {root} does not exist, nor does its parent '
                f'{parent}: mkdir -p {root}' if not os.path.isdir(parent)
                else f'scratch root {root} does not exist: mkdir -p {root}')
    if not os.path.isdir(root):
        return f'scratch root {root} is not a directory'
    if os.stat(root).st_uid != os.geteuid():
        return f'scratch root {root} belongs to uid {os.stat(root).st_uid}'
    if os.statvfs(root).f_flag & os.ST_RDONLY or not os.access(root,
                                                                 os.W_OK):
        return f'scratch root {root} is not writable (read-only)'
    foreign = [e for e in os.listdir(root) if e != 'lost+found' and
               not (e.startswith(DIR_PREFIX) or e.startswith('.iogap-'))]
    if foreign and MARKER not in os.listdir(root):
        return (f'scratch root {root} holds {len(foreign)} file(s) that are '
                f'not the suite\'s (e.g. {sorted(foreign)[0]}) and no '
                f'{MARKER} marker: give the suite a directory of its own')
    return None


def human(nbytes):
    for unit, size in (('GiB', 2**30), ('MiB', 2**20), ('KiB', 2**10)):
        if nbytes >= size:
            return f'{nbytes / size:.1f} {unit}'
    return f'{nbytes} B'


def check_free_space(root, nbytes):
    free = shutil.disk_usage(root).free
    if free < nbytes * 1.1:
        raise ScratchError(f'scratch root {root} has {human(free)} free; '
                           f'this test writes {human(nbytes)}: free space or '
                           f'lower the size in the profile')
