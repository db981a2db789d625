'''Detection power across nights, from the real nights of bench/nights.py.

    python bench/detection.py across -o DIR [--history 10] [--trials 10]

The nights ran in turn (clean, 5 %, clean, 10 %, clean, 25 %, ...), so a
sustained slowdown is assembled, honestly said, from real nights: a
sequence is ``--history`` consecutive clean nights (each trial starts at
another offset of the clean nights) followed by five nights of one
slowdown (each trial starts at another of that slowdown's nights, in
turn, reused when there are fewer than five). After each slowed night the
series is judged by iogap.judge.changepoint; a trial is caught within n
nights when a regression step starting in the slowed part is reported by
the n-th slowed night. False alarms: the clean nights in order, judged
night by night, each run of nights with a step counting once, per 30
nights judged. The single-night band (iogap.judge.noise's
model on the first ``--history`` clean nights) is judged on the same
nights, for comparison.
'''

import json
import os
import statistics

from bench import detectors
from bench import nights as nightsmod
from iogap.core import registry
from iogap.core.figures import HIGHER
from iogap.judge import changepoint, noise

WITHIN = (1, 3, 5)


def pools(out):
    """``{figure: [(slowdown, value)]}`` in the order the nights ran."""
    found = {}
    for _, _, rec in sorted(nightsmod.done(out),
                            key=lambda d: d[2]['finished']):
        for figure, value in rec['values'].items():
            found.setdefault(figure, []).append((rec['slowdown'], value))
    return found


def levels(nights):
    return sorted({lvl for lvl, _ in nights if lvl})


def clean_of(nights):
    return [v for lvl, v in nights if not lvl]


def band_flags(value, ref, tol, better):
    return value < ref * (1 - tol) if better == HIGHER else \
        value > ref * (1 + tol)


def false_alarms(clean, better, history, alarm=detectors.scipy_alarm):
    '''``(change-point alarm runs, nights judged, band flags, nights the
    band judged)``.'''
    runs, was, judged = 0, False, 0
    for t in range(changepoint.MIN_BEFORE + 1, len(clean) + 1):
        now = alarm(clean[:t], better, 0)
        runs += now and not was
        was, judged = now, judged + 1
    ref = statistics.median(clean[:history])
    tol, _ = noise.band(noise.spread(clean[:history]))
    tested = clean[history:]
    return runs, judged, sum(band_flags(v, ref, tol, better)
                             for v in tested), len(tested)


def sequences(nights, level, history, trials):
    """``[(clean history, slowed nights)]``: one per real night of
    ``level`` with ``history`` clean nights before it, at most ``trials``."""
    slowed = [i for i, (lvl, _) in enumerate(nights) if lvl == level]
    found = []
    for k, i in enumerate(slowed):
        base = [v for lvl, v in nights[:i] if not lvl][-history:]
        if len(base) == history:
            found.append((base, [nights[slowed[(k + j) % len(slowed)]][1]
                                 for j in range(max(WITHIN))]))
    return found[:trials]


def detection(nights, level, better, history, trials,
              alarm=detectors.scipy_alarm):
    """``({n: [change-point caught, band caught]}, trials)``."""
    caught = {n: [0, 0] for n in WITHIN}
    runs = sequences(nights, level, history, trials)
    for base, after in runs:
        ref = statistics.median(base)
        tol, _ = noise.band(noise.spread(base))
        first_cp = next((m for m in range(1, len(after) + 1)
                         if alarm(base + after[:m], better, len(base))),
                        None)
        first_band = next((m for m in range(1, len(after) + 1)
                           if band_flags(after[m - 1], ref, tol, better)),
                          None)
        for n in WITHIN:
            caught[n][0] += first_cp is not None and first_cp <= n
            caught[n][1] += first_band is not None and first_band <= n
    return caught, len(runs)


def analyse(out, history, trials):
    results = []
    for figure, nights in sorted(pools(out).items()):
        check, _, name = figure.split(':')
        better, clean = registry.better(check, name), clean_of(nights)
        if len(clean) < history + 2:
            results.append({'figure': figure, 'skipped':
                            f'{len(clean)} clean nights, {history + 2} '
                            f'needed'})
            continue
        runs, judged, band_false, band_tested = false_alarms(
            clean, better, history)
        row = {'figure': figure, 'better': better, 'clean': len(clean),
               'cv': noise.spread(clean),
               'false_per_30': 30 * runs / judged, 'false_runs': runs,
               'judged': judged, 'band_false_per_30':
               30 * band_false / band_tested if band_tested else None,
               'levels': {}}
        for level in levels(nights):
            slowed = [v for lvl, v in nights if lvl == level]
            change = statistics.median(slowed) / statistics.median(clean) - 1
            caught, tried = detection(nights, level, better, history, trials)
            row['levels'][level] = {
                'nights': len(slowed), 'trials': tried, 'caught': caught,
                'slower': -change if better == HIGHER else change}
        results.append(row)
    return results


