'''The spread of each of the study's contrasts paired in one job against
unpaired across jobs, on the local cluster (issue 49).

    eval "$(ci/local-slurm start --nodes 2 --node-cpus all)"
    nice python bench/contrasts.py run -o DIR [--runs 20] [--only NAME]
    python bench/contrasts.py summary DIR

``run``: each run is one reframe session (profile minicluster, partitions
knl and shared) of every contrast's cases; its figures, the per-repetition
values its jobs printed and the load average before and after are saved as
``DIR/run-NNN.json``; a stopped run resumes.

``summary``: per contrast, over the runs, the spread (standard deviation
of the log, as a CV; robust: 1.4826 MAD) of the paired figure, one value a
run, against that of one side over the other taken from different runs,
sqrt(var log A + var log B): what a ratio of two jobs pays.
'''

import argparse
import glob
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from iogap.core import steps  # noqa: E402
from iogap.core.control import geometric_mean  # noqa: E402
from iogap.fio.figures import BW as FIO_BW  # noqa: E402
from iogap.fio.figures import BW_PAIRED as FIO_PAIRED  # noqa: E402
from iogap.fio.figures import BW_SPREAD as FIO_SPREAD  # noqa: E402
from iogap.osu import parse  # noqa: E402
from iogap.osu.figures import (LATENCY_AT, LATENCY_GROWTH,  # noqa: E402
                               LATENCY_PAIRED, LATENCY_SMALLEST)
from iogap.pio.figures import BW, BW_PAIRED, BW_SIDE  # noqa: E402

#: name: (partition, cases, A, B, paired); a figure's name, or a run's
#: label read from the OSU job's steps; core_spec: each side a case (twins)
def _pair(phase, a, b):
    return (BW_SIDE.name(phase=phase, side=a), BW_SIDE.name(phase=phase,
                                                           side=b),
            BW_PAIRED.name(phase=phase))


CONTRASTS = {
    'collective': ('shared', 'IORPair.*%pair=collective',
                   *_pair('write', 'collective', 'independent')),
    'cb_buffer': ('shared', 'IORPair.*%pair=cb_buffer',
                  *_pair('write', 'cb_large', 'cb_small')),
    'direct_read': ('shared', 'IORPair.*%pair=direct_2',
                    *_pair('read_once', 'direct', 'buffered')),
    'direct_write': ('shared', 'IORPair.*%pair=direct_2',
                     *_pair('write', 'direct', 'buffered')),
    'reread': ('shared', 'IORPair.*%pair=reread_2',
               *_pair('read_3x', 'fewer', 'more')),
    'affinity': ('shared', 'IORPair.*%pair=affinity',
                 *_pair('read_once', 'bound', 'unbound')),
    'threads_one_core': ('shared', 'FioThreads.*%threads=16',
                         FIO_BW.name(), FIO_SPREAD.name(), FIO_PAIRED.name()),
    'core_spec': ('shared', 'IORCollective.*%core_spec=1.*%cpu_bind=default'
                  '.*%striping=default.*%api=HDF5.*%io=collective',
                  'core_spec=1', 'core_spec=0', BW.name(phase='write')),
    'inter_node_latency': ('knl', 'OSULatency.*%placement=inter_node',
                           'measure', 'control', LATENCY_PAIRED.name()),
    'large_message_latency': ('knl', 'OSULatency.*%placement=inter_node',
                              LATENCY_AT.name(size=65536),
                              LATENCY_SMALLEST.name(),
                              LATENCY_GROWTH.name(size=65536)),
}
OPTIONS = ['-S', 'FioThreads.runtime=3', '-S', 'FioThreads.file_size=256m']


def cases(report):
    return [tc for run in report['runs'] for tc in run['testcases']
            if not tc['fixture']]


def figures(tc):
    return {k.split(':')[-1]: v[0] for k, v in
            (tc.get('perfvalues') or {}).items()}


