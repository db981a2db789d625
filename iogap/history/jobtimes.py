'''What the results database (ReFrame's, :mod:`iogap.history.resultsdb`) says of
the cases that ran before: each one's wall times, and the nights it ran
on, as the plan's cost and rotation read them.'''

import json
import sqlite3
from contextlib import closing

#: What ReFrame's --distribute adds to a case's display name: its node
SWEPT = ' %.nid='


def _testcases(db_path, system):
    '''``(night, testcase)`` of every measured case of ``system`` that
    completed in the results database, oldest session first. A session's
    night is the plan's it ran (``plan_night``), else the day it started
    (days since 1970-01-01 UTC, the plan's calendar). A node sweep's runs
    (``reframe --distribute``: a case pinned to each node, its node in
    its display name) are not the case's as the plan runs it: left out.'''
    try:
        with closing(sqlite3.connect(f'file:{db_path}?mode=ro',
                                     uri=True)) as conn:
            rows = conn.execute('SELECT json_blob FROM sessions ORDER BY '
                                'session_start_unix').fetchall()
    except sqlite3.Error:
        return
    for (blob,) in rows:
        session = json.loads(blob)
        info = session.get('session_info', {})
        planned = str(info.get('plan_night', ''))
        night = int(planned) if planned.isdigit() else \
            int(info.get('time_start_unix', 0) // 86400)
        for run in session.get('runs', []):
            for tc in run['testcases']:
                if tc.get('system') == system and not tc.get('fixture') \
                        and tc.get('result') in ('pass', 'fail') and \
                        SWEPT not in tc.get('display_name', ''):
                    yield night, tc


def measured(db_path, system):
    '''``{(display name, partition): [wall seconds, ...]}`` of every case
    of ``system`` that completed in the results database, oldest first.'''
    found = {}
    for _, tc in _testcases(db_path, system):
        start, end = tc.get('job_submit_time'), \
            tc.get('job_completion_time_unix')
        wall = end - start if start and end else None
        if wall and wall > 0:
            found.setdefault((tc['name'], tc['partition']), []).append(wall)
    return found


def nights_ran(db_path, system):
    '''``{(display name, partition): {night, ...}}``: the nights each case
    of ``system`` ran on (passed or failed), from the results database.'''
    found = {}
    for night, tc in _testcases(db_path, system) if db_path else ():
        found.setdefault((tc['name'], tc['partition']), set()).add(night)
    return found