def compare(out, history, trials):
    """Every installed detector on the same nights: per figure its false
    alarms per 30 clean nights, the trials caught within 3 nights at each
    slowdown, and its CPU time per verdict."""
    import time
    rows = []
    for figure, nights in sorted(pools(out).items()):
        check, _, name = figure.split(':')
        better, clean = registry.better(check, name), clean_of(nights)
        if len(clean) < history + 2:
            continue
        for method, alarm in detectors.available().items():
            start, calls, caught = time.process_time(), 0, {}
            runs, judged, _, _ = false_alarms(clean, better, history, alarm)
            for level in levels(nights):
                got, tried = detection(nights, level, better, history,
                                       trials, alarm)
                caught[level] = f'{got[3][0]}/{tried}'
                calls += tried * max(WITHIN)
            rows.append({'figure': figure, 'method': method,
                         'false_per_30': 30 * runs / judged,
                         'caught_within_3': caught,
                         'ms_per_verdict': 1000 * (time.process_time() -
                                                   start) / (judged + calls)})
    print('| figure | method | false alarms / 30 nights | caught within 3 '
          'nights, of the trials | ms per verdict (at most) |')
    print('|---|---|---|---|---|')
    for r in rows:
        caught = ', '.join(f'{lvl} %: {n}' for lvl, n in
                           r['caught_within_3'].items())
        print(f'| {r["figure"]} | {r["method"]} | {r["false_per_30"]:.1f} | '
              f'{caught} | {r["ms_per_verdict"]:.1f} |')
    return rows


def night_times(out):
    '''``{group: {nights, median, min, max}}``: the seconds one group of
    one night took, reframe's start-up included.'''
    found = {}
    for _, group, rec in nightsmod.done(out):
        found.setdefault(group, []).append(rec['seconds'])
    return {g: {'nights': len(t), 'median': statistics.median(t),
                'min': min(t), 'max': max(t)} for g, t in found.items()}


def print_table(results):
    print('| figure | clean nights | spread | false alarms / 30 nights '
          '(change point; band) | slowdown (real nights; median slower by) '
          '| caught within 1 / 3 / 5 nights: change point; band (trials) |')
    print('|---|---|---|---|---|---|')
    for r in results:
        if 'skipped' in r:
            print(f'| {r["figure"]} | {r["skipped"]} | | | | |')
            continue
        band_fa = '-' if r['band_false_per_30'] is None else \
            f'{r["band_false_per_30"]:.1f}'
        for level, lv in r['levels'].items():
            cp = ' / '.join(str(lv['caught'][n][0]) for n in WITHIN)
            band = ' / '.join(str(lv['caught'][n][1]) for n in WITHIN)
            print(f'| {r["figure"]} | {r["clean"]} | {r["cv"]:.1%} | '
                  f'{r["false_per_30"]:.1f}; {band_fa} | {level} % '
                  f'({lv["nights"]}; {lv["slower"]:+.0%}) | {cp}; {band} '
                  f'({lv["trials"]}) |')


def main(argv=None):
    import argparse
    parser = argparse.ArgumentParser(prog='bench/detection.py across',
                                     description=__doc__.split('\n')[0])
    parser.add_argument('-o', '--out', required=True)
    parser.add_argument('--history', type=int, default=10)
    parser.add_argument('--trials', type=int, default=10)
    parser.add_argument('--compare', action='store_true',
                        help='compare the detectors (bench/detectors.py)')
    args = parser.parse_args(argv)
    if args.compare:
        rows = compare(os.path.abspath(args.out), args.history, args.trials)
        with open(os.path.join(args.out, 'compare.json'), 'w') as fp:
            json.dump(rows, fp, indent=1)
        return
    results = analyse(os.path.abspath(args.out), args.history, args.trials)
    took = night_times(os.path.abspath(args.out))
    with open(os.path.join(args.out, 'across.json'), 'w') as fp:
        json.dump({'figures': results, 'seconds': took}, fp, indent=1)
    print_table(results)
    for group, t in took.items():
        print(f'\n{group}: {t["nights"]} nights, one takes {t["median"]:.0f} s'
              f' (median; {t["min"]:.0f}-{t["max"]:.0f} s)', end='')
    print()