def osu_reps(tc):
    '''``{run: {rep: latency}}`` of a paired OSU job: the smallest size's
    for osu_latency, per peer at 8 B for osu_alltoall.'''
    with open(os.path.join(tc['outputdir'], 'rfm_job.out')) as fp:
        found = steps.parse(fp.read())
    ranks = {'measure': tc['num_tasks'], 'control': tc['num_tasks'] // 2}
    out = {}
    for step in found:
        if step.labels.get('run') not in ranks:
            continue
        [table] = parse.parse_tables(step.text)
        latency = table.values('Latency')
        if 'alltoall' in tc['display_name'].lower():
            value = latency[8] / (ranks[step['run']] - 1)
        else:
            value = min(v for s, v in latency.items() if s <= 8)
        out.setdefault(step['run'], {})[step['rep']] = value
    return out


def record(report):
    '''``{contrast: (A, B, paired)}`` of one session.'''
    found = {}
    for name, (_, pattern, a, b, paired) in CONTRASTS.items():
        tcs = [tc for tc in cases(report) if tc['result'] == 'pass' and
               re.search(pattern.replace('%core_spec=1', '%core_spec=\\d'),
                         tc['display_name'])]
        if name == 'core_spec':
            by = {int(re.search(r'%core_spec=(\d)', tc['display_name'])
                      .group(1)): figures(tc)[paired] for tc in tcs}
            if len(by) == 2:
                found[name] = (by[1], by[0], by[1] / by[0])
        elif tcs and a in ('measure',):
            reps = osu_reps(tcs[0])
            found[name] = (statistics.median(reps['measure'].values()),
                           statistics.median(reps['control'].values()),
                           geometric_mean([reps['measure'][r] /
                                           reps['control'][r]
                                           for r in reps['measure']]))
        elif tcs:
            f = figures(tcs[0])
            found[name] = (f[a], f[b], f[paired])
    return found


def run(args):
    os.makedirs(args.out, exist_ok=True)
    names = args.only or list(CONTRASTS)
    for i in range(args.runs):
        path = os.path.join(args.out, f'run-{i:03d}.json')
        if os.path.exists(path):
            continue
        load, t0 = os.getloadavg(), time.time()
        report, failed = {'runs': []}, []
        for part in sorted({CONTRASTS[n][0] for n in names}):
            select = '|'.join(dict.fromkeys(
                CONTRASTS[n][1].replace('%core_spec=1', '%core_spec=[01]')
                for n in names if CONTRASTS[n][0] == part))
            out = os.path.join(args.out, f'rfm-{i:03d}-{part}')
            env = dict(os.environ, IOGAP_MINICLUSTER_PARTITIONS=part,
                       IOGAP_OUTPUT=out, RFM_COLORIZE='n')
            proc = subprocess.run(
                [os.path.join(os.path.dirname(sys.executable), 'reframe'),
                 '-C', os.path.join(ROOT, 'reframe_config.py'), '--system',
                 'minicluster', '-c', os.path.join(ROOT, 'checks'), '-R',
                 '-n', select, *OPTIONS, '-r'], env=env,
                capture_output=True, text=True, cwd=ROOT)
            for p in glob.glob(os.path.join(out, 'reports', '*.json')):
                with open(p) as fp:
                    report['runs'] += json.load(fp)['runs']
            failed += [f'{tc["display_name"]} (exit {proc.returncode})'
                       for tc in cases(report) if tc['result'] != 'pass']
        with open(path, 'w') as fp:
            json.dump({'load_before': load, 'load_after': os.getloadavg(),
                       'start': t0, 'seconds': time.time() - t0,
                       'failed': failed, 'found': record(report)}, fp,
                      indent=1)
        print(f'run {i}: {time.time() - t0:.0f} s, load {load[0]:.1f}, '
              f'{len(failed)} failed', flush=True)


def spread(logs, robust=False):
    if robust:
        mid = statistics.median(logs)
        return 1.4826 * statistics.median(abs(x - mid) for x in logs)
    return statistics.stdev(logs)


def summary(args):
    runs = [json.load(open(p)) for p in
            sorted(glob.glob(os.path.join(args.out, 'run-*.json')))]
    loads = [r['load_before'][0] for r in runs]
    print(f'{len(runs)} runs, load average (1 min) before each '
          f'{min(loads):.1f}-{max(loads):.1f}, median '
          f'{statistics.median(loads):.1f}; '
          f'{sum(len(r["failed"]) for r in runs)} failed case(s)')
    print('| contrast | runs | A / B (median) | paired CV | unpaired CV '
          '| paired / unpaired | robust: paired, unpaired |')
    print('|---|--:|--:|--:|--:|--:|--:|')
    for name in CONTRASTS:
        rows = [r['found'][name] for r in runs if name in r['found']]
        if len(rows) < 3:
            continue
        a, b, p = ([math.log(row[k]) for row in rows] for k in range(3))
        paired = [spread(p), spread(p, True)]
        unpaired = [math.hypot(spread(a), spread(b)),
                    math.hypot(spread(a, True), spread(b, True))]
        ratio = math.exp(statistics.median(p))
        print(f'| {name} | {len(rows)} | {ratio:.3g} | '
              f'{100 * paired[0]:.1f} % | {100 * unpaired[0]:.1f} % | '
              f'{paired[0] / unpaired[0]:.2f} | {100 * paired[1]:.1f} %, '
              f'{100 * unpaired[1]:.1f} % |')


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = p.add_subparsers(dest='cmd', required=True)
    r = sub.add_parser('run')
    r.add_argument('-o', '--out', required=True)
    r.add_argument('--runs', type=int, default=20)
    r.add_argument('--only', nargs='*', choices=list(CONTRASTS))
    s = sub.add_parser('summary')
    s.add_argument('out')
    args = p.parse_args()
    (run if args.cmd == 'run' else summary)(args)


if __name__ == '__main__':
    main()
