'''The top of the page: each system's newest night judged as the nightly
judges it, then what failed or regressed, with its series of nights.'''

from iogap.history.runreport import final_cases
from iogap.judge import references, verdict

#: The verdict's words, as the summary's last line starts
STATUSES = ('GREEN', 'RED', 'NOT JUDGED', 'UNDER-JUDGED')

#: Lines of the summary that name something wrong, in the page's order
PROBLEMS = ('REGRESSED', 'FAILED', 'STEP', 'GONE', 'TOOL VANISHED',
            'SKIPPED')


def night_report(sessions):
    '''One night's sessions (split per partition) as one run report.'''
    newest = max(sessions, key=lambda s: s.start)
    return {'session_info': newest.info,
            'runs': [run for s in sorted(sessions, key=lambda s: s.start)
                     for run in (s.report or {}).get('runs', [])]}


def judged(ctx):
    '''Each system's newest night, judged: one dict each.'''
    found = []
    for system in sorted({r.system for r in ctx.rows}):
        sessions = sorted({r.session for r in ctx.rows
                           if r.system == system}, key=lambda s: s.start)
        if sessions[-1].study_example:
            continue      # the study's figures: nothing ran to judge
        report = night_report(sessions)
        lines, status = verdict.of_report(
            report, ', '.join(s.source for s in sessions), None,
            references.path_for(system))
        if ctx.db:
            lines, status, _, _ = verdict.across_nights(
                lines, status, ctx.db, sessions[-1].uuid, system)
        found.append({
            'system': system, 'when': sessions[-1].when,
            'sessions': [s.uuid[:8] for s in sessions],
            'partitions': sorted({tc['partition'] for tc in
                                  final_cases(report)}),
            'status': next(w for w in STATUSES if lines[-1].startswith(w)),
            'lines': lines,
            'problems': [_problem(line, ctx, system) for line in lines
                         if line.startswith(PROBLEMS)],
            'across': bool(ctx.db)})
    return found


def _problem(line, ctx, system):
    '''A summary line, with the series of nights of the figure it names
    (``<case> @<where>: <figure>``) if it names one.'''
    kind, _, rest = line.partition(' ')
    series = []
    if ' @' in rest and ': ' in rest:
        case, _, where = rest.partition(' @')
        where, _, figure = where.partition(': ')
        figure = figure.split(' ')[0]
        partition = where.split(':')[-1].split('+')[0]
        points = {}
        for r in ctx.history:
            if r.system == system and r.partition == partition and \
                    r.figure == figure and r.case == case:
                points.setdefault(r.session.start, r.value)
        series = [points[k] for k in sorted(points)]
    return {'kind': kind, 'text': rest, 'series': series}
