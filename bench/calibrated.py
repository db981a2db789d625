'''The change-point threshold before and after its calibration
(iogap.judge.threshold), on simulated nights at the measured spreads and
on the real nights of bench/nights.py.

    python bench/detection.py calibrated -o DIR [--trials 40]

Simulated: nights with independent log-normal noise of each spread in
``SPREADS``; a trial is ``HISTORY`` clean nights then nights slowed by a
level, caught within n nights when a step starting in the slowed part is
reported by the n-th slowed night. False alarms: clean series of
``HISTORY`` + ``JUDGED`` nights judged night by night from ``HISTORY`` on,
each run of alarmed nights once, per 30 nights judged.

Real (with -o of a nights run): the figure's clean nights, block
bootstrapped (``BLOCK`` nights, a seed other than the detector's) into
series judged the same way, and replayed in the order they ran (judged
from the ``REAL_HISTORY``-th on); each real slowed night of a level after
the ``REAL_HISTORY`` clean nights nearest before it (the first ones when
fewer ran before it), followed by the next nights of the same level;
each level's slowdown against the clean nights nearest each of its
nights (the target check); and the step multiplied into series
bootstrapped from the clean nights (what a device throttle cannot slow).
'''

import json
import os

import numpy as np

from bench import detectors
from bench.trials import WITHIN, clean_of, levels, pools
from iogap.core import registry
from iogap.core.figures import HIGHER
from iogap.judge import threshold as calibration, changepoint, noise

#: Night-to-night spreads measured on this machine kind (issue 40): direct
#: dd, cached re-read, IOR direct with two ranks on two shared cores
SPREADS = {'dd direct': 0.041, 'dd cached re-read': 0.032, 'IOR direct':
           0.21}

#: Slowdowns simulated, in percent
LEVELS = (5, 10, 15, 25)

#: Clean nights before a simulated trial: as many as the nightly keeps
#: before the candidates
HISTORY = 70

#: Before a real trial: the fewest that calibrate (a run of nights has
#: about half of them clean)
REAL_HISTORY = calibration.MIN_NIGHTS + changepoint.WINDOW

#: Clean nights judged per false-alarm series
JUDGED = 30

#: The rules compared: before (Bonferroni always) and after (calibrated)
RULES = {'before': detectors.bonferroni_alarm, 'after': detectors.scipy_alarm}

#: Bootstrap block of the real clean nights, and its seed
BLOCK, SEED = 5, 7


def first_caught(base, slowed, alarm, better=HIGHER):
    '''The slowed night (1-based) by which a step is reported, or None.'''
    return next((m for m in range(1, len(slowed) + 1)
                 if alarm(base + slowed[:m], better, len(base))), None)


def alarm_runs(series, alarm, better=HIGHER, history=HISTORY):
    '''``(runs of alarmed nights, nights judged)`` from ``history`` on.'''
    runs, was = 0, False
    for t in range(history + 1, len(series) + 1):
        now = alarm(series[:t], better, 0)
        runs += now and not was
        was = now
    return runs, len(series) - history


def rate(runs):
    found, judged = map(sum, zip(*runs))
    return {'per_30': 30 * found / judged, 'runs': found, 'judged': judged}


def caught(trials):
    return {n: sum(f is not None and f <= n for f in trials)
            for n in WITHIN} | {'trials': len(trials)}


def simulated(trials, series):
    '''``{spread name: {rule: {false alarms, level: caught}}}``.'''
    found = {}
    for name, sigma in SPREADS.items():
        rng = np.random.default_rng(int(sigma * 1000))
        clean = [list(np.exp(rng.normal(0, sigma, HISTORY + JUDGED)))
                 for _ in range(series)]
        runs = {level: [(list(np.exp(rng.normal(0, sigma, HISTORY))),
                         list((1 - level / 100) * np.exp(rng.normal(
                             0, sigma, max(WITHIN))))) for _ in range(trials)]
                for level in LEVELS}
        found[name] = {rule: {'false_alarms': rate(
            [alarm_runs(c, alarm) for c in clean])} | {
            level: caught([first_caught(b, s, alarm) for b, s in runs[level]])
            for level in LEVELS} for rule, alarm in RULES.items()}
    return found


