'''The series of nights in the history database, judged: every figure
with a declared direction for a recent step change
(:func:`iogap.judge.changepoint.recent_step`; a figure the reference file
declares judged for breakage only, :mod:`iogap.judge.breakage`, is judged
so), and every ``effects:`` entry of the reference file for the effect's
disappearance (:mod:`iogap.judge.effects`). Each verdict comes with where
a step started, its size and what changed that night.'''

import sqlite3

from iogap.core import registry
from iogap.history.sessions import (
    case_of,
    changes,
    night_of,
    series,
    sessions,
    tool_changes,
)
from iogap.judge import audit, breakage, changepoint, effects, references
from iogap.judge import threshold as calibration

#: Nights read back from tonight: enough for every candidate step and
#: for the threshold's calibration (calibration.MIN_NIGHTS before the
#: candidates; a year of full nights would be hundreds of MB of JSON)
KEPT = 75
assert KEPT - changepoint.WINDOW >= max(calibration.MIN_NIGHTS,
                                        changepoint.HISTORY)


def what_changed(nights, before, after, case):
    '''What differs between two nights: session extras, the case's tool
    provider and the tools its job resolved on its node.'''
    (info_b, cases_b), (info_a, cases_a) = nights[before], nights[after]
    found = changes(info_b, info_a)
    old, new = (_case(c, case).get('tool_provider') for c in (cases_b,
                                                              cases_a))
    if old != new:
        found.append(f'tool {old} -> {new}')
    found += tool_changes(_case(cases_b, case), _case(cases_a,
                                                                 case))
    return '; '.join(found) or 'nothing recorded changed'


def _case(cases, case):
    return next((tc for tc in cases if case_of(tc) == case), {})


def judge(db_path, uuid=None, ref=None):
    '''``(lines, steps, cases)``: the summary's lines, the steps found in
    tonight's series, and ``[(name, status, message)]`` for JUnit. Tonight
    is session ``uuid`` (the newest when ``None``); the figures the
    reference file ``ref`` declares are judged for breakage only.'''
    try:
        nights = sessions(db_path, uuid, KEPT)
    except (sqlite3.Error, OSError, ValueError, KeyError) as err:
        return [f'change points: history database {db_path} unreadable '
                f'({err}): not judged'], [], []
    if not nights:
        return [f'change points: tonight is not in {db_path}: not '
                f'judged'], [], []
    tonight = len(nights) - 1
    found, failed = series(nights)
    lines, steps, cases, short, gone = [], [], [], [], []
    ran = {(f'{tc["system"]}:{tc["partition"]}', case_of(tc))
           for tc in nights[tonight][1]}
    for (where, case, figure), points in sorted(found.items()):
        better = registry.better(case.split()[0], figure)
        if better is None:
            continue
        name = f'{case} @{where}: {figure}'
        if points[-1][0] != tonight:
            if (where, case) in ran and case not in failed.get(tonight, ()):
                gone.append(name)
            continue
        step, why = changepoint.recent_step(
            [v for _, v in points], better,
            breakage=breakage.declared(ref, where, case, figure))
        if step is None:
            (short if 'a step needs' in why else cases).append(
                (name, 'short' if 'a step needs' in why else 'steady', why))
            continue
        message = _where_from(nights, points, step, case)
        lines.append(f'STEP {name}: {message}')
        steps.append((name, step))
        cases.append((name, 'step', message))
    lines += notes(failed.get(tonight, ()), short, gone)
    rules, broken = rule_lines(cases)
    count = len({night_of(i.get('uuid'), i.get('pipeline'))
                 for i, _ in nights})
    lines += rules + broken + [
        f'{"STEP" if steps else "STEADY"}: {len(steps)} step change(s) in '
        f'{len(cases)} figure(s) judged over {count} night(s) of {db_path}']
    return lines, steps, cases + short


def _where_from(nights, points, step, case):
    '''A step's size, the night it started and what changed then.'''
    start, before = points[step.start][0], points[step.start - 1][0]
    info = nights[start][0]
    return (f'{step.describe()}, from the night of '
            f'{info.get("time_start", "?")} (session '
            f'{str(info.get("uuid"))[:8]}); what changed that night: '
            f'{what_changed(nights, before, start, case)}')


def notes(failed, short, gone):
    '''One line per failed case, one for the figures too new to judge,
    one for those gone tonight.'''
    lines = [f'change points: {case} failed tonight: its figures have no '
             f'value to judge' for case in sorted(failed)]
    if short:
        lines.append(f'change points: {len(short)} figure(s) with too few '
                     f'nights to judge (new or renamed), e.g. {short[0][0]}'
                     f' ({short[0][2]})')
    if gone:
        lines.append(f'change points: {len(gone)} figure(s) of cases that '
                     f'ran tonight have no value tonight (renamed or '
                     f'dropped), e.g. {gone[0]}')
    return lines


def rule_lines(cases):
    '''``(a line saying how many thresholds were calibrated on their
    nights and how many kept the conservative rule; one line per figure
    judged for breakage only)``.'''
    said = [(name, why) for name, _, why in cases]
    calibrated = sum(calibration.CALIBRATED in why for _, why in said)
    others = len(said) - calibrated
    rules = [f'change points: {calibrated} of {len(said)} figure(s) with '
             f'the threshold calibrated on their clean nights' +
             (f', {others} with Bonferroni at {calibration.ALPHA:.0%} '
              f'(fewer than {calibration.MIN_NIGHTS} clean nights)'
              if others else '')] if said else []
    return rules, [f'change points: {name} {calibration.BREAKAGE_ONLY}: '
                   f'{why}' for name, why in said
                   if calibration.BREAKAGE_ONLY in why]


def values_of(found):
    '''``name -> {night: value}``: each ratio's nightly value from the
    series of :func:`iogap.history.sessions.series`.'''
    by_name = {}
    for (_, case, figure), points in found.items():
        if case.startswith('RatioCheck'):
            by_name.setdefault(figure, {}).update(points)
    return lambda name: by_name.get(name, {})


def verdicts(ref, rows, found, tonight):
    '''``[(name, status, message)]``: ``gone``, ``held`` or ``short`` for
    each effect one of whose ratios was judged ``tonight``.'''
    limits = audit.budget(ref)
    values = values_of(found)
    out = []
    for row in rows:
        if row.kind != 'effects' or not any(
                tonight in values(row.entry[k]) for k in ('ratio', 'over')
                if k in row.entry):
            continue
        passed, why = effects.judge(
            row.entry, effects.series(row.entry, values), row.noise,
            limits['effect'], limits['stress'])
        out.append((row.name, 'short' if passed is None else
                    'held' if passed else 'gone', why))
    return out


def judge_effects(db_path, uuid, ref_path):
    '''``(lines, gone)``: the summary's lines and whether an effect is
    gone; the JUnit cases are the third item.'''
    ref = references.unenforced(ref_path)
    rows = audit.rows(ref)
    nights = sessions(db_path, uuid, KEPT)
    if not nights:
        return [f'effects: tonight is not in {db_path}: not judged'], \
            False, []
    found, _ = series(nights)
    cases = verdicts(ref, rows, found, len(nights) - 1)
    lines = [f'GONE {name}: {why}' for name, status, why in cases
             if status == 'gone']
    lines.append(f'effects: {sum(s == "held" for _, s, _ in cases)} held, '
                 f'{len(lines)} gone, {sum(s == "short" for _, s, _ in cases)}'
                 f' with too few nights, over {len(nights)} night(s)')
    return lines, len(lines) > 1, cases
