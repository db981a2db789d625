'''The quiet bench's nights judged: each night's realised rate against its
target, the trials caught, the false alarms, by the nightly's own verdict
and by the rules compared.

The nights are read back from the series' results database as the nightly
reads them (iogap.history.sessions ``sessions`` and ``series``: each
figure's median per night) and judged by ``recent_step`` as the nightly
calls it, with the reference file's declarations
(``breakage.declared``). A night's plan (its noise factor, slowdown and
trial) comes from its session extras and ``night-NNN.json``.

- Trials: trial k's history is the clean nights before its first slowed
  night (the slowed nights of earlier trials left out), as many as the
  nightly reads (``KEPT``) less the slowed nights judged; it is caught
  within n nights when a step starting on a slowed night is reported by
  the n-th.
- False alarms: the clean nights in the order they ran, each judged in
  turn from the ``history``-th on with the ``KEPT`` nights up to it; a run
  of alarmed nights counts once, per 30 nights judged.
'''

import csv
import dataclasses
import json
import math
import os

import numpy as np
import ruptures

from bench.quietnights import (WRITE_BW, WRITE_BW_CV, WRITE_BW_MAX,
                               WRITE_BW_MIN, Plan, load_plan, records)
from iogap.core import registry
from iogap.core.figures import HIGHER
from iogap.dd.figures import PAIRED
from iogap.history import sessions as history
from iogap.judge import acrossnights, breakage, changepoint


def _library(**kw):
    def rule(values, better, declared):
        step, _ = changepoint.recent_step(values, better, breakage=declared,
                                          **kw)
        return step
    return rule


def _ruptures(scale):
    '''PELT (ruptures, l2 cost on the logs) with ``scale`` times the BIC
    penalty (2 log n sigma^2, sigma from the median absolute night-to-night
    difference): the most recent worse segment's start in the window.'''
    def rule(values, better, declared):
        logs = np.log(np.asarray(values, float))
        sigma = 1.4826 * np.median(np.abs(np.diff(logs))) / math.sqrt(2)
        if len(logs) < changepoint.MIN_BEFORE + 1 or not sigma:
            return None
        ends = ruptures.Pelt(model='l2', min_size=1, jump=1).fit(
            logs).predict(pen=scale * 2 * math.log(len(logs)) * sigma ** 2)
        starts = [0] + ends[:-1]
        for (s0, e0), (s1, e1) in list(zip(zip(starts, ends),
                                           zip(ends, ends[1:])))[::-1]:
            down = logs[s1:e1].mean() < logs[s0:e0].mean()
            if s1 >= len(logs) - changepoint.WINDOW and down == (
                    better == HIGHER):
                return changepoint.Step(s1, 0, 0, 0, 0, e0 - s0, e1 - s1)
        return None
    return rule


#: The rules compared: the library's as the nightly calls it, the rule
#: before issue 50 (20 nights before, nights taken as independent), and
#: each change alone; ruptures as the library detector
RULES = {
    'library': _library(),
    'former': _library(history=20, autocorrelated=False),
    'history60': _library(history=60, autocorrelated=False),
    'ar1': _library(history=20, autocorrelated=True),
    'ruptures': _ruptures(1.0),
    'ruptures3': _ruptures(3.0),
}

#: The figure judged: the dd direct write, the median of its repetitions
FIGURE = WRITE_BW

#: The night's other summaries of its repetitions, judged beside it: the
#: fastest and slowest repetition, their mean (exact from min, median and
#: max with three repetitions) and the write over its memory copy; and
#: ``planned``, the plan's own value of each night (its rate, noise factor
#: and slowdown: no bench), to say what the bench's own error changes
WRITE_BW_MEAN, PLANNED = f'{FIGURE}_mean', 'planned'
OTHERS = (WRITE_BW_MAX, WRITE_BW_MIN, WRITE_BW_MEAN,
          PAIRED.name(pattern='write'), PLANNED)


#: A night's columns in the series' CSV (bench/data), beside its figures
COLUMNS = ('night', 'trial', 'slowdown', 'factor', 'target', 'cap', 'mib',
           'expected', 'seconds', 'load', 'exit', 'repetitions', 'session')


