'''Detection power: the smallest regression each figure catches.

    python bench/detection.py [--runs 10] [--levels 5,10,15,25,40] [-o DIR]

Given the -o of an interrupted benchmark, it resumes: finished runs are
reused.

Across nights (bench/nights.py, bench/across.py, bench/detectors.py):

    python bench/detection.py nights -o DIR [--nights 60]   # real nights
    python bench/detection.py across -o DIR [--compare]     # the tables
    python bench/detection.py calibrated [-o DIR]   # threshold before/after

Runs the suite on the generic profile (this host) with reframe's --repeat
(bench/singleruns.py): two sets of clean runs, then runs with slowdowns
injected for real through cgroup v1 -- blkio throttling of the scratch
device for direct I/O, a CPU quota for CPU-bound figures (cached reads,
small messages). The first clean set sets each figure's band with the
re-baselining noise model (iogap.judge.noise); the second counts its false
alarms; every slowdown level counts how many runs the band flags. A method the machine
lacks is skipped with its reason. Prints a table and writes it as JSON.
The clean runs also give the spread of the generic findings (ratios,
bench/findings.py).
'''

import argparse
import json
import os
import statistics
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench.findings import findings  # noqa: E402
from bench.singleruns import (  # noqa: E402
    CLEAN, SELECT, limit, methods, run, values)
from iogap.core import registry     # noqa: E402
from iogap.core.figures import HIGHER   # noqa: E402
from iogap.dd.figures import BW as DD_BW   # noqa: E402
from iogap.judge import noise   # noqa: E402
from iogap.osu.figures import LATENCY_SMALLEST   # noqa: E402
from iogap.site import hostinfo   # noqa: E402

#: Figures judged, by the method that slows them: (check, params, var)
#: (names from the figures' declarations)
FIGURES = {
    'blkio': [('DDSingleStream', {'mode': 'direct'},
               DD_BW.name(pattern='write')),
              ('DDSingleStream', {'mode': 'direct'},
               DD_BW.name(pattern='read_once'))],
    'cpu': [('DDSingleStream', {'mode': 'buffered'},
             DD_BW.name(pattern='read_3x')),
            ('OSULatency', {}, LATENCY_SMALLEST.name())],
}


def flagged(value, ref, tol, better_high):
    return value < ref * (1 - tol) if better_high else \
        value > ref * (1 + tol)


def options():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--runs', type=int, default=10)
    parser.add_argument('--levels', default='5,10,15,25,40',
                        help='slowdowns in percent')
    parser.add_argument('-o', '--out', default=tempfile.mkdtemp(
        prefix='iogap-bench-'))
    return parser.parse_args()


def main():
    args = options()
    root = hostinfo.scratch_root()
    os.makedirs(root, exist_ok=True)
    available = methods(root)
    for method, why in available.items():
        if why:
            print(f'{method}: skipped: {why}', file=sys.stderr)

    first = run('clean-a', args.out, root, args.runs, CLEAN)
    second = run('clean-b', args.out, root, args.runs, CLEAN)
    table = bands(first, second, available)
    for level in [int(x) for x in args.levels.split(',')]:
        for method in ('blkio', 'cpu'):
            rows = [r for r in table if r['method'] == method]
            if rows:
                slowed(method, level, rows, args, root)

    for row in table:
        caught = [lvl for lvl, n in sorted(row['caught'].items())
                  if n >= 0.9 * args.runs]
        row['smallest_caught'] = caught[0] if caught else None

    results = {'runs': args.runs, 'methods': available, 'figures': table,
               'findings': findings(first, second)}
    with open(os.path.join(args.out, 'detection.json'), 'w') as fp:
        json.dump(results, fp, indent=1)
    print_table(results, args.runs)


def bands(first, second, available):
    '''A row per figure a method here can slow: its band from the first
    clean runs, its false alarms in the second.'''
    table = []
    for method, figures in FIGURES.items():
        if available[method]:
            continue
        for check, params, var in figures:
            clean = values(first, check, params, var)
            cv = noise.spread(clean)
            tol, detects = noise.band(cv)
            high = registry.better(check, var) == HIGHER
            ref = statistics.median(clean)
            false = sum(flagged(v, ref, tol, high)
                        for v in values(second, check, params, var))
            table.append({'figure': f'{check} {params} {var}', 'method':
                          method, 'cv': cv, 'band': tol, 'model_detects':
                          detects, 'false_alarms': false, 'caught': {},
                          'achieved': {}, 'ref': ref, 'high': high})
    return table


def slowed(method, level, rows, args, root):
    '''Runs with ``method``'s figures slowed by ``level`` %: how many each
    row's band flags, and what the slowdown really did to its median.'''
    groups = [limit(method, level / 100, rows, root)]
    report = run(f'{method}-{level}', args.out, root, args.runs, SELECT,
                 groups)
    os.rmdir(groups[0])
    for row in rows:
        check, params, var = next(
            f for f in FIGURES[method]
            if f'{f[0]} {f[1]} {f[2]}' == row['figure'])
        got = values(report, check, params, var)
        row['caught'][level] = sum(
            flagged(v, row['ref'], row['band'], row['high']) for v in got)
        # What the throttle really did to the median
        change = statistics.median(got) / row['ref'] - 1
        row['achieved'][level] = -change if row['high'] else change


def print_table(results, runs):
    print(f'| figure | slowed by | noise (CV) | band | false alarms '
          f'(of {runs}) | caught at each slowdown (achieved) | smallest '
          f'caught in 9/10 | model says |')
    print('|---|---|---|---|---|---|---|---|')
    for r in results['figures']:
        caught = ', '.join(f'{lvl}% ({r["achieved"][lvl]:.0%}): {n}'
                           for lvl, n in r['caught'].items())
        smallest = f'{r["smallest_caught"]}%' if r['smallest_caught'] \
            else 'none tried'
        guard = 'guards nothing' if r['band'] > noise.MAX_TOLERANCE \
            else f'{r["model_detects"]:.0%}'
        print(f'| {r["figure"]} | {r["method"]} | {r["cv"]:.1%} | '
              f'{r["band"]:.0%} | {r["false_alarms"]} | {caught} | '
              f'{smallest} | {guard} |')
    print()
    print('| finding (ratio) | min | median | max | runs |')
    print('|---|---|---|---|---|')
    for name, f in results['findings'].items():
        print(f'| {name} | {f["min"]:.3g} | {f["median"]:.3g} | '
              f'{f["max"]:.3g} | {f["runs"]} |')


if __name__ == '__main__':
    if sys.argv[1:2] == ['nights']:
        from bench import nights
        nights.main(sys.argv[2:])
    elif sys.argv[1:2] == ['calibrated']:
        from bench import calibrated
        calibrated.main(sys.argv[2:])
    elif sys.argv[1:2] == ['across']:
        from bench import across
        across.main(sys.argv[2:])
    else:
        main()
