'''The nights of a results database as the judges across nights read them:
sessions, each figure's median per night, what changed in between.'''

import json
import re
import sqlite3
import statistics

from iogap.history.rows import night_of
from iogap.history.runreport import final_cases

_REPEAT = re.compile(r'\s*%\.?repeat_no=\d+')
#: Session keys a change of which is named, in this order
KEYS = ('commit', 'kernel', 'spack_lock', 'tools')


def _last_nights(conn, uuid, kept):
    '''The sessions of the ``kept`` nights up to ``uuid``, newest first.'''
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
    '''``[(session_info, final cases)]``, oldest first, of the ``kept``
    nights up to session ``uuid`` (default: the newest).'''
    uri = f'file:{db_path}?mode=ro'
    with sqlite3.connect(uri, uri=True) as conn:
        wanted = _last_nights(conn, uuid, kept)[::-1]
        if not wanted:
            return []
        blobs = dict(conn.execute(
            f'SELECT uuid, json_blob FROM sessions WHERE uuid IN '
            f'({",".join("?" * len(wanted))})', wanted).fetchall())
    conn.close()
    reports = [json.loads(blobs[key]) for key in wanted]
    return [(r['session_info'], final_cases(r)) for r in reports]


def case_of(tc):
    '''A case's name across nights (``--repeat`` numbers dropped).'''
    return _REPEAT.sub('', tc.get('display_name') or tc['name'])


def series(nights):
    '''``({(where, case, figure): [(night, median)]}, {night: {failed
    case}})``; a case failed before its performance stage gives none.'''
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


def changes(before, after):
    '''``["key old -> new"]`` of the recorded keys two sessions differ in.'''
    pairs = [(key, before.get(key), after.get(key)) for key in KEYS]
    return [f'{key} {old or "unrecorded"} -> {new or "unrecorded"}'
            for key, old, new in pairs if old != new and (old or new)]


def tools_of(tc):
    '''``{tool: "path sha256:digest version"}`` a case's job resolved.'''
    return dict(part.partition(' ')[::2] for part in
                (tc.get('tools_resolved') or '').split('; ') if part)


def tool_changes(before, after):
    '''``["tool old -> new"]`` for each tool both jobs resolved apart.'''
    old, new = tools_of(before), tools_of(after)
    return [f'{name} {old[name]} -> {new[name]}' for name in sorted(old)
            if name in new and old[name] != new[name]]