def export(out, path):
    '''Write the nights of series ``out`` as the nightly reads them to the
    CSV ``path``: a first line ``# {plan, where, case}``, then a night a
    row (its plan, step, cap and figures).'''
    plan, rows, (where, case) = nights_of(out)
    with open(path, 'w', newline='') as fp:
        fp.write('# ' + json.dumps({'plan': dataclasses.asdict(plan),
                                    'where': where, 'case': case}) + '\n')
        writer = csv.writer(fp)
        figures = (FIGURE,) + tuple(f for f in OTHERS if f not in
                                    (WRITE_BW_MEAN, PLANNED))
        writer.writerow(COLUMNS + figures)
        for r in rows:
            writer.writerow([r.get(c) for c in COLUMNS] +
                            [r['db'].get(f) for f in figures])


def from_csv(path):
    ''':func:`nights_of` from a series' CSV (:func:`export`).'''
    with open(path) as fp:
        head = json.loads(fp.readline()[2:])
        rows = []
        for row in csv.DictReader(fp):
            r = {c: row[c] for c in COLUMNS}
            for c in ('night', 'exit', 'repetitions', 'mib'):
                r[c] = int(r[c]) if r[c] not in ('', 'None') else None
            r['trial'] = int(row['trial']) if row['trial'] not in (
                '', 'None') else None
            for c in ('slowdown', 'factor', 'target', 'cap', 'expected',
                      'seconds', 'load'):
                r[c] = float(r[c])
            r['db'] = {k: float(v) for k, v in row.items()
                       if k.startswith(FIGURE) and v not in ('', 'None')}
            r['values'] = {}
            rows.append(r)
    return Plan(**head['plan']), _summaries(rows), (head['where'],
                                                   head['case'])


def _summaries(rows):
    '''``rows`` with the mean of three repetitions, the planned value and
    the judged value.'''
    for r in rows:
        db = r['db']
        db[PLANNED] = r['target'] / 1e6
        r.setdefault('values', {})
        if r.get('repetitions') == 3 and WRITE_BW_MAX in db:
            db[WRITE_BW_MEAN] = (db[WRITE_BW_MIN] + db[FIGURE] +
                                 db[WRITE_BW_MAX]) / 3
        r['value'] = db[FIGURE]
    return rows


def nights_of(out):
    '''``(plan, [night record with 'db': {figure: value} as the nightly
    reads them], (where, case))`` of a series, by night; ``out`` a series'
    directory or its CSV.'''
    if out.endswith('.csv'):
        return from_csv(out)
    plan = load_plan(out)
    recs = {r['night']: r for r in records(out)}
    sessions = history.sessions(os.path.join(out, 'results.db'),
                                kept=10 ** 6)
    found, _ = history.series(sessions)
    key = next(k for k in found if k[2] == FIGURE)
    rows = {}
    for figure in (FIGURE,) + OTHERS:
        for index, value in found.get(key[:2] + (figure,), []):
            night = int(sessions[index][0]['night'])
            rows.setdefault(night, dict(recs[night], db={}))['db'][
                figure] = value
    return plan, _summaries([rows[n] for n in sorted(rows)]), key[:2]


def spread(rows, figure):
    '''``(SD of the logs, robust CV)`` of ``figure`` over the clean
    nights, and its SD of the logs over their noise factor (what the bench
    adds to the noise it sets).'''
    clean = [r for r in rows if not r['slowdown'] and figure in r['db']]
    v = np.array([r['db'][figure] for r in clean])
    f = np.array([r['factor'] for r in clean])
    med = np.median(v)
    return (float(np.std(np.log(v), ddof=1)),
            float(1.4826 * np.median(np.abs(v - med)) / med),
            float(np.std(np.log(v / f), ddof=1)))


def realised(plan, rows):
    '''How each night landed on its target: the clean nights' rate over
    target (the bench's own error), their spread, and each level's
    realised slowdown against the clean nights' bias.'''
    clean = [r for r in rows if not r['slowdown']]
    ratio = np.array([r['value'] * 1e6 / r['target'] for r in clean])
    logs = np.log([r['value'] for r in clean])
    drawn = np.log([r['factor'] for r in clean])
    bias = float(np.median(ratio))
    slowed = {}
    for r in rows:
        if r['slowdown']:
            clean_target = plan.rate * r['factor']
            slowed.setdefault(r['slowdown'], []).append(
                1 - r['value'] * 1e6 / clean_target / bias)
    cv = [r['values'].get(WRITE_BW_CV) for r in clean]
    cv = cv if any(c is not None for c in cv) else [float('nan')]
    return {'clean': len(clean), 'bias': bias - 1,
            'off_sd': float(np.std(np.log(ratio), ddof=1)),
            'off_max': float(np.max(np.abs(np.log(ratio / bias)))),
            'sd_logs': float(np.std(logs, ddof=1)),
            'drawn_sd': float(np.std(drawn, ddof=1)),
            'robust_cv': float(1.4826 * np.median(np.abs(
                np.array([r['value'] for r in clean]) -
                np.median([r['value'] for r in clean]))) /
                np.median([r['value'] for r in clean])),
            'within_cv': float(np.median([c for c in cv if c is not None])),
            'seconds': float(np.median([r['seconds'] for r in rows])),
            'load': (float(np.min([r['load'] for r in rows])),
                     float(np.median([r['load'] for r in rows])),
                     float(np.max([r['load'] for r in rows]))),
            'slowed': {lvl: (float(np.median(v)), float(np.min(v)),
                             float(np.max(v)), len(v))
                       for lvl, v in slowed.items()}}


