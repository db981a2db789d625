'''The results database, the nights' history: checked before a run writes
to it, never replaced, copied while good, its unreadable sessions mended
in place; a session that did not reach it is an error (ReFrame only warns).

ReFrame 4.10 reads a stored ``session_info`` up to its first ``}``, so a
``}`` in one of its strings (``--report-file '...-{sessionid}.json'``)
breaks every stored-session command for good; the lossless mend writes
such a ``}`` as ``\\u007d``.'''

import json
import os
import re
import shutil
import sqlite3
from contextlib import closing, suppress

from iogap.errors import IogapError

#: SQLite's file header
MAGIC = b'SQLite format 3\x00'
#: Suffix of the copy of the last good history
LAST_GOOD = '.last-good'
#: Suffix of the copy kept before sessions are mended
BEFORE_MEND = '.before-mend'
#: Seconds to wait for another process's lock before calling it held
BUSY_SECONDS = 10
#: ReFrame 4.10's expression for a stored session's info (storage.py)
REFRAME_INFO = re.compile(r'\"session_info\":\s+(?P<sess_info>\{.*?\})')
#: What precedes the info object in a blob
_KEY = re.compile(r'\"session_info\":\s+')
#: Bytes of a blob read to find its info (ReFrame writes it first)
HEAD = 1 << 16


class ResultsDBError(IogapError):
    '''The results database cannot be trusted or written.'''


def holders(path):
    '''``pid N (command)`` of the other processes with ``path`` open.'''
    names = {os.path.realpath(path) + end for end in ('', '-journal')}
    found = []
    for pid in set(filter(str.isdigit, os.listdir('/proc'))) - {
            str(os.getpid())}:
        with suppress(OSError):     # gone, or another user's
            if names & {os.readlink(f'/proc/{pid}/fd/{fd}')
                        for fd in os.listdir(f'/proc/{pid}/fd')}:
                with open(f'/proc/{pid}/comm') as fp:
                    found.append(f'pid {pid} ({fp.read().strip()})')
    return sorted(found)


def restore_hint(path):
    '''What to do with a damaged history: never replace one a run holds.'''
    held = holders(path)
    if held:
        return (f'{", ".join(held)} has it open: wait for it to end and '
                f'run again; replace nothing while it is open')
    good = path + LAST_GOOD
    if os.path.isfile(good):
        return f'restore the last good copy: cp -p {good} {path}'
    return 'restore it from a backup, or move it away to start a new history'


def _refuse(path, why, hint=None):
    raise ResultsDBError(f'results database {path} {why}: the run stops '
                         f'before writing to it; '
                         f'{hint or restore_hint(path)}')


def _header_size(head):
    '''Bytes the header says the file holds.'''
    page = int.from_bytes(head[16:18], 'big')
    page = 65536 if page == 1 else page
    return page * int.from_bytes(head[28:32], 'big')


