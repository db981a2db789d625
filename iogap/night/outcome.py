'''What a site's first baseline and night gave (iogap profile
onboard): the figures its reference file judges and those too noisy to
judge, the node-hours its jobs took, what its first night judged.'''

import yaml

from iogap.errors import IogapError
from iogap.history.load import read_report
from iogap.judge import coverage, references
from iogap.plan import spent as ran


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
    '''Node-hours a run report's jobs took (:mod:`iogap.plan.spent`).'''
    return sum(r[1] for r in ran.measured(read_report(report_path)).values())


def night_judged(report_path, system):
    '''What a night judged, as the nightly says it: the figures of the
    reference file its judgements gave a verdict (:mod:`iogap.judge.coverage`).'''
    cases = [tc for r in read_report(report_path)['runs']
             for tc in r['testcases']]
    return coverage.measure(coverage.readings(cases), _reference(system),
                            share=True).line()


def night_verdict(status, report_path, system):
    '''What the first judged night judged; a night that failed (reframe's
    exit ``status``) is an error naming its failed cases, as the nightly's
    RED is: the onboarding's exit says it, not only a line of its output.'''
    line = night_judged(report_path, system)
    if status:
        failed = sorted({tc.get('judgement') or tc['name'].split()[0]
                         for r in read_report(report_path)['runs']
                         for tc in r['testcases'] if tc['result'] == 'fail'})
        raise IogapError(
            f'the first judged night failed (reframe exit {status}): '
            f'{", ".join(failed) or "no case failed: see its output"}; '
            f'{line}; the baseline and its references are kept, the report '
            f'is {report_path}')
    return line
