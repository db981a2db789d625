'''Each case's wall times and the nights it ran on, from the results
database, for the plan's cost and rotation.'''

from iogap.history.load import InputError, read_db

#: What ReFrame's --distribute adds to a case's display name: its node
SWEPT = ' %.nid='


def _testcases(db_path, system):
    '''``(night, testcase)`` of every completed measured case of
    ``system``, oldest first; a node sweep's runs are not the plan's.'''
    try:
        sessions = read_db(db_path) if db_path else []
    except InputError:
        return
    for session in sessions:
        info = session['session_info']
        planned = str(info.get('plan_night', ''))
        night = int(planned) if planned.isdigit() else \
            int(info.get('time_start_unix', 0) // 86400)
        for run in session['runs']:
            for tc in run['testcases']:
                if tc.get('system') == system and not tc.get('fixture') \
                        and tc.get('result') in ('pass', 'fail') and \
                        SWEPT not in tc.get('display_name', ''):
                    yield night, tc


def measured(db_path, system):
    '''``{(display name, partition): [wall seconds]}``, oldest first.'''
    found = {}
    for _, tc in _testcases(db_path, system):
        start, end = tc.get('job_submit_time'), \
            tc.get('job_completion_time_unix')
        if start and end and end > start:
            found.setdefault((tc['name'], tc['partition']),
                             []).append(end - start)
    return found


def nights_ran(db_path, system):
    '''``{(display name, partition): {night, ...}}`` each case ran on.'''
    found = {}
    for night, tc in _testcases(db_path, system):
        found.setdefault((tc['name'], tc['partition']), set()).add(night)
    return found
