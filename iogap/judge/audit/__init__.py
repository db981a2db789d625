'''False alarms and detection of every judgement, from the noise it assumes:
a healthy night's value is its expected value times log-normal noise (the
spread between nights), a ratio's adding both sides'; :func:`enforce`
refuses a file over its budget at the stress unless a waiver says why.'''

import math
import os

import yaml

from iogap.judge import effects, sides
from iogap.judge.audit import model
from iogap.judge.audit.read import (
    Unknown,
    absolute_cases,
    direction,
    figure_noise,
    fit_points,
    side_params,
)

#: The project's default budget (a file's ``budget:`` overrides it)
with open(os.path.join(os.path.dirname(__file__), 'budget.yaml')) as _fp:
    BUDGET = yaml.safe_load(_fp)


def budget(ref):
    return {**BUDGET, **(ref.data.get('budget') or {})}


class Row:
    '''One judgement's audit: false alarms per night at the assumed noise
    and at the stress; ``detects``: ``(d, what)``, the smallest regression
    of its figures that fails it 9 nights in 10, or ``None``.'''

    def __init__(self, kind, index, entry, name, cases, noise, source,
                 rates, detects):
        self.kind, self.index, self.entry, self.name = kind, index, entry, name
        self.cases, self.noise, self.source = cases, noise, source
        self.rate, self.stress_rate = rates
        self.detects = detects


def rows(ref):
    '''The audit of every judgement of a checked reference file.'''
    power = (budget(ref)['power'], budget(ref)['stress'])
    counts = absolute_cases(ref)
    out = []
    for kind, audit_one in (('absolute', _absolute), ('ratios', _ratio),
                            ('fits', _fit)):
        for i, entry in enumerate(ref.data[kind]):
            try:
                out.append(audit_one(ref, i, entry, power, counts))
            except Unknown as err:
                raise Unknown(str(err), [kind, i]) from None
    ratios = {r.name: r for r in out if r.kind == 'ratios'}
    for i, entry in enumerate(ref.data.get('effects') or []):
        out.append(_effect(ref, i, entry, ratios))
    return out


def _effect(ref, i, entry, ratios):
    '''An effect's rates, and the nights that catch its loss 9 in 10.'''
    limits = budget(ref)
    noise = entry.get('noise') or {}
    if 'cv' in noise:
        cv, source = noise['cv'], noise.get('source') or entry['provenance']
    else:
        rows = [ratios[entry[k]] for k in ('ratio', 'over') if k in entry]
        cv = math.hypot(*(r.noise for r in rows))
        source = 'its ratios\' noise, added'
    alpha, stress = limits['effect'], limits['stress']
    # caught 9 in 10 at the stress, as the false alarms are held there
    rates, caught = effects.rates(entry, cv, alpha, stress, stress)
    need = [effects.nights_needed(entry, cv, alpha, stress, at)
            for at in (1.0, stress)]
    detects = None if caught < limits['power'] else (
        need[1], f'{need[0]} at the assumed noise; {caught:.0%} caught at '
        f'{entry["nights"]} nights at {stress:g}x')
    return Row('effects', i, entry, entry['name'], 1, cv, source, rates,
               detects)


def _absolute(ref, i, entry, power, counts):
    full = entry.get('params') or {}
    noise = entry.get('noise') or {}
    cv, source = (noise['cv'], noise.get('source') or
                  entry['provenance']) if 'cv' in noise else \
        figure_noise(ref, entry['test'], entry['partition'], full,
                     entry['var'])
    better = direction(entry['test'], entry['var'])
    rates, det = model.lognormal(
        entry, noise.get('expected', entry['ref'][0]), cv,
        [(entry['var'], better, 1)], *power)
    name = f'{entry["test"]} {entry["partition"]} ' + ' '.join(
        f'{k}={v}' for k, v in full.items()) + f' {entry["var"]}'
    return Row('absolute', i, entry, name, counts.get(id(entry), 0),
               cv, source, rates, det)


def _ratio(ref, i, entry, power, counts):
    noise = entry.get('noise') or {}
    pair = [(side, entry[side]) for side in sides.named(entry)]
    if 'cv' in noise:
        s, source = noise['cv'], noise.get('source') or 'the entry'
    else:
        s, source = _ratio_noise(ref, entry)
    labels = [(f'{e["var"]} {e["partition"]} ({side[:3]})',
               direction(e['test'], e['var']), 1 if side[0] == 'n' else -1)
              for side, e in pair]
    if len(pair) == 1 and (entry['ref'][1] is None) != \
            (entry['ref'][2] is None):
        # a paired figure regresses toward the side its one bound guards
        labels = [(labels[0][0], model.LOWER if entry['ref'][1] is None
                   else model.HIGHER, 1)]
    rates, det = model.lognormal(
        entry, noise.get('expected', entry['ref'][0]), s, labels, *power)
    return Row('ratios', i, entry, entry['name'], 1, s, source, rates, det)


