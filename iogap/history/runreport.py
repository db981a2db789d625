'''A ReFrame run report read from its file, or one clear error saying why
the file is not one.'''

import json

from iogap.history.rows import InputError


def read_report(path):
    '''The run report in ``path``; anything else is one clear error.'''
    try:
        with open(path) as fp:
            text = fp.read()
    except OSError as err:
        raise InputError(f'{path}: {err.strerror}') from None
    except UnicodeDecodeError:
        raise InputError(f'{path}: not a text file, not a ReFrame run '
                         f'report') from None
    if not text.strip():
        raise InputError(f'{path}: empty file, not a ReFrame run report')
    try:
        report = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f'{path}: not JSON ({err.msg}, line {err.lineno}), '
                         f'not a ReFrame run report') from None
    check_report(report, path)
    return report


def check_report(report, source):
    if not (isinstance(report, dict) and
            isinstance(report.get('session_info'), dict) and
            isinstance(report.get('runs'), list) and
            all(isinstance(r, dict) and isinstance(r.get('testcases'), list)
                for r in report['runs'])):
        raise InputError(f'{source}: JSON, but not a ReFrame run report '
                         f'(needs session_info and runs[*].testcases)')


def final_cases(report):
    '''Every case once, as the last run (after retries) left it.'''
    cases = {}
    for run in report['runs']:
        for tc in run['testcases']:
            cases[tc['name'], tc['system'], tc['partition'],
                  tc.get('environ')] = tc
    return list(cases.values())


def measured(report):
    '''``{partition: [jobs, node-hours, job seconds]}`` of a run report,
    from submission to completion (queue wait included).'''
    out = {}
    for run in report['runs']:
        for tc in run['testcases']:
            start, end = tc.get('job_submit_time'), \
                tc.get('job_completion_time_unix')
            # judgements run locally, on no node of the partition
            if tc.get('fixture') or 'judge' in (tc.get('tags') or []) or \
                    not start or not end:
                continue
            nodes = len(tc.get('job_nodelist') or []) or 1
            row = out.setdefault(tc['partition'], [0, 0.0, 0.0])
            row[0] += 1
            row[1] += nodes * (end - start) / 3600
            row[2] += end - start
    return out
