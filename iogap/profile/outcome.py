'''What a site's first baseline and night gave (python -m iogap.profile
onboard): the figures its reference file judges and those too noisy to
judge, the node-hours its jobs took, what its first night judged.'''

import json

import yaml


def judged(system, cases):
    '''``(judged figures, [unjudged (entry, reason)])`` of ``cases`` (the
    baseline's, :class:`iogap.plan.cases.Case`) in the reference file of
    ``system`` as re-baselining left it: their absolute entries.'''
    from iogap.judge import references
    with open(references.path_for(system)) as fp:
        data = yaml.safe_load(fp) or {}
    ran = {(c.family, c.partition) for c in cases}
    mine = lambda e: (e['test'], e['partition']) in ran
    return len([e for e in data.get('absolute') or [] if mine(e)]), [
        (f'{u["test"]} {u["partition"]} {u["var"]}', u['reason'])
        for u in data.get('unjudged') or [] if mine(u)]


def spent(report_path):
    '''Node-hours a run report's jobs took (:mod:`iogap.plan.ran`).'''
    from iogap.plan import ran
    return sum(r[1] for r in ran.measured(_read(report_path)).values())


def night_judged(report_path):
    '''What a night judged: figures, of how many judgements, and their
    results.'''
    cases = [tc for r in _read(report_path)['runs'] for tc in r['testcases']
             if 'judge' in (tc.get('tags') or [])]
    figures = sum(len(tc.get('perfvalues') or {}) for tc in cases
                  if tc['result'] in ('pass', 'fail'))
    results = [tc['result'] for tc in cases]
    return (f'{figures} figure(s) judged by {len(cases)} judgement(s): ' +
            ', '.join(f'{results.count(r)} {r}' for r in sorted(set(results))))


def _read(path):
    with open(path) as fp:
        return json.load(fp)
