'''The generic profile's dd judgements on differently-behaving set-ups.

    python bench/mechanisms.py [--runs 3] [--count 128] [--throttle 60]
                               [--setups plain,loop,blkio] [-o DIR]

Runs the dd family (buffered, dsync, direct) with every RatioCheck and
MechanismCheck of reference/anyhost.yaml, ``--runs`` times (reframe
--repeat), with the scratch root on each set-up in turn (bench/setups.py
makes them):

* ``plain``: the host's own disk, as the suite finds it;
* ``loop``: an ext4 file system on a loop device backed by a file on that
  disk (losetup + mkfs.ext4, mounted under the bench's own directory): its
  "device" is served from the host's page cache;
* ``blkio``: the plain disk, with the run inside a cgroup v1 blkio group
  throttling the disk to ``--throttle`` MB/s each way.

Prints, per set-up and judgement, the verdicts, the values and the
precondition measured, then the ranges of every ratio and precondition
(for the reference's provenance), and writes them as JSON. Loop devices,
mounts and cgroups are removed afterwards whatever happens. A set-up the
machine cannot make (not root, no cgroup v1 blkio) is skipped with the
reason. Needs root.
'''

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench import cgroups   # noqa: E402
from bench.setups import Setups   # noqa: E402
from iogap.dd.figures import MEMORY_BW   # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SELECT = ['-n', 'DDSingleStream.*%cpu_bind=default', '-x', 'darshan=on',
          '-n', 'RatioCheck', '-n', 'MechanismCheck']


def run(tag, out, scratch, groups, args):
    '''``reframe --repeat`` on one set-up; its run report.'''
    cgroups.reframe_in(groups, ROOT, scratch, out, tag, *SELECT, '-S',
                       f'DDSingleStream.count={args.count}', '--repeat',
                       str(args.runs))
    reports = os.path.join(out, tag, 'reports')
    [name] = os.listdir(reports)
    with open(os.path.join(reports, name)) as fp:
        return json.load(fp)


def figure(report, mode, var):
    '''A DDSingleStream figure in every repetition, in run order.'''
    return [v[0] for tc in report['runs'][0]['testcases']
            if tc['name'].split()[0] == 'DDSingleStream' and
            tc.get('mode') == mode and tc['result'] == 'pass'
            for k, v in tc['perfvalues'].items() if k.endswith(f':{var}')]


def judgements(report, reference):
    '''``{name: {'verdicts': [...], 'values': [...], 'pre': [...]}}``.'''
    entries = {e['name']: e for kind in ('ratios', 'mechanisms')
               for e in reference.get(kind) or []}
    found = {}
    for tc in report['runs'][0]['testcases']:
        name = tc.get('judgement')
        if tc['name'].split()[0] not in ('RatioCheck', 'MechanismCheck') or \
                name not in entries:
            continue
        row = found.setdefault(name, {'verdicts': [], 'values': [],
                                      'pre': [], 'why': ''})
        row['verdicts'].append('n/a' if tc.get('not_applicable')
                               else tc['result'])
        row['why'] = tc.get('not_applicable') or row['why']
        row['values'] += [v[0] for v in (tc.get('perfvalues') or
                                         {}).values()]
    for name, row in found.items():
        entry = entries[name]
        if 'numerator' in entry:
            # The ratio itself, also where it was not applicable
            num, den = (figure(report, entry[s]['params']['mode'],
                               entry[s]['var'])
                        for s in ('numerator', 'denominator'))
            row['values'] = [n / d for n, d in zip(num, den)]
        pre = entry.get('precondition')
        if pre:
            num = figure(report, pre['numerator']['params']['mode'],
                         pre['numerator']['var'])
            den = figure(report, pre['denominator']['params']['mode'],
                         pre['denominator']['var'])
            row['pre'] = [n / d for n, d in zip(num, den)]
            row['bound'] = pre.get('at_most', pre.get('at_least'))
    return found


def span(values):
    if not values:
        return '-'
    lo, mid, hi = min(values), statistics.median(values), max(values)
    return f'{lo:.3g}' if lo == hi else f'{lo:.3g}-{hi:.3g} ({mid:.3g})'


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--count', type=int, default=128,
                        help='dd count (MiB per file)')
    parser.add_argument('--throttle', type=float, default=60,
                        help='blkio limit, MB/s each way')
    parser.add_argument('--setups', default='plain,loop,blkio')
    parser.add_argument('-o', '--out', default=None)
    args = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit('bench/mechanisms.py: needs root (losetup, mount, cgroups)')
    out = args.out or tempfile.mkdtemp(prefix='iogap-mechanisms-')
    base = tempfile.mkdtemp(prefix='iogap-mechanisms-', dir='/var/tmp')
    with open(os.path.join(ROOT, 'reference', 'anyhost.yaml')) as fp:
        reference = yaml.safe_load(fp)

    setups = Setups(base)
    # A kill still cleans up: SIGTERM and SIGHUP end through finally
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: sys.exit(1))
    results = {}
    try:
        for tag in args.setups.split(','):
            try:
                scratch, groups = getattr(setups, tag)(args)
            except (OSError, subprocess.CalledProcessError) as err:
                print(f'{tag}: skipped: {err}', file=sys.stderr)
                continue
            report = run(tag, out, scratch, groups, args)
            results[tag] = {'judgements': judgements(report, reference),
                            MEMORY_BW.name(): figure(report, 'buffered',
                                                     MEMORY_BW.name())}
    finally:
        setups.cleanup()
        subprocess.run(['rm', '-rf', base])

    with open(os.path.join(out, 'mechanisms.json'), 'w') as fp:
        json.dump(results, fp, indent=1)
    print_table(results, args)
    print(f'\n(JSON and run reports in {out})')


def print_table(results, args):
    print(f'{args.runs} runs per set-up, {args.count} MiB per dd, blkio '
          f'throttle {args.throttle:g} MB/s\n')
    print('| set-up | judgement | verdicts | value | precondition measured '
          '(bound) |')
    print('|---|---|---|---|---|')
    for tag, res in results.items():
        for name, row in res['judgements'].items():
            counts = {v: row['verdicts'].count(v) for v in row['verdicts']}
            verdicts = ', '.join(f'{v} {n}' for v, n in counts.items())
            pre = f'{span(row["pre"])} (at most {row["bound"]:g})' \
                if row['pre'] else '-'
            print(f'| {tag} | {name} | {verdicts} | {span(row["values"])} '
                  f'| {pre} |')
        print(f'| {tag} | {MEMORY_BW.name()} ({MEMORY_BW.unit}) | | '
              f'{span(res[MEMORY_BW.name()])} | |')


if __name__ == '__main__':
    main()