def bootstrapped(clean, count, length):
    '''``count`` series of ``length`` nights in blocks of the real ones.'''
    rng = np.random.default_rng(SEED)
    found = []
    for _ in range(count):
        first = rng.integers(0, len(clean) - BLOCK + 1, -(-length // BLOCK))
        found.append([clean[i + k] for i in first for k in range(BLOCK)]
                     [:length])
    return found


def real_trials(nights, level, trials):
    '''``[(clean history, slowed nights)]`` of the real nights.'''
    slowed = [i for i, (lvl, _) in enumerate(nights) if lvl == level]
    clean = clean_of(nights)
    found = []
    for k, i in enumerate(slowed[:trials]):
        before = clean_of(nights[:i])
        base = before[-REAL_HISTORY:] if len(before) >= REAL_HISTORY \
            else clean[:REAL_HISTORY]
        found.append((base, [nights[slowed[(k + j) % len(slowed)]][1]
                             for j in range(max(WITHIN))]))
    return found


def applied_trials(nights, level, better, trials):
    '''``[(clean history, the next nights slowed by level)]``: series
    block-bootstrapped from the real clean nights with the step multiplied
    into their last nights, for figures a device throttle cannot slow (the
    cached re-read) and as a check of the throttled trials.'''
    factor = 1 - level / 100 if better == HIGHER else 1 / (1 - level / 100)
    return [(s[:REAL_HISTORY], [v * factor for v in s[REAL_HISTORY:]])
            for s in bootstrapped(clean_of(nights), trials,
                                  REAL_HISTORY + max(WITHIN))]


#: A slowed night's own clean nights: this many nearest it, either side
NEAR = 2


def slower(nights, level, better):
    '''``(median, lowest, highest)`` of how much slower each night of
    ``level`` is than the median of the ``NEAR`` clean nights either side of
    it: the target check, clear of the host's drift over the run.'''
    clean = [i for i, (lvl, _) in enumerate(nights) if not lvl]
    found = []
    for i, (lvl, value) in enumerate(nights):
        if lvl != level:
            continue
        before = [j for j in clean if j < i][-NEAR:]
        near = before + [j for j in clean if j > i][:2 * NEAR - len(before)]
        change = value / np.median([nights[j][1] for j in near]) - 1
        found.append(float(-change if better == HIGHER else change))
    return float(np.median(found)), min(found), max(found)


def real(out, trials, series):
    '''Per real figure: its spread, false alarms and catches per rule.'''
    found = {}
    for figure, nights in sorted(pools(out).items()):
        check, _, name = figure.split(':')
        better, clean = registry.better(check, name), clean_of(nights)
        if len(clean) < REAL_HISTORY:
            found[figure] = {'skipped': f'{len(clean)} clean nights, '
                             f'{REAL_HISTORY} needed'}
            continue
        row = found[figure] = {'clean': len(clean),
                               'spread': noise.spread(clean), 'slower': {
                                   lvl: slower(nights, lvl, better)
                                   for lvl in levels(nights)}}
        boot = bootstrapped(clean, series, REAL_HISTORY + JUDGED)
        for rule, alarm in RULES.items():
            row[rule] = {'false_alarms': rate(
                [alarm_runs(c, alarm, better, REAL_HISTORY) for c in boot]),
                'replayed': rate([alarm_runs(clean, alarm, better,
                                             REAL_HISTORY)])}
            for level in levels(nights):
                row[rule][level] = caught([
                    first_caught(b, s, alarm, better)
                    for b, s in real_trials(nights, level, trials)])
        row['applied'] = {level: caught([
            first_caught(b, s, RULES['after'], better)
            for b, s in applied_trials(nights, level, better, trials)])
            for level in LEVELS}
    return found


def print_rows(title, rows):
    print(f'\n{title}\n')
    print('| figure | rule | false alarms / 30 nights | caught within '
          '1 / 3 / 5 nights, of the trials |')
    print('|---|---|---|---|')
    for figure, row in rows.items():
        if 'skipped' in row:
            print(f'| {figure} | {row["skipped"]} | | |')
            continue
        if 'spread' in row:
            figure = f'{figure} ({row["clean"]} clean, spread ' \
                f'{row["spread"]:.1%}; ' + ', '.join(
                    f'{lvl} %: {v[0]:+.0%} ({v[1]:+.0%} to {v[2]:+.0%})'
                    for lvl, v in row['slower'].items()) + ')'
        for rule in RULES:
            got = row[rule]
            levels_ = '; '.join(
                f'{lvl} %: ' + ' / '.join(str(c[n]) for n in WITHIN) +
                f' ({c["trials"]})' for lvl, c in got.items()
                if lvl not in ('false_alarms', 'replayed'))
            if rule != 'before':
                figure = '"'
            fa = [got[k] for k in ('false_alarms', 'replayed') if k in got]
            print(f'| {figure} | {rule} | ' + '; '.join(
                f'{f["per_30"]:.2f} ({f["runs"]} in {f["judged"]})'
                for f in fa) + f' | {levels_} |')
        if 'applied' in row:
            print('| " | after, the step multiplied into clean nights | | ' +
                  '; '.join(f'{lvl} %: ' + ' / '.join(
                      str(c[n]) for n in WITHIN) + f' ({c["trials"]})'
                      for lvl, c in row['applied'].items()) + ' |')


def main(argv=None):
    import argparse
    parser = argparse.ArgumentParser(prog='bench/detection.py calibrated',
                                     description=__doc__.split('\n')[0])
    parser.add_argument('-o', '--out', help='a nights run (bench/nights.py)')
    parser.add_argument('--trials', type=int, default=40)
    parser.add_argument('--series', type=int, default=20,
                        help='clean series judged for false alarms')
    parser.add_argument('--real-only', action='store_true',
                        help='the real nights of -o alone')
    args = parser.parse_args(argv)
    results = {}
    if not args.real_only:
        results['simulated'] = simulated(args.trials, args.series)
        print_rows('Simulated nights, spread as named', results['simulated'])
    if args.out:
        results['real'] = real(os.path.abspath(args.out), args.trials,
                               args.series)
        print_rows('Real nights', results['real'])
        with open(os.path.join(args.out, 'calibrated.json'), 'w') as fp:
            json.dump(results, fp, indent=1)
