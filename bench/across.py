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
from bench.trials import (WITHIN, clean_of, detection, false_alarms, levels,
                          pools)
from iogap.core import registry
from iogap.core.figures import HIGHER
from iogap.judge import noise

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