def _ratio_noise(ref, entry):
    '''``(cv, source)`` of a ratio from its sides' noise, added.

    A curve is as noisy as its points (their RMS), not averaged down: a
    night may move every job of a partition alike.'''
    points = sides.curve_points(entry)
    found = [figure_noise(ref, e['test'], e['partition'], side_params(e),
                          e['var'])
             for e in sides.ratio_sides(entry)[
                 :len(sides.named(entry)) * points]]
    s = math.hypot(*(cv for cv, _ in found)) / math.sqrt(points)
    source = '; '.join(dict.fromkeys(src for _, src in found))
    if points > 1:
        source = f'the RMS of its {points} points\' ratios (not averaged ' \
            f'down: their jobs may move together): {source}'
    return s, source


def _fit(ref, i, entry, power, counts):
    noise = entry.get('noise') or {}
    xs, points = fit_points(ref, entry)
    # no line: a figure that does not depend on x, what change_bound and
    # an upper cap on r2 or slope_p judge
    flat = entry['stat'] == 'change_bound' or entry['ref'][1] is None
    if 'line' not in noise and not flat:
        raise Unknown(f'{entry["name"]}: a {entry["stat"]} needs the healthy '
                      f'line it scatters around: noise: {{line: [intercept, '
                      f'slope]}}')
    if 'cv' in noise:
        cvs, sources = [noise['cv']] * len(xs), [noise.get('source') or
                                                  entry['provenance']]
    else:
        found = [figure_noise(ref, entry['test'], entry['partition'], p,
                              entry['var']) for p in points]
        cvs, sources = [c for c, _ in found], [src for _, src in found]
    source = '; '.join(dict.fromkeys(sources))
    if len(xs) < 3:
        return Row('fits', i, entry, entry['name'], 0, max(cvs, default=0),
                   source, (0.0, 0.0), None)
    rates, det = model.simulated(entry, xs, noise.get('line') or (1.0, 0.0),
                                 cvs, direction(entry['test'], entry['var']),
                                 *power)
    return Row('fits', i, entry, entry['name'], 1, max(cvs), source, rates,
               det)


def night(audit, stress=False):
    '''The night's family-wise false-alarm rate (independent judgements,
    each case of an absolute entry one), at the assumed noise or stress.'''
    return 1 - math.prod((1 - (r.stress_rate if stress else r.rate))
                         ** r.cases for r in audit)


def enforce(ref):
    '''Refuse a judgement or a night over budget, or unable to fail, of
    ``ref`` unless a waiver says why; the audit.'''
    try:
        audit = rows(ref)
    except Unknown as err:
        ref.fail(err.args[1], err.args[0])
    limits = budget(ref)
    tool = f'iogap audit {ref.path}'
    for row in audit:
        if row.entry.get('waiver') or not row.cases:
            continue
        if row.stress_rate > limits['judgement']:
            ref.fail([row.kind, row.index, 'ref'], f'fails '
                     f'{row.stress_rate:.1%} of healthy nights at '
                     f'{limits["stress"]:g}x its noise (budget '
                     f'{limits["judgement"]:.0%}; noise {row.noise:.1%}, '
                     f'{row.rate:.1%} at it): rebuild its band from the '
                     f'noise ({tool}), remove it, or say why in waiver:')
        if row.detects is None and row.kind == 'effects':
            need = effects.nights_needed(row.entry, row.noise, limits[
                'effect'], limits['stress'], limits['stress'])
            ref.fail([row.kind, row.index, 'nights'], f'{row.entry["nights"]}'
                     f' nights do not catch the effect\'s disappearance 9 '
                     f'in 10 at {limits["stress"]:g}x the noise '
                     f'{row.noise:.1%}: pool {need or "more than 30"} '
                     f'({tool})')
        elif row.detects is None:
            ref.fail([row.kind, row.index, 'ref'], f'no regression of its '
                     f'figures fails it 9 nights in 10 ({tool}): rebuild '
                     f'or remove it, or say why in waiver:')
    rate = night(audit, stress=True)
    if rate > limits['night'] and not limits.get('waiver'):
        ref.fail(['system'], f'the night fails {rate:.1%} of healthy runs '
                 f'at {limits["stress"]:g}x the assumed noise (budget '
                 f'{limits["night"]:.0%}; {tool}): lower the worst '
                 f'judgements\' rates, or say why in budget.waiver')
    return audit