def first_caught(rule, history, slowed, better=HIGHER, declared=None,
                 kept=None):
    '''``(strict, dated)``: the slowed night (1-based) by which a step is
    reported, or None. Strict: its start is a slowed night. Dated within a
    night: also when its start is the clean night just before them and
    that night was not already alarmed (a false alarm going on is not a
    catch): a night that happens to fall low just before a step is, by
    the data alone, as likely part of it.'''
    kept = kept or len(history) + len(slowed)
    strict = dated = None
    before_alarm = None
    for m in range(1, len(slowed) + 1):
        before = history[-(kept - m):]
        step = rule(before + slowed[:m], better, declared)
        if step is None:
            continue
        if step.start >= len(before):
            strict = strict or m
            dated = dated or m
        elif step.start == len(before) - 1 and dated is None:
            if before_alarm is None:
                before_alarm = rule(history[-kept:], better,
                                    declared) is not None
            dated = None if before_alarm else m
        if strict is not None:
            break
    return strict, dated


def trials(plan, rows, rule, better, declared):
    '''``[(strict, dated)]`` of each trial (:func:`first_caught`).'''
    found = []
    for k in range(plan.trials):
        slowed = [r for r in rows if r['trial'] == k]
        if len(slowed) < plan.within:
            continue
        first = slowed[0]['night']
        history = [r['value'] for r in rows if r['night'] < first and
                   not r['slowdown']]
        found.append(first_caught(rule, history, [
            r['value'] for r in slowed[:plan.within]], better, declared,
            acrossnights.KEPT))
    return found


def counts(found, within):
    '''``{'strict'|'dated': [caught within 1 .. within nights]}``.'''
    return {kind: [sum(c[i] is not None and c[i] <= n for c in found)
                   for n in range(1, within + 1)]
            for i, kind in enumerate(('strict', 'dated'))}


def false_alarms(plan, rows, rule, better, declared):
    '''``(runs of alarmed nights, nights judged)`` over the clean nights.'''
    clean = [r['value'] for r in rows if not r['slowdown']]
    runs, was, judged = 0, False, 0
    for t in range(plan.history, len(clean)):
        now = rule(clean[max(0, t + 1 - acrossnights.KEPT):t + 1], better,
                   declared) is not None
        runs += now and not was
        was, judged = now, judged + 1
    return runs, judged


def judge(out, names, figures=(FIGURE,)):
    plan, rows, (where, case) = nights_of(out)
    ref, _ = breakage.reference(where.split(':')[0])
    result = {'plan': plan.__dict__, 'nights': len(rows),
              'realised': realised(plan, rows), 'figures': {}}
    for figure in figures:
        better = registry.better(case.split()[0], FIGURE)
        declared = breakage.declared(ref, where, case, figure)
        these = [dict(r, value=r['db'][figure]) for r in rows
                 if figure in r['db']]
        got = result['figures'][figure] = {
            'declared': declared, 'spread': spread(rows, figure),
            'rules': {}}
        for name in names if figure == FIGURE else names[:1]:
            caught = trials(plan, these, RULES[name], better, declared)
            runs, judged = false_alarms(plan, these, RULES[name], better,
                                        declared)
            got['rules'][name] = {
                'caught': counts(caught, plan.within),
                'trials': len(caught), 'false_runs': runs, 'judged': judged,
                'per_30': 30 * runs / judged if judged else None}
    return result


