'''Detection power: the smallest regression each figure catches.

    python bench/detection.py [--runs 10] [--levels 5,10,15,25,40] [-o DIR]

Given the -o of an interrupted benchmark, it resumes: finished runs are
reused.

Across nights (bench/nights.py, bench/across.py, bench/detectors.py):

    python bench/detection.py nights -o DIR [--nights 60]   # real nights
    python bench/detection.py across -o DIR [--compare]     # the tables

Runs the suite on the generic profile (this host) with reframe's --repeat:
two sets of clean runs, then runs with slowdowns injected for real through
cgroup v1 -- blkio throttling of the scratch device for direct I/O, a CPU
quota for CPU-bound figures (cached reads, small messages). The first clean
set sets each figure's band with the re-baselining noise model
(iogap.judge.noise); the second counts its false alarms; every
slowdown level counts how many runs the band flags. A method the machine
lacks is skipped with its reason. Prints a table and writes it as JSON.
The clean runs also give the spread of the generic findings (ratios).
'''

import argparse
import json
import os
import statistics
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench import cgroups            # noqa: E402
from iogap.core import registry     # noqa: E402
from iogap.core.figures import HIGHER   # noqa: E402
from iogap.dd.figures import BW as DD_BW   # noqa: E402
from iogap.judge import noise   # noqa: E402
from iogap.osu.figures import LATENCY_SMALLEST   # noqa: E402
from iogap.pio.figures import BW as IOR_BW   # noqa: E402
from iogap.profile import hostinfo   # noqa: E402

CGROUP = cgroups.CGROUP

_DD = {p: DD_BW.name(pattern=p) for p in DD_BW.fields['pattern']}

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

#: The generic profile's findings, ratios of the clean runs' figures
FINDINGS = {
    'cached_over_first_read_bw': (('buffered', _DD['read_3x']),
                                  ('buffered', _DD['read_once'])),
    'direct_read_over_cached_read_bw': (('direct', _DD['read_once']),
                                        ('buffered', _DD['read_3x'])),
    'dsync_over_direct_write_bw': (('dsync', _DD['write']),
                                   ('direct', _DD['write'])),
    'buffered_over_dsync_write_bw': (('buffered', _DD['write']),
                                     ('dsync', _DD['write'])),
}

SELECT = ['-n', 'DDSingleStream.*%cpu_bind=default.*%darshan=off|'
          'OSULatency.*%cpu_bind=default']

#: 1 GiB dd steps: a throttle lets a short burst through before it bites
SIZE = ['-S', 'DDSingleStream.count=1024']
CLEAN = SELECT[:1] + [SELECT[1] + '|DDSingleStream.*%cpu_bind=default.*'
                      '%darshan=on.*%mode=direct|IORBench.*%cpu_bind=default'
                      '.*%procs_per_node=2.*%layout=fpp%api=POSIX'
                      '%mode=direct']


def methods(root):
    '''``{method: reason it cannot run or None}`` on this machine.'''
    found = {}
    for method, knob in (('blkio', 'blkio.throttle.write_bps_device'),
                         ('cpu', 'cpu.cfs_quota_us')):
        path = os.path.join(CGROUP, method.split('.')[0], knob)
        found[method] = None if os.access(path, os.W_OK) else \
            f'{path} is not writable here (cgroup v1 {method} needed)'
    if hostinfo.fs_type(root) in hostinfo.MEMORY_FS:
        found['blkio'] = f'{root} is in memory: no device to throttle'
    return found


def run(tag, out, root, runs, select, groups=()):
    '''``reframe --repeat runs`` inside ``groups``; the run report. A tag
    whose report ``out`` already holds is reused: an interrupted benchmark
    resumes where it stopped when given the same ``-o``.'''
    reports = os.path.join(out, tag, 'reports')
    if os.path.isdir(reports) and os.listdir(reports):
        print(f'{tag}: reusing {reports}', file=sys.stderr)
        return load(reports)

    cgroups.reframe_in(groups, ROOT, root, out, tag, *select, *SIZE,
                       '--repeat', str(runs))
    return load(reports)


def load(reports):
    [name] = os.listdir(reports)
    with open(os.path.join(reports, name)) as fp:
        return json.load(fp)


def values(report, check, params, var, darshan='off'):
    '''A figure's value in every repetition of a case, in run order.'''
    found = []
    for tc in report['runs'][0]['testcases']:
        if tc['name'].split()[0] != check or tc['result'] != 'pass' or \
                tc.get('darshan', 'off') != darshan or \
                any(tc.get(k) != v for k, v in params.items()):
            continue
        found += [v[0] for k, v in tc['perfvalues'].items()
                  if k.endswith(f':{var}')]
    return found


