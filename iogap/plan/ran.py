'''What a night cost, measured: from its run report (or the results
database's copy of it), per partition the cases that ran a job, their
node-hours (nodes of the job's node list times submission to completion,
queue wait included unless the run was serial) and the jobs' wall time;
and the plan it ran, where the session records one.'''

from iogap.report.runreport import read_report


def measured(report):
    '''``{partition: [jobs, node-hours, job seconds]}`` of a run report.'''
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


def render(path):
    # one line for a report that is not one (iogap.report's reader)
    report = read_report(path)
    info = report['session_info']
    lines = [f'{path}: session {info.get("uuid")}, '
             f'{info.get("time_elapsed", 0):.0f} s',
             '| partition | jobs | node-hours | job seconds |',
             '|---|---|---|---|']
    for part, (jobs, hours, secs) in sorted(measured(report).items()):
        lines.append(f'| {part} | {jobs} | {hours:.3f} | {secs:.0f} |')
    if 'plan_digest' in info:
        lines.append(f'plan: night {info.get("plan_night")} of a rotation '
                     f'of {info.get("plan_rotation")}, digest '
                     f'{info["plan_digest"]}')
    else:
        lines.append('plan: none (the whole selection ran)')
    return '\n'.join(lines)
