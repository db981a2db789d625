'''Tonight's series of nights, judged for step changes: every figure with a
declared direction, over the sessions of the history database, by
:func:`iogap.judge.changepoint.recent_step`. A step gets its own status
(``STEP``) in the summary and its own suite in the JUnit report, with
where it started, its size and what changed that night. A figure the
reference file declares judged for breakage only (``changepoints:``,
iogap.judge.breakage) is judged so, with the reason it gives.'''

import json
import re
import sqlite3
import statistics

from ci.nightly import provenance, steplines
from ci.nightly.junit import add_junit  # noqa: F401 (its JUnit suite)
from ci.nightly.verdict import final_cases
from iogap.judge import calibration, changepoint

_REPEAT = re.compile(r'\s*%\.?repeat_no=\d+')


#: Nights read back from tonight: enough for every candidate step and
#: for the threshold's calibration (calibration.MIN_NIGHTS before the
#: candidates; a year of full nights would be hundreds of MB of JSON)
KEPT = 3 * (changepoint.HISTORY + changepoint.WINDOW)
assert KEPT - changepoint.WINDOW >= calibration.MIN_NIGHTS


def night_of(uuid, pipeline):
    '''What makes a session's night: its pipeline (the jobs of a night
    split per partition are several sessions), else the session itself.'''
    return pipeline if pipeline and pipeline != 'local' else uuid


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


def sessions(db_path, uuid=None, kept=KEPT):
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


def what_changed(nights, before, after, case):
    '''What differs between two nights: session extras, the case's tool
    provider and the tools its job resolved on its node.'''
    (info_b, cases_b), (info_a, cases_a) = nights[before], nights[after]
    found = provenance.changes(info_b, info_a)
    old, new = (_case(c, case).get('tool_provider') for c in (cases_b,
                                                              cases_a))
    if old != new:
        found.append(f'tool {old} -> {new}')
    found += provenance.tool_changes(_case(cases_b, case), _case(cases_a,
                                                                 case))
    return '; '.join(found) or 'nothing recorded changed'


def _case(cases, case):
    return next((tc for tc in cases if case_of(tc) == case), {})


def judge(db_path, uuid=None, ref=None):
    '''``(lines, steps, cases)``: the summary's lines, the steps found in
    tonight's series, and ``[(name, status, message)]`` for JUnit. Tonight
    is session ``uuid`` (the newest when ``None``); the figures the
    reference file ``ref`` declares are judged for breakage only.'''
    from iogap.core import registry
    from iogap.judge import breakage
    try:
        nights = sessions(db_path, uuid)
    except (sqlite3.Error, OSError, ValueError, KeyError) as err:
        return [f'change points: history database {db_path} unreadable '
                f'({err}): not judged'], [], []
    if not nights:
        return [f'change points: tonight is not in {db_path}: not '
                f'judged'], [], []
    tonight = len(nights) - 1
    found, failed = series(nights)
    lines, steps, cases, short, gone = [], [], [], [], []
    ran = {(f'{tc["system"]}:{tc["partition"]}', case_of(tc))
           for tc in nights[tonight][1]}
    for (where, case, figure), points in sorted(found.items()):
        better = registry.better(case.split()[0], figure)
        if better is None:
            continue
        name = f'{case} @{where}: {figure}'
        if points[-1][0] != tonight:
            if (where, case) in ran and case not in failed.get(tonight, ()):
                gone.append(name)
            continue
        step, why = changepoint.recent_step(
            [v for _, v in points], better,
            breakage=breakage.declared(ref, where, case, figure))
        if step is None:
            (short if 'a step needs' in why else cases).append(
                (name, 'short' if 'a step needs' in why else 'steady', why))
            continue
        message = _where_from(nights, points, step, case)
        lines.append(f'STEP {name}: {message}')
        steps.append((name, step))
        cases.append((name, 'step', message))
    lines += steplines.notes(failed.get(tonight, ()), short, gone)
    rules, broken = steplines.rules(cases)
    count = len({night_of(i.get('uuid'), i.get('pipeline'))
                 for i, _ in nights})
    lines += rules + broken + [
        f'{"STEP" if steps else "STEADY"}: {len(steps)} step change(s) in '
        f'{len(cases)} figure(s) judged over {count} night(s) of {db_path}']
    return lines, steps, cases + short


def _where_from(nights, points, step, case):
    '''A step's size, the night it started and what changed then.'''
    start, before = points[step.start][0], points[step.start - 1][0]
    info = nights[start][0]
    return (f'{step.describe()}, from the night of '
            f'{info.get("time_start", "?")} (session '
            f'{str(info.get("uuid"))[:8]}); what changed that night: '
            f'{what_changed(nights, before, start, case)}')

