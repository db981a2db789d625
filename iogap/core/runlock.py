'''One run at a time: advisory locks naming their holder, on an output
directory and on scratch roots (held shared, a partition's exclusive).'''

import datetime
import fcntl
import os
import re
import socket
from contextlib import suppress

from reframe.core.exceptions import ForceExitError

from iogap.errors import ScratchError

#: Lock file: one run at a time per output directory; shared on a root
RUN_LOCK = '.iogap-run.lock'
_held = {}


def is_lock(name):
    '''Whether a file of a root or output directory is a run's lock.'''
    return re.fullmatch(r'\.iogap-run(-.+)?\.lock', name) is not None


def _take(path, name, mode, what):
    lock = os.path.join(path, name)
    if lock in _held:
        return
    fp = open(lock, 'a+')
    try:
        fcntl.flock(fp, mode | fcntl.LOCK_NB)
    except OSError:
        fp.seek(0)
        holder = fp.read().strip() or 'unknown'
        fp.close()
        raise ScratchError(f'{what} is in use by another run ({holder}): '
                           f'wait for it or choose another directory') \
            from None
    if mode == fcntl.LOCK_EX:
        fp.seek(0)
        fp.truncate()
        fp.write(f'pid {os.getpid()} on {socket.gethostname()}, started '
                 f'{datetime.datetime.now():%Y-%m-%d %H:%M:%S}\n')
        fp.flush()
    _held[lock] = fp


def lock_run(path, what, partition=None):
    '''Hold ``path``'s lock (for ``partition`` on a scratch root) for the
    rest of this process, or stop, naming the run that holds it.'''
    if partition is None:
        _take(path, RUN_LOCK, fcntl.LOCK_EX, f'{what} {path}')
        return
    _take(path, RUN_LOCK, fcntl.LOCK_SH, f'{what} {path}')
    _take(path, f'.iogap-run-{partition}.lock', fcntl.LOCK_EX,
          f'{what} {path} (partition {partition})')


def lock_night(output):
    '''Hold ``output`` for one night, whose reframe takes its run lock.'''
    _take(output, '.iogap-night.lock', fcntl.LOCK_EX,
          f'output directory {output}')


def idle(path):
    '''Whether no run holds ``path``'s lock: what is there is nobody's.'''
    lock = os.path.join(path, RUN_LOCK)
    if any(held.startswith(path + os.sep) for held in _held):
        return False
    try:
        with open(lock, 'a+') as fp:
            fcntl.flock(fp, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


class RootLost(ForceExitError):
    '''A locked root removed during the run: ReFrame aborts every case.'''


def held(path):
    '''``dev:inode`` of the lock this process holds on ``path``, or
    ``None``; :class:`RootLost` when the lock there is no longer it.'''
    fp = _held.get(os.path.join(path, RUN_LOCK))
    if fp is None:
        return None
    ours = os.fstat(fp.fileno())
    with suppress(OSError):
        if os.path.samestat(ours, os.stat(os.path.join(path, RUN_LOCK))):
            return f'{ours.st_dev}:{ours.st_ino}'
    raise RootLost(f'scratch root {path} was removed during the run (and '
                   f'the lock this run took on it): the run stops; no case '
                   f'runs in a root it did not lock')
