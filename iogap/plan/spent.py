'''What a night cost, measured from its run report, and the plan it ran.'''

from iogap.history.runreport import measured, read_report


def render(path):
    '''The measured cost of the run report ``path``, as a table.'''
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
