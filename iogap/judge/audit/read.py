'''What a judgement's audit reads from the reference file: each figure's
noise, a fit's points, the cases each absolute entry judges.'''

import fnmatch
from collections import Counter

from iogap.core import registry
from iogap.core.cases import runs_on
from iogap.errors import ReferenceFileError
from iogap.judge import schema
from iogap.judge.meaning import most_specific


class Unknown(ReferenceFileError):
    '''A judgement whose noise no entry or default gives.'''


def figure_noise(ref, test, partition, params, var):
    '''``(cv, source)`` of one figure of one case.'''
    for entry in ref.data['absolute']:
        cv = (entry.get('noise') or {}).get('cv')
        if cv is not None and matches(entry, test, partition, params) and \
                entry['var'] == var:
            return cv, entry['noise'].get('source') or entry['provenance']
    for default in ref.data.get('noise') or []:
        if matches(default, test, partition, params) and \
                fnmatch.fnmatchcase(var, default['var']):
            return default['cv'], default['source']
    raise Unknown(f'no noise known for {test} {var} on {partition} with '
                  f'{params}: give the entry noise: {{cv: , source: }} or '
                  f'a default under noise:')


def matches(item, test, partition, params):
    '''Whether an entry or a default (its test a glob) selects a case.'''
    given = item.get('params') or {}
    return fnmatch.fnmatchcase(test, item.get('test', '*')) and \
        item.get('partition', partition) == partition and \
        all(params.get(k) == v for k, v in given.items())


def side_params(side):
    '''The full parameters of a ratio's side (its defaults filled).'''
    return registry.full_params(registry.get(side['test']),
                                side.get('params') or {})


def direction(test, var):
    '''A figure's declared better direction.'''
    return registry.get(test).figures.find(var).better


def fit_points(ref, entry):
    '''``(xs, [params])`` of the points a fit reads on its partition.'''
    cls = registry.get(entry['test'])
    part = ref.partitions[entry['partition']].detectable()
    _, factor = schema.AXES[entry['over']]
    points = []
    for value in registry.param_values(cls, entry['over']):
        params = registry.full_params(
            cls, {**(entry.get('params') or {}), entry['over']: value})
        if runs_on(cls, params, part):
            points.append((value * factor, params))
    return [x for x, _ in points], [p for _, p in points]


def absolute_cases(ref):
    '''``{id(entry): cases judged}``: the most specific entry wins a case.'''
    winner = most_specific(ref.data['absolute'], lambda e: ref.partitions[
        e['partition']].detectable())
    return dict(Counter(id(entry) for entry in winner.values()))
