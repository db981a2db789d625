'''What a re-baseline may change, and what it did, figure by figure: a
figure that failed its reference in the runs (a regression) is never
re-baselined; an ``unjudged`` entry the runs did not measure is kept.'''

import json

from iogap.core import registry
from iogap.judge.coverage import target_of
from iogap.judge.meaning import entry_key

#: Judgements whose figures are a measured case's (the rest: by name)
_ABSOLUTE = 'AbsoluteCheck'


def _norm(family, part, params, var):
    '''A figure's key, its parameter values as text (as in a case's name).'''
    if isinstance(params, str):
        params = json.loads(params)
    return (family, part, tuple(sorted((k, str(v)) for k, v in
                                       params.items())), var)


def failed(reports):
    '''``(figures, judgements)`` that failed a reference in any run, by
    normalised key and by display name, each with what is said of it.'''
    figures, judgements = {}, {}
    for report in reports:
        for run in report['runs']:
            for tc in run['testcases']:
                for key, (value, ref, *_, unit, result) in \
                        (tc.get('perfvalues') or {}).items():
                    if result != 'fail':
                        continue
                    var = key.rsplit(':', 1)[-1]
                    found = figures if tc['name'].startswith(_ABSOLUTE) \
                        else judgements
                    key = _norm(*target_of(tc.get('judgement', '')), var) \
                        if found is figures else \
                        tc['display_name'].split(' %.')[0]
                    found.setdefault(key, [unit, ref, []])[2].append(value)
    said = {k: f'failed tonight: {", ".join(f"{v:.4g}" for v in values)} '
            f'{unit} against {ref:.4g}'
            for k, (unit, ref, values) in {**figures, **judgements}.items()}
    return ({k: said[k] for k in figures},
            {k: said[k] for k in judgements})


def without(reports, figures, judgements):
    '''The reports with every failed figure's values left out.'''
    kept = []
    for report in reports:
        report = json.loads(json.dumps(report))
        for run in report['runs']:
            for tc in run['testcases']:
                if tc['display_name'].split(' %.')[0] in judgements:
                    tc['perfvalues'] = {}
                    continue
                family = tc['name'].split()[0]
                params = {k: tc[k] for k in tc if k in _params_of(family)}
                tc['perfvalues'] = {
                    k: v for k, v in (tc.get('perfvalues') or {}).items()
                    if _norm(family, tc.get('partition'), params,
                             k.rsplit(':', 1)[-1]) not in figures}
        kept.append(report)
    return kept


def _params_of(family):
    cls = registry.get(family)
    return [p for p in cls.param_space.params if not p.startswith('.')] \
        if cls else []


def merge_unjudged(before, tonight, measured):
    '''Tonight's ``unjudged`` and the earlier ones the runs did not measure.'''
    keys = {_norm(*k) for k in measured}
    return [e for e in before if _norm(*entry_key(e)) not in keys] + tonight


def _label(entry):
    params = ','.join(f'{k}={v}' for k, v in
                      sorted((entry.get('params') or {}).items()))
    return (f'{entry["test"]}@{entry["partition"]}:{params} '
            f'{entry["var"]}') if 'test' in entry else entry['name']


def _band(entry):
    ref, lower, upper = entry['ref']
    sides = '/'.join(f'{b:+.0%}' for b in (lower, upper) if b is not None)
    return f'{ref:.4g} {entry.get("unit", "")} ({sides or "no band"})'


def _entries(data):
    found = {}
    for kind in ('absolute', 'ratios'):
        for e in data.get(kind) or []:
            found[(kind, _norm(*entry_key(e)) if kind == 'absolute'
                   else e['name'])] = e
    return found


def _why(entry):
    '''The spread an entry's band was set from.'''
    noise = entry.get('noise') or {}
    if 'cv' in noise and 'runs' in noise:
        return f'spread {noise["cv"]:.1%} over {noise["runs"]} run(s)'
    return f'as its provenance says ({entry.get("provenance", "none")})'


def explain(old, new, kept_failed):
    '''``[line]``: each figure the new file changes, and why; each failed
    figure kept as it was (``kept_failed``: :func:`failed`'s).'''
    lines = []
    before, after = _entries(old), _entries(new)
    for key, entry in after.items():
        was = before.get(key)
        why = _why(entry)
        if was is None:
            lines.append(f'ADD {_label(entry)}: {_band(entry)}, {why}')
        elif was != entry:
            lines.append(f'CHANGE {_label(entry)}: {_band(was)} -> '
                         f'{_band(entry)}, {why}')
    moved = {_norm(*entry_key(e)): e for e in new.get('unjudged') or []}
    old_unjudged = {_norm(*entry_key(e)) for e in old.get('unjudged') or []}
    for key, entry in moved.items():
        if key not in old_unjudged:
            lines.append(f'UNJUDGED {_label(entry)}: {entry.get("reason")}')
    for key, entry in before.items():
        if key not in after and key[1] not in moved:
            lines.append(f'REMOVE {_label(entry)}: no longer judged')
    figures, judgements = kept_failed
    for key, said in {**figures, **judgements}.items():
        name = key if isinstance(key, str) else \
            f'{key[0]}@{key[1]}:{",".join(f"{k}={v}" for k, v in key[2])} ' \
            f'{key[3]}'
        lines.append(f'KEPT {name}: {said}; a regression is never '
                     f're-baselined (edit the file by hand to accept it)')
    return lines
