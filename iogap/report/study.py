'''The study's published figures, as ``reference/cori.yaml`` records them
with their provenance: the "study" marker on a Cori run's bars, and
:func:`example_report`, a run report of them (Cori was retired in 2023).'''

import os

import yaml

from iogap.core import registry
from iogap.history.load import InputError
from iogap.judge import references

SYSTEM = 'cori'
SOURCE = ("Liu et al., 'Understanding the IO Performance Gap Between Cori "
          "KNL and Haswell', CUG 2017, and NERSC 'Optimizing IO on KNL', as "
          "recorded in reference/cori.yaml (see docs/study.md)")


def entries(path=None):
    '''The Cori reference file as a dict (empty lists when absent).'''
    path = path or references.path_for(SYSTEM)
    try:
        with open(path) as fp:
            data = yaml.safe_load(fp) or {}
    except (OSError, yaml.YAMLError) as err:
        raise InputError(f'{path}: cannot read the study figures ({err})')
    return {k: data.get(k) or [] for k in ('absolute', 'ratios', 'fits')}


def _checked(entry):
    '''Why an absolute entry names no figure a family reports, or None.'''
    cls = registry.get(entry['test'])
    if cls is None:
        return f'{entry["test"]} is not a test family'
    if cls.figures.find(entry['var']) is None:
        return f'{entry["test"]} reports no figure {entry["var"]}'
    return None


def values(system, path=None):
    '''``[(family, partition, {param: str}, figure, value, provenance)]``
    of the study, for Cori only.'''
    if system != SYSTEM:
        return []
    return [(e['test'], e['partition'],
             {k: str(v) for k, v in (e.get('params') or {}).items()},
             e['var'], e['ref'][0], e['provenance'])
            for e in entries(path)['absolute'] if _checked(e) is None]


def _full(family, params):
    cls = registry.get(family)
    full = {k: v[0] for k in cls.param_space.params if not k.startswith('.')
            for v in [registry.param_values(cls, k)] if v}
    return {**full, **params}


def _case(name, part, params, perf, method='', **extra):
    shown = ' '.join([name] + [f'%{k}={v}' for k, v in params.items()])
    return {'name': shown, 'display_name': shown, 'system': SYSTEM,
            'partition': part, 'result': 'pass', 'fixture': False,
            'method': method, 'perfvalues': perf, **params, **extra}


def example_report(path=None):
    '''A run report of Cori whose every value is a published figure of the
    study; its session names the entries it could not place.'''
    path = path or references.path_for(SYSTEM)
    data = entries(path)
    cases, skipped, measured = [], [], {}
    for e in data['absolute']:
        reason = _checked(e)
        if reason:
            skipped.append(f'{e["test"]}@{e["partition"]} {e["var"]}: '
                           f'{reason}')
            continue
        params = _full(e['test'], e.get('params') or {})
        key = (e['test'], e['partition'], tuple(sorted(params.items())))
        measured.setdefault(key, []).append(e)
    for (family, part, params), found in measured.items():
        params = dict(params)
        cases.append(_case(family, part, params, {
            f'{SYSTEM}:{part}:{e["var"]}': [e['ref'][0], 0, None, None,
                                            e['unit'], 'pass']
            for e in found}))
        target = f'{family}@{part}:' + ','.join(
            f'{k}={v}' for k, v in sorted(params.items()))
        cases.append(_case('AbsoluteCheck', part, {'target': target}, {
            f'{SYSTEM}:{part}:{e["var"]}': [e['ref'][0], *e['ref'],
                                            e['unit'], 'pass']
            for e in found}, '; '.join(e['provenance'] for e in found)))
    for kind, family in (('ratios', 'RatioCheck'), ('fits', 'FitCheck')):
        for e in data[kind]:
            part = e['numerator']['partition'] if kind == 'ratios' \
                else e['partition']
            cases.append(_case(family, part, {kind[:-1]: e['name']}, {
                f'{SYSTEM}:{part}:{e["name"]}': [e['ref'][0], *e['ref'],
                                                 e['unit'], 'pass']},
                e['provenance']))
    info = {'uuid': 'cug17-study-figures', 'hostname': "CUG'17 study",
            'time_start': '20170510T000000+0000',
            'time_start_unix': 1494374400.0, 'num_cases': len(cases),
            'num_failures': 0, 'num_skipped': 0, 'study_example': True,
            'cmdline': 'iogap report --study-example',
            'source': os.path.relpath(path),
            'study_source': SOURCE, 'study_unplaced': skipped}
    return {'session_info': info, 'restored_cases': [],
            'runs': [{'run_index': 0, 'num_cases': len(cases),
                      'num_failures': 0, 'testcases': cases}]}
