'''What dead runs left in a scratch root: removed when nothing can still
use it (its ``.owner``'s process is gone, or no job holds its lock and no
run the root), otherwise reported with its size.'''

import fcntl
import os
import shutil
import socket

from iogap.core.scratch import DIR_PREFIX, human


def remove_leftovers(root, idle=False):
    '''Remove what no live job can use (``idle``: no run holds ``root``).'''
    removed, kept = [], []
    for entry in sorted(os.listdir(root)):
        path = os.path.join(root, entry)
        if not entry.startswith(DIR_PREFIX) or not os.path.isdir(path):
            continue
        owner = _owner(path)
        if owner and owner[0] == socket.gethostname():
            dead = not _alive(owner[1])
        else:
            dead = idle and owner is not None and not _held(path)
        if dead:
            removed.append((entry, _size(path), owner[0]))
            shutil.rmtree(path, ignore_errors=True)
        elif not owner or owner[0] != socket.gethostname():
            kept.append((entry, _size(path), owner[0] if owner else None))

    lines = []
    if removed:
        lines.append(f'iogap: removed {len(removed)} scratch dir(s) left by '
                     f'dead runs under {root} {_listed(removed)}')
    if kept:
        lines.append(f'iogap: kept {len(kept)} scratch dir(s) under {root} '
                     f'that a run on another host (or of no recorded owner) '
                     f'may still use {_listed(kept)}; remove them once no '
                     f'run of theirs is alive')
    return '\n'.join(lines) or None


def _listed(dirs):
    '''``(size; of host(s) ...): names`` of ``(name, size, host)``.'''
    nbytes = sum(size for _, size, _ in dirs)
    hosts = sorted({str(h) for _, _, h in dirs if h != socket.gethostname()})
    names = [name for name, _, _ in dirs]
    of = f'; of host(s) {", ".join(hosts)}' if hosts else ''
    return (f'({human(nbytes)}{of}): {", ".join(names[:3])}'
            f'{" ..." * (len(names) > 3)}')


def _size(path):
    return sum(os.path.getsize(os.path.join(d, f))
               for d, _, files in os.walk(path) for f in files
               if not os.path.islink(os.path.join(d, f)))


def _owner(path):
    try:
        with open(os.path.join(path, '.owner')) as fp:
            fields = dict(w.split('=', 1) for w in fp.read().split()
                          if '=' in w)
        return fields['host'], int(fields['pid'])
    except (OSError, KeyError, ValueError):
        return None


def _held(path):
    '''Whether a live job holds its directory's lock (no locks: held).'''
    try:
        with open(os.path.join(path, '.owner')) as fp:
            fcntl.flock(fp, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    return False


def _alive(pid):
    '''Whether ``pid`` runs: a zombie (killed, not yet reaped) does not.'''
    try:
        with open(f'/proc/{pid}/stat') as fp:
            state = fp.read().rsplit(')', 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ('Z', 'X')
