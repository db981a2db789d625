'''Between-session spread of the dd figures, raw and paired with the memory
copy of the same repetition (issue 40).

    nice python bench/paired.py run -o DIR [--sessions 12] [--gap 150]
                                          [--reps 5]
    python bench/paired.py summary DIR

``run``: each session is one reframe run (``--exec-policy serial``, so a
case has the node to itself but the machine's other users) of
DDSingleStream direct and buffered, default binding, no Darshan, with
``--reps`` repetitions; a session waits ``--gap`` seconds after the last
one. The job's steps are parsed into per-repetition bandwidths (MB/s) and
saved as ``DIR/session-NNN.json`` with the reported figures; a stopped run
resumes.

``summary``: for direct write, direct read-once and cached re-read
(buffered read_3x), the spread between sessions (robust CV, 1.4826 MAD
over median, and the plain CV, both in %) of the raw median (the reported
``*_bw``), the raw max, the paired geometric mean (the reported
``*_bw_paired``) and the paired max, over the first 3 repetitions and all.
'''

import argparse
import glob
import json
import math
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from iogap.core import steps  # noqa: E402
from iogap.core.control import geometric_mean  # noqa: E402
from iogap.dd.control import ratios  # noqa: E402
from iogap.dd.parse import dd_record  # noqa: E402

SELECT = ('DDSingleStream.*%cpu_bind=default.*%darshan=off'
          '.*%mode=(direct|buffered)')

#: The judged figures: (label, mode, pattern)
CASES = [('direct write', 'direct', 'write'),
         ('direct read-once', 'direct', 'read_once'),
         ('cached re-read', 'buffered', 'read_3x')]


#: The memory copy's bytes in sessions recorded before they said it
#: (the control's size then, 10000 MiB)
CONTROL_BYTES = 10000 * 2**20


def per_rep(stdout):
    '''``{op: {rep: MB/s}}`` of a dd stream's job output, and the bytes
    of its memory copies under ``memory_bytes``; read_3x is the mean of
    the three reads of a repetition.'''
    with open(stdout) as fp:
        found = steps.parse(fp.read())
    series = {}
    for step in found:
        record = dd_record(step)
        if step['op'] != 'calibrate' and record:
            series.setdefault(step['op'], {})[step['rep']] = \
                record[0] / record[1] / 1e6
            if step['op'] == 'memory':
                series['memory_bytes'] = record[0]
    reads = [series.pop(f'read{p}') for p in (1, 2, 3)]
    series['read_once'] = reads[0]
    series['read_3x'] = {r: statistics.fmean(p[r] for p in reads)
                         for r in reads[0]}
    series['write'] = series.pop('write')
    return series


def session(out, n, reps):
    '''One reframe session; its record, also saved in ``out``.'''
    here = os.path.join(out, f'session-{n:03d}')
    scratch = os.path.join(here, 'scratch')
    os.makedirs(scratch, exist_ok=True)
    env = dict(os.environ, IOGAP_OUTPUT=os.path.join(here, 'out'),
               IOGAP_SCRATCH=scratch, RFM_COLORIZE='n')
    start, load = time.time(), os.getloadavg()[0]
    proc = subprocess.run(
        [os.path.join(ROOT, '.venv', 'bin', 'reframe'), '-C',
         'reframe_config.py', '-n', SELECT, '-S',
         f'DDSingleStream.repetitions={reps}', '-S',
         # the control these sessions were measured with, not the
         # generic profile's (smaller, for CI)
         'DDSingleStream.control_size=10000m', '--exec-policy', 'serial',
         '-r'], cwd=ROOT, env=env, text=True, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT)
    record = {'session': n, 'exit': proc.returncode, 'load': round(load, 2),
              'seconds': round(time.time() - start, 1),
              'started': time.strftime('%H:%M:%S', time.gmtime(start)),
              'cases': {}}
    reports = sorted(glob.glob(os.path.join(here, 'out', 'reports',
                                            '*.json')))
    for run in json.load(open(reports[-1]))['runs'] if reports else []:
        for tc in run['testcases']:
            if tc['name'].startswith('DDSingleStream') and \
                    tc['result'] == 'pass':
                record['cases'][tc['mode']] = {
                    'reps': per_rep(os.path.join(tc['outputdir'],
                                                 'rfm_job.out')),
                    'figures': {k.rsplit(':', 1)[-1]: v[0] for k, v in
                                tc['perfvalues'].items()}}
    with open(here + '.json', 'w') as fp:
        json.dump(record, fp, indent=1)
    return record