def check(path):
    '''Refuse ``path`` unless new or a sound, writable results database.'''
    if not os.path.lexists(path):
        folder = os.path.dirname(os.path.abspath(path))
        if os.path.isdir(folder) and not os.access(folder, os.W_OK):
            _refuse(path, f'cannot be created: {folder} is not writable')
        return
    try:
        with open(path, 'rb') as fp:
            head = fp.read(100)
        size = os.path.getsize(path)
    except OSError as err:
        _refuse(path, f'cannot be read ({err.strerror})')
    if size == 0:
        _refuse(path, 'is empty (0 bytes), not a history')
    if not head.startswith(MAGIC):
        _refuse(path, 'is not an SQLite database')
    if len(head) < 100 or size < _header_size(head):
        _refuse(path, f'is truncated ({size} bytes, its header says '
                      f'{_header_size(head) if len(head) == 100 else "more"})')
    if not os.access(path, os.W_OK) or not os.access(
            os.path.dirname(os.path.abspath(path)), os.W_OK):
        _refuse(path, 'is not writable (it or its directory)')
    try:
        with closing(sqlite3.connect(path, timeout=BUSY_SECONDS)) as conn:
            # waits for, then names, another writer
            conn.execute('BEGIN IMMEDIATE')
            found = conn.execute('PRAGMA integrity_check').fetchall()
            tables = {r[0] for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type='table'")}
            conn.rollback()
    except sqlite3.OperationalError as err:
        if 'locked' in str(err) or 'busy' in str(err):
            # Sound, in use: replacing it would lose what the holder stores
            _refuse(path, f'is busy: locked by '
                          f'{", ".join(holders(path)) or "another process"} '
                          f'(waited {BUSY_SECONDS} s)', 'it is sound: run '
                          'again once that run has stored its session')
        _refuse(path, f'cannot be read by SQLite ({err})')
    except sqlite3.DatabaseError as err:
        _refuse(path, f'is corrupt ({" ".join(str(err).split())})')
    if [r[0] for r in found] != ['ok']:
        _refuse(path, f'fails PRAGMA integrity_check '
                      f'({" ".join(found[0][0].split())})')
    if tables and not {'sessions', 'testcases', 'metadata'} <= tables:
        _refuse(path, f'is an SQLite database but not ReFrame\'s (tables: '
                      f'{", ".join(sorted(tables)[:4])})')


def stored(path, uuid):
    '''Why session ``uuid`` is not in the database, or ``None``.'''
    if not os.path.isfile(path):
        return f'the results database {path} does not exist'
    try:
        uri = f'file:{os.path.abspath(path)}?mode=ro'
        with closing(sqlite3.connect(uri, uri=True,
                                     timeout=BUSY_SECONDS)) as conn:
            row = conn.execute('SELECT 1 FROM sessions WHERE uuid = ?',
                               (uuid,)).fetchone()
    except sqlite3.DatabaseError as err:
        return f'the results database {path} cannot be read ({err})'
    return None if row else (f'session {uuid} is not in the results '
                             f'database {path}')


def keep_copy(path):
    '''Copy a sound database to ``<path>.last-good``; its path, or None.'''
    if not os.path.isfile(path):
        return None
    check(path)
    _backup(path, path + LAST_GOOD)
    return path + LAST_GOOD


def _backup(path, copy):
    '''``path`` to ``copy`` by SQLite's backup, whole or not at all.'''
    part = f'{copy}.part{os.getpid()}'
    try:
        with closing(sqlite3.connect(f'file:{os.path.abspath(path)}?mode=ro',
                                     uri=True)) as src, \
                closing(sqlite3.connect(part)) as dst:
            src.backup(dst)
        os.replace(part, copy)
    except BaseException as err:    # a signal too: no part is left
        if os.path.exists(part):
            os.remove(part)
        if not isinstance(err, (OSError, sqlite3.Error)):
            raise
        raise ResultsDBError(f'cannot keep a copy of the results database '
                             f'{path} in {copy}: {err}') from None
    shutil.copymode(path, copy)


def readable(blob):
    '''Whether ReFrame reads the session info of ``blob`` back whole.'''
    found = REFRAME_INFO.search(blob)
    if found is None:
        return False
    try:
        json.loads(found.group('sess_info'))
    except ValueError:
        return False
    return True


def mended(blob):
    '''``blob`` with every ``}`` in its session info's strings escaped;
    ``None`` unless that makes it readable, its content unchanged.'''
    key = _KEY.search(blob)
    if key is None:
        return None
    try:
        info, end = json.JSONDecoder().raw_decode(blob, key.end())
    except ValueError:
        return None
    # a flat object: its last '}' is its own, every other one is quoted
    text = json.dumps(info)[:-1].replace('}', '\\u007d') + '}'
    new = blob[:key.end()] + text + blob[end:]
    try:
        same = json.loads(new) == json.loads(blob)
    except ValueError:
        return None
    return new if same and readable(new) else None


def unreadable(conn):
    '''``[uuid]`` of the stored sessions ReFrame cannot read back.'''
    return [uuid for uuid, head in conn.execute(
        'SELECT uuid, substr(json_blob, 1, ?) FROM sessions',
        (HEAD,)) if not readable(head)]


def mend(path):
    '''Make every stored session readable by ReFrame again; the line
    saying so, or ``None``.'''
    if not os.path.isfile(path):
        return None
    check(path)
    with closing(sqlite3.connect(path, timeout=BUSY_SECONDS)) as conn:
        damaged = unreadable(conn)
        if not damaged:
            return None
        _backup(path, path + BEFORE_MEND)
        conn.execute('BEGIN IMMEDIATE')
        total = conn.execute('SELECT count(*) FROM sessions').fetchone()[0]
        failed = []
        for uuid in damaged:
            blob, = conn.execute('SELECT json_blob FROM sessions WHERE '
                                 'uuid = ?', (uuid,)).fetchone()
            new = mended(blob)
            if new is None:
                failed.append(uuid)
            else:
                conn.execute('UPDATE sessions SET json_blob = ? WHERE '
                             'uuid = ?', (new, uuid))
        conn.commit()
    said = (f'results database {path}: {len(damaged)} of {total} stored '
            f'session(s) unreadable by ReFrame (a \'}}\' in their session '
            f'info: iogap/history/resultsdb.py)')
    if failed:
        raise ResultsDBError(f'{said}; {len(failed)} cannot be mended '
                             f'({", ".join(failed[:3])}): the run stops '
                             f'before writing to it; {restore_hint(path)}')
    return (f'{said}: mended in place, all {total} kept; as it was: '
            f'{path}{BEFORE_MEND}')
