'''A site's first baseline (iogap profile onboard): its price, from the
planner's model (:mod:`iogap.plan.cost`) at each size of dd's ladder and
each number of runs, the point a budget buys and the further runs the rest
of it buys; then what it gave: the figures its reference file judges and
those too noisy to judge, the node-hours its jobs took, what its first
night judged.'''

import re

import yaml

from iogap.errors import IogapError
from iogap.history.runreport import measured, read_report
from iogap.judge import coverage, references
from iogap.plan import cost

#: The first baseline's cases by default: the plain variants of the direct
#: dd (the study's steadiest figures) and of the OSU latency
PLAIN = '(?=.*%core_spec=0)(?=.*%cpu_bind=default)'
SELECT = (f'^DDSingleStream(?=.*%mode=direct)(?=.*%darshan=off){PLAIN}',
          f'^OSULatency{PLAIN}')

#: dd counts tried (blocks of the profile's dd_block_size), never above
#: the profile's own dd_count
COUNTS = (16, 64, 256, 1024)

#: Runs of every case (ReFrame's --repeat): the noise model needs 3
REPEATS = (3, 5)

#: Runs a further round gives the cases whose figures are still too noisy
#: (pooled with the runs before), and the rounds at most
MORE_RUNS, ROUNDS = (2, 3, 5), 3


def matching(found, patterns):
    '''The cases ReFrame's ``-n`` selects: a regular expression searched
    in the display name with its spaces removed.'''
    return {k: c for k, c in found.items() if any(
        re.search(p, c.name.replace(' ', '')) for p in patterns)}


def ladder(cases, most, history=None):
    '''``[(count, repeat, node-hours, seconds, bytes written)]`` of the
    baseline at each dd count up to ``most`` and each number of runs,
    calibrated on the ``history`` of runs at the profile's own.'''
    points = []
    for count in sorted({c for c in COUNTS if c < most} | {most}):
        row = [0.0, 0.0, 0]
        for one in cost.resized(cases, {'dd_count': count},
                                history).values():
            row = [row[0] + one.node_hours, row[1] + one.seconds,
                   row[2] + one.written]
        points += [(count, r, r * row[0], r * row[1], r * row[2])
                   for r in REPEATS]
    return points


def choose(points, budget):
    '''The largest count, then the most runs, within ``budget``.'''
    fits = [p for p in points if p[2] <= budget]
    if not fits:
        cheapest = min(points, key=lambda p: p[2])
        raise IogapError(f'the smallest baseline ({describe(cheapest)}) '
                         f'exceeds the budget of {budget:g} node-hours: give '
                         f'--budget {cheapest[2]:.2g} or more, or --select '
                         f'fewer cases')
    return max(fits, key=lambda p: (p[0], p[1]))


def describe(point):
    count, repeat, hours, seconds, written = point
    return (f'dd count={count}, {repeat} runs: {hours:.3g} node-hours, '
            f'{seconds / 60:.1f} min serial, {written / 1e9:.3g} GB written')


def more_runs(cases, count, left, history=None):
    '''The most runs of ``MORE_RUNS`` of ``cases`` at dd ``count`` that
    ``left`` node-hours buy at what their runs took (``history``), with
    their cost, or ``(0, cost of the fewest)``.'''
    one = sum(c.node_hours for c in cost.costs(
        cases, extras={'dd_count': count}, history=history).values())
    fits = [r for r in MORE_RUNS if r * one <= left]
    return (fits[-1], fits[-1] * one) if fits else (0, MORE_RUNS[0] * one)


def _reference(system):
    with open(references.path_for(system)) as fp:
        return yaml.safe_load(fp) or {}


def judged(system, cases):
    '''``(judged figures, [unjudged (entry, reason)])`` of ``cases`` (the
    baseline's, :class:`iogap.plan.inventory.Case`) in the reference file of
    ``system`` as re-baselining left it: their absolute entries.'''
    data = _reference(system)
    ran = {(c.family, c.partition) for c in cases}
    mine = lambda e: (e['test'], e['partition']) in ran
    return len([e for e in data.get('absolute') or [] if mine(e)]), [
        (f'{u["test"]} {u["partition"]} {u["var"]}', u['reason'])
        for u in data.get('unjudged') or [] if mine(u)]


def too_noisy(system, cases):
    '''``{key: Case}`` of ``cases`` with a figure the reference file of
    ``system`` leaves unjudged as too noisy (its test, partition and
    parameters are the case's).'''
    noisy = [u for u in _reference(system).get('unjudged') or []
             if 'too noisy' in u.get('reason', '')]
    params = lambda case: set(case.name.split(' %')[1:])
    return {key: case for key, case in cases.items() if any(
        (u['test'], u['partition']) == (case.family, case.partition) and
        {f'{k}={v}' for k, v in (u.get('params') or {}).items()} <=
        params(case) for u in noisy)}


def spent(report_path):
    '''Node-hours a run report's jobs took.'''
    return sum(r[1] for r in measured(read_report(report_path)).values())


def night_verdict(status, report_path, system):
    '''What the first judged night judged, as the nightly says it (the
    figures of the reference file its judgements gave a verdict,
    :mod:`iogap.judge.coverage`); a night that failed (reframe's exit
    ``status``) is an error naming its failed cases, as the nightly's RED
    is: the onboarding's exit says it, not only a line of its output.'''
    cases = [tc for r in read_report(report_path)['runs']
             for tc in r['testcases']]
    line = coverage.measure(coverage.readings(cases), _reference(system),
                            share=True).line()
    if status:
        failed = sorted({tc.get('judgement') or tc['name'].split()[0]
                         for tc in cases if tc['result'] == 'fail'})
        raise IogapError(
            f'the first judged night failed (reframe exit {status}): '
            f'{", ".join(failed) or "no case failed: see its output"}; '
            f'{line}; the baseline and its references are kept, the report '
            f'is {report_path}')
    return line
