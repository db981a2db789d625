'''The nights of a results database, as the judges across nights read
them: each night's sessions (a night split per partition is several),
each figure's median per night, and what a session recorded of what it
ran on (``--session-extras``; each case's tools), compared night to
night.'''

import json
import re
import sqlite3
import statistics

from iogap.history.rows import night_of
from iogap.history.runreport import final_cases

_REPEAT = re.compile(r'\s*%\.?repeat_no=\d+')


def _last_nights(conn, uuid, kept):
    '''The sessions of the ``kept`` nights up to session ``uuid`` (the
    newest when ``None``), newest first; read lazily, newest first.'''
    rows = conn.execute("SELECT uuid, json_extract(json_blob, "
                        "'$.session_info.pipeline') FROM sessions ORDER BY "
                        "session_start_unix DESC")
    wanted, nights = [], []
    for found, pipeline in rows:
        if uuid is not None and not wanted and found != uuid:
            continue
        if night_of(found, pipeline) not in nights:
            if len(nights) == kept:
                break
            nights.append(night_of(found, pipeline))
        wanted.append(found)
    return wanted


def sessions(db_path, uuid=None, kept=None):
    '''``[(session_info, final cases)]`` of the database, oldest first: the
    sessions of the ``kept`` nights up to session ``uuid`` (the newest
    when ``None``); ``[]`` when ``uuid`` is not there.'''
    uri = f'file:{db_path}?mode=ro'
    with sqlite3.connect(uri, uri=True) as conn:
        wanted = _last_nights(conn, uuid, kept)[::-1]
        if not wanted:
            return []
        blobs = dict(conn.execute(
            f'SELECT uuid, json_blob FROM sessions WHERE uuid IN '
            f'({",".join("?" * len(wanted))})', wanted).fetchall())
    conn.close()
    found = []
    for key in wanted:
        report = json.loads(blobs[key])
        found.append((report['session_info'], final_cases(report)))
    return found


def case_of(tc):
    '''A case's name across nights (``--repeat`` numbers dropped).'''
    return _REPEAT.sub('', tc.get('display_name') or tc['name'])


def series(nights):
    '''``({(where, case, figure): [(night, value)]}, {night: [failed
    case]})``: each figure's median per night; a case that failed before
    its performance stage gives no value that night.'''
    found, failed = {}, {}
    for i, (_, cases) in enumerate(nights):
        values = {}
        for tc in cases:
            if tc.get('fixture') or tc['result'] not in ('pass', 'fail'):
                continue
            if tc['result'] == 'fail' and tc.get('fail_phase') != \
                    'performance':
                failed.setdefault(i, set()).add(case_of(tc))
                continue
            where = f'{tc["system"]}:{tc["partition"]}'
            for key, value in (tc.get('perfvalues') or {}).items():
                if value and isinstance(value[0], (int, float)):
                    values.setdefault((where, case_of(tc),
                                       key.rsplit(':', 1)[-1]),
                                      []).append(value[0])
        for key, got in values.items():
            found.setdefault(key, []).append((i, statistics.median(got)))
    return found, failed


#: Session keys a change of which is named, in this order
KEYS = ('commit', 'kernel', 'spack_lock', 'tools')


def changes(before, after):
    '''``["key: old -> new"]`` for each recorded key that differs between
    two sessions' infos (a key neither recorded is not named).'''
    found = []
    for key in KEYS:
        old, new = before.get(key), after.get(key)
        if old != new and (old or new):
            found.append(f'{key} {old or "unrecorded"} -> '
                         f'{new or "unrecorded"}')
    return found


def tools_of(tc):
    '''``{tool: "path sha256:digest version"}`` a case's job resolved on
    its node (none recorded by older runs).'''
    return dict(part.partition(' ')[::2] for part in
                (tc.get('tools_resolved') or '').split('; ') if part)


def tool_changes(before, after):
    '''``["tool old -> new"]`` for each tool both cases' jobs resolved,
    differently (another path, binary or version).'''
    old, new = tools_of(before), tools_of(after)
    return [f'{name} {old[name]} -> {new[name]}' for name in sorted(old)
            if name in new and old[name] != new[name]]