def nightly(out):
    '''``(plan, [(strict, dated)])`` of each trial as the nightly itself
    judges its database on each slowed night (``iogap.judge.acrossnights
    .judge`` with the reference file, every figure of the night; the
    history is every night before it, slowed nights of earlier trials
    included), counted as :func:`first_caught` counts.'''
    plan, rows, (where, case) = nights_of(out)
    db = os.path.join(out, 'results.db')
    ref, _ = breakage.reference(where.split(':')[0])
    name = f'{case} @{where}: {FIGURE}'

    def verdict(night):
        '''The night the nightly's step on ``night`` starts, or None.'''
        _, steps, _ = acrossnights.judge(db, night['session'], ref)
        step = dict(steps).get(name)
        if step is None:
            return None
        nights = history.sessions(db, night['session'], acrossnights.KEPT)
        points = history.series(nights)[0][(where, case, FIGURE)]
        return int(nights[points[step.start][0]][0]['night'])

    found = []
    for k in range(plan.trials):
        slowed = [r for r in rows if r['trial'] == k][:plan.within]
        if len(slowed) < plan.within:
            continue
        before = [r for r in rows if r['night'] < slowed[0]['night']][-1]
        strict = dated = before_alarm = None
        for m, night in enumerate(slowed, start=1):
            start = verdict(night)
            if start is None:
                continue
            if start >= slowed[0]['night']:
                strict, dated = strict or m, dated or m
                break
            if start == before['night'] and dated is None:
                if before_alarm is None:
                    before_alarm = verdict(before) is not None
                dated = None if before_alarm else m
        found.append((strict, dated))
    return plan, found


def print_tables(results):
    print('| series | nights | clean: spread drawn / measured (SD of logs; '
          'robust CV) | off target (bias; SD) | within a night (CV) | '
          'slowed by (median, min-max, nights) |')
    print('|---|---|---|---|---|---|')
    for out, r in results.items():
        p, z = r['plan'], r['realised']
        print(f'| {os.path.basename(out)} (seed {p["seed"]}, AR(1) '
              f'{p["rho"]:g}) | {r["nights"]} | {z["drawn_sd"]:.2%} / '
              f'{z["sd_logs"]:.2%}; {z["robust_cv"]:.2%} | {z["bias"]:+.2%}; '
              f'{z["off_sd"]:.2%} | {z["within_cv"]:.2f} % | ' + '; '.join(
                  f'{lvl:g} %: {v[0]:.1%} ({v[1]:.1%} to {v[2]:.1%}, {v[3]})'
                  for lvl, v in z['slowed'].items()) + ' |')
    print()
    print('| series | figure (clean nights: SD of logs; robust CV; SD of '
          'logs over the set factor) | rule | caught within 1 / .. / n '
          'nights, of the trials: start on a slowed night; dated within a '
          'night | false alarms / 30 nights (runs in nights judged) |')
    print('|---|---|---|---|---|')
    for out, r in results.items():
        p = r['plan']
        for figure, f in r['figures'].items():
            sd, cv, off = f['spread']
            for name, g in f['rules'].items():
                c = g['caught']
                print(f'| {p["spread"]:.0%} spread, {p["level"]:g} % step '
                      f'| {figure} ({sd:.2%}; {cv:.2%}; {off:.2%}) | {name} '
                      f'| ' + ' / '.join(map(str, c['strict'])) + '; ' +
                      ' / '.join(map(str, c['dated'])) +
                      f' ({g["trials"]}) | {g["per_30"]:.2f} '
                      f'({g["false_runs"]} in {g["judged"]}) |')


def main(args):
    names = args.rules.split(',') + (['ruptures', 'ruptures3'] if
                                     args.compare else [])
    figures = (FIGURE,) + (OTHERS if args.figures else ())
    results = {}
    for out in args.out:
        out = os.path.abspath(out)
        results[out] = judge(out, names, figures)
        if os.path.isdir(out):
            with open(os.path.join(out, 'judged.json'), 'w') as fp:
                json.dump(results[out], fp, indent=1, default=str)
    print_tables(results)
    for out in args.out if args.nightly else ():
        plan, found = nightly(os.path.abspath(out))
        c = counts(found, plan.within)
        print(f'\n{os.path.basename(out)}: as the nightly judges its '
              f'database on each slowed night: caught within 1 / .. / '
              f'{plan.within}: ' + ' / '.join(map(str, c['strict'])) +
              '; dated within a night: ' + ' / '.join(map(str, c['dated'])) +
              f' ({len(found)} trials)')
