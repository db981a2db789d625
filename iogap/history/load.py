'''Run reports and results-database sessions (stored as run reports) as
one flat table of figures, a :class:`Row` each.'''

import json
import math
import os
import pathlib
import re
import sqlite3
import statistics

from iogap.history.rows import (
    DB_SCHEMA,
    JUDGEMENTS,  # noqa: F401
    NOT_APPLICABLE,
    InputError,
    Row,
    Session,
)
from iogap.history.runreport import check_report, measured, read_report

_PARAM = re.compile(r'%([\w.]+)=(\S+)')


def read_db(path):
    '''Every session of a results database, oldest first; read-only, as
    ReFrame's storage backend would create indexes and a lock file.'''
    if not os.path.isfile(path):
        raise InputError(f'{path}: no such results database')
    uri = pathlib.Path(path).resolve().as_uri() + '?mode=ro'
    try:
        with sqlite3.connect(uri, uri=True) as conn:
            version = conn.execute('SELECT schema_version FROM metadata'
                                   ).fetchone()
            blobs = conn.execute('SELECT json_blob FROM sessions ORDER BY '
                                 'session_start_unix').fetchall()
    except sqlite3.DatabaseError as err:
        raise InputError(f'{path}: not a ReFrame results database '
                         f'({err})') from None
    if not version or version[0] != DB_SCHEMA:
        raise InputError(f'{path}: results database schema '
                         f'{version and version[0]}, expected {DB_SCHEMA}')
    reports = []
    for (blob,) in blobs:
        try:
            report = json.loads(blob)
        except (TypeError, json.JSONDecodeError):
            raise InputError(f'{path}: a session is not a JSON run '
                             f'report') from None
        check_report(report, path)
        reports.append(report)
    return reports


def session_of(report, source):
    info = report['session_info']
    return Session(str(info.get('uuid') or source),
                   float(info.get('time_start_unix') or 0), source, info,
                   measured(report), report)


def rows_of(report, session):
    '''The rows of every non-fixture test case of ``report``.'''
    rows = []
    for run in report['runs']:
        for tc in run['testcases']:
            if tc.get('fixture') or not tc.get('name'):
                continue
            name = tc.get('display_name') or tc['name']
            params = {k: _typed(tc.get(k), v) for k, v in _PARAM.findall(name)
                      if not k.startswith('.')}
            if tc.get('not_applicable') and tc.get('result') == 'skip':
                # a judgement not applicable here: a row with no value
                rows.append(Row(
                    session, tc.get('system'), tc.get('partition'),
                    name.split()[0], name, params, 'skip',
                    tc.get('judgement') or name, math.nan, '', 0.0,
                    verdict=NOT_APPLICABLE,
                    method=tc['not_applicable']))
            for key, pv in (tc.get('perfvalues') or {}).items():
                if not isinstance(pv, list) or len(pv) < 5 or \
                        not _numbers(pv[:2]):
                    continue    # a figure that failed to evaluate
                system, part, figure = (key.split(':', 2) + ['', ''])[:3]
                rows.append(Row(
                    session, tc.get('system') or system,
                    tc.get('partition') or part, name.split()[0], name,
                    params, tc.get('result'), figure, float(pv[0]), pv[4],
                    float(pv[1] or 0), pv[2], pv[3],
                    pv[5] if len(pv) > 5 else None, tc.get('method') or '',
                    tc.get('false_alarms')))
    return rows


def _numbers(values):
    return all(isinstance(v, (int, float)) or v is None for v in values) \
        and values[0] is not None


def _typed(value, shown):
    # the report's own value where it is a plain one, else the name shown
    return value if isinstance(value, (int, float, str)) and \
        str(value) == shown else shown


def load(paths=(), db=None, reports=()):
    '''``(sessions, rows)`` of report files, a database and reports.'''
    sources = [(read_report(p), p) for p in paths]
    if db:
        sources += [(r, db) for r in read_db(db)]
    sources += [(r, r['session_info'].get('source', 'built in'))
                for r in reports]
    sessions, rows = {}, []
    for report, source in sources:
        session = session_of(report, source)
        if session.uuid not in sessions:    # one in several inputs
            sessions[session.uuid] = session
            rows += rows_of(report, session)
    return sorted(sessions.values(), key=lambda s: s.start), rows


def latest(rows):
    '''Rows of the newest night of each system: every session of it (a
    night split per partition is one session a partition).'''
    newest = {}
    for row in rows:
        best = newest.get(row.system)
        if best is None or row.session.start > best.start:
            newest[row.system] = row.session
    return [r for r in rows if newest[r.system].night == r.session.night]


def median(rows):
    '''The median value of repeated cases (``--repeat``).'''
    return statistics.median(r.value for r in rows)