def run(args):
    os.makedirs(args.out, exist_ok=True)
    for n in range(args.sessions):
        if os.path.exists(os.path.join(args.out, f'session-{n:03d}.json')):
            continue
        r = session(args.out, n, args.reps)
        print(f'session {n} at {r["started"]} UTC: exit {r["exit"]}, '
              f'{r["seconds"]} s, load {r["load"]}', flush=True)
        if n + 1 < args.sessions:
            time.sleep(args.gap)


def spread(values):
    '''``(robust CV %, CV %)`` of ``values``.'''
    med = statistics.median(values)
    mad = statistics.median(abs(v - med) for v in values)
    return (100 * 1.4826 * mad / med,
            100 * statistics.stdev(values) / statistics.fmean(values))


SUMMARIES = {
    'raw median': lambda io, mem: statistics.median(io.values()),
    'raw geomean': lambda io, mem: geometric_mean(list(io.values())),
    'raw max': lambda io, mem: max(io.values()),
    'paired geomean': lambda io, mem: geometric_mean(ratios(io, mem)),
    'paired max': lambda io, mem: max(ratios(io, mem)),
}


def summary(args):
    records = [json.load(open(p)) for p in
               sorted(glob.glob(os.path.join(args.out, 'session-*.json')))]
    print(f'{len(records)} sessions, {records[0]["started"]}-'
          f'{records[-1]["started"]} UTC, load '
          f'{min(r["load"] for r in records)}-'
          f'{max(r["load"] for r in records)}')
    copies = [c['reps'].get('memory_bytes', CONTROL_BYTES) / 1e6 / v
              for r in records for c in r['cases'].values()
              for v in c['reps']['memory'].values()]
    sizes = sorted({c['reps'].get('memory_bytes', CONTROL_BYTES)
                    for r in records for c in r['cases'].values()})
    print(f'memory copy ({"/".join(map(str, sizes))} bytes): '
          f'{min(copies):.3f}-'
          f'{max(copies):.3f} s, median {statistics.median(copies):.3f} s '
          f'over {len(copies)} repetitions')
    print('| figure | summary | reps | sessions | robust CV % | CV % |')
    print('|---|---|---|---|---|---|')
    for label, mode, pattern in CASES:
        got = [r['cases'][mode]['reps'] for r in records
               if mode in r['cases']]
        for name, how in SUMMARIES.items():
            for k in (3, None):
                values = [how(*(first(s[op], k) for op in (pattern,
                                                            'memory')))
                          for s in got]
                robust, cv = spread(values)
                print(f'| {label} | {name} | {k or "all"} | {len(values)} '
                      f'| {robust:.1f} | {cv:.1f} |')
        io = [math.log(statistics.median(s[pattern].values())) for s in got]
        mem = [math.log(statistics.median(s['memory'].values()))
               for s in got]
        print(f'| {label} | correlation of log raw median with log memory '
              f'copy | | {len(got)} | {statistics.correlation(io, mem):.2f}'
              f' | |')


def first(series, k):
    '''The first ``k`` repetitions of ``{rep: value}`` (all: ``None``).'''
    reps = sorted(series, key=int)[:k]
    return {r: series[r] for r in reps}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest='what', required=True)
    r = sub.add_parser('run')
    r.add_argument('-o', '--out', required=True)
    r.add_argument('--sessions', type=int, default=12)
    r.add_argument('--gap', type=float, default=150)
    r.add_argument('--reps', type=int, default=5)
    s = sub.add_parser('summary')
    s.add_argument('out')
    args = parser.parse_args(argv)
    (run if args.what == 'run' else summary)(args)


if __name__ == '__main__':
    main()
