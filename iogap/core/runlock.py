'''One run at a time: a run's advisory locks on its output directory and
its scratch roots, each naming its holder.

An output directory is one run's (its ``.iogap-run.lock``, exclusive). A
scratch root is one run's per partition: a run takes the lock of each
partition it runs on there (``.iogap-run-<partition>.lock``) and the
root's own lock shared, so runs on other partitions of one root (the
jobs of a night split per partition) go side by side, while whatever
needs the root alone (``flock`` on its ``.iogap-run.lock``, as ``.ci/run``
before it removes one) still sees a live run. A second run of the same
partition stops, naming the first one's PID and start time.
'''

import datetime
import fcntl
import os
import re
import socket

from iogap.errors import ScratchError

#: Lock file: one run at a time per output directory; shared on a root
RUN_LOCK = '.iogap-run.lock'

_held = {}


def partition_lock(partition):
    '''The lock file of one partition's runs on a scratch root.'''
    return f'.iogap-run-{partition}.lock'


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
    '''Hold the lock of ``path`` (a run's output directory or, with
    ``partition``, a scratch root for that partition) for the rest of this
    process; a run that holds it stops this one, named.'''
    if partition is None:
        _take(path, RUN_LOCK, fcntl.LOCK_EX, f'{what} {path}')
        return
    _take(path, RUN_LOCK, fcntl.LOCK_SH, f'{what} {path}')
    _take(path, partition_lock(partition), fcntl.LOCK_EX,
          f'{what} {path} (partition {partition})')


def idle(path):
    '''Whether no run holds ``path``'s lock, taken and given back at once
    (before this run takes its own): what is left there is nobody's.'''
    lock = os.path.join(path, RUN_LOCK)
    if any(held.startswith(path + os.sep) for held in _held):
        return False
    try:
        with open(lock, 'a+') as fp:
            fcntl.flock(fp, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True