def flagged(value, ref, tol, better_high):
    return value < ref * (1 - tol) if better_high else \
        value > ref * (1 + tol)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--runs', type=int, default=10)
    parser.add_argument('--levels', default='5,10,15,25,40',
                        help='slowdowns in percent')
    parser.add_argument('-o', '--out', default=tempfile.mkdtemp(
        prefix='iogap-bench-'))
    args = parser.parse_args()
    root = hostinfo.scratch_root()
    os.makedirs(root, exist_ok=True)
    available = methods(root)
    for method, why in available.items():
        if why:
            print(f'{method}: skipped: {why}', file=sys.stderr)

    first = run('clean-a', args.out, root, args.runs, CLEAN)
    second = run('clean-b', args.out, root, args.runs, CLEAN)
    table, results = [], {'runs': args.runs, 'methods': available}
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

    for level in [int(x) for x in args.levels.split(',')]:
        slow = level / 100
        for method in ('blkio', 'cpu'):
            rows = [r for r in table if r['method'] == method]
            if not rows:
                continue
            groups = [limit(method, slow, rows, root)]
            report = run(f'{method}-{level}', args.out, root, args.runs,
                         SELECT, groups)
            os.rmdir(groups[0])
            for row in rows:
                check, params, var = next(
                    f for f in FIGURES[method]
                    if f'{f[0]} {f[1]} {f[2]}' == row['figure'])
                got = values(report, check, params, var)
                row['caught'][level] = sum(
                    flagged(v, row['ref'], row['band'], row['high'])
                    for v in got)
                # What the throttle really did to the median
                change = statistics.median(got) / row['ref'] - 1
                row['achieved'][level] = -change if row['high'] else change

    for row in table:
        caught = [lvl for lvl, n in sorted(row['caught'].items())
                  if n >= 0.9 * args.runs]
        row['smallest_caught'] = caught[0] if caught else None

    results['figures'] = table
    results['findings'] = findings(first, second)
    with open(os.path.join(args.out, 'detection.json'), 'w') as fp:
        json.dump(results, fp, indent=1)
    print_table(results, args.runs)


def limit(method, slow, rows, root):
    '''The cgroup that slows ``method``'s figures by ``slow``.'''
    if method == 'blkio':
        device = cgroups.device(root)
        write = next(r['ref'] for r in rows if r['figure'].endswith(
            _DD['write']))
        read = next(r['ref'] for r in rows if r['figure'].endswith(
            _DD['read_once']))
        return cgroups.make('blkio', {
            'blkio.throttle.write_bps_device':
                f'{device} {int(write * 1e6 * (1 - slow))}',
            'blkio.throttle.read_bps_device':
                f'{device} {int(read * 1e6 * (1 - slow))}'})

    # A 1 ms period: the quota bites within a short step, not after it.
    # Two ranks poll for the small-message latency: both CPUs, less slow
    cpus = len(os.sched_getaffinity(0))
    return cgroups.make('cpu', {'cpu.cfs_period_us': 1000,
                          'cpu.cfs_quota_us': int(1000 * cpus * (1 - slow))})


def findings(*reports):
    '''Spread of the generic findings over every clean run.'''
    found = {}
    for name, ((nmode, nvar), (dmode, dvar)) in FINDINGS.items():
        ratios = []
        for report in reports:
            num = values(report, 'DDSingleStream', {'mode': nmode}, nvar)
            den = values(report, 'DDSingleStream', {'mode': dmode}, dvar)
            ratios += [n / d for n, d in zip(num, den)]
        found[name] = {'min': min(ratios), 'median': statistics.median(
            ratios), 'max': max(ratios), 'runs': len(ratios)}
    for name, check, write in (
            ('darshan_over_bare_dd_direct_write_bw', 'DDSingleStream',
             _DD['write']),
            ('darshan_over_bare_ior_direct_write_bw', 'IORBench',
             IOR_BW.name(phase='write'))):
        ratios = []
        for report in reports:
            on = values(report, check, {'mode': 'direct'}, write,
                        darshan='on')
            off = values(report, check, {'mode': 'direct'}, write)
            ratios += [a / b for a, b in zip(on, off)]
        found[name] = {'min': min(ratios), 'median': statistics.median(
            ratios), 'max': max(ratios), 'runs': len(ratios)}
    return found


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
    elif sys.argv[1:2] == ['across']:
        from bench import across
        across.main(sys.argv[2:])
    else:
        main()
