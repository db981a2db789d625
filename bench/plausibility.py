'''How well the harness tells a tool's claimed speed from the truth.

    python bench/plausibility.py [--runs 10] [--factors 1,2] [-o DIR]
        [--ior-blocks 64m,16m] [--dd-counts 256,128]

Runs the generic profile's dd and IOR cases (buffered and direct, Darshan
off, two IOR tasks on this host) with reframe's --repeat, through the
lying wrappers of tests/data/liars: factor 1 is an honest tool behind the
same wrapper, factor 2 claims twice its speed. From each job's output it
reads every timed step's claim and the stretch of the harness's trace in
which the step's bytes surely moved (iogap.core.plausible), and prints per
case and factor: the steps and cases judged implausible (false alarms at
factor 1, catches at factor 2), and the least and greatest stretch over
claim (honest: at most 1; the check fails above 1.1).
'''

import argparse
import glob
import json
import os
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench import cgroups            # noqa: E402
from iogap.core import steps, traced   # noqa: E402
from iogap.dd import parse as dd_parse   # noqa: E402
from iogap.pio import parse as ior_parse   # noqa: E402
from iogap.core.variants import size_bytes   # noqa: E402

LIARS = os.path.join(ROOT, 'tests', 'data', 'liars')
MiB = 2**20


def select(tool, size):
    '''The reframe options of one tool's cases at one size.'''
    if tool == 'dd':
        return ['-n', 'DDSingleStream.*%cpu_bind=default.*%darshan=off.*'
                '%mode=(buffered|direct)', '-S', f'DDSingleStream.count={size}']
    return ['-n', 'IORBench.*%cpu_bind=default.*%darshan=off.*'
            '%procs_per_node=2.*%layout=fpp.*%api=POSIX.*'
            '%mode=(buffered|direct)', '-S', f'IORBench.block_size={size}']


def claims(tool, step, where, nbytes):
    '''The seconds a step's tool claims for each iteration, in order.'''
    if tool == 'dd':
        return [dd_parse.dd_record(step)[1]]
    op = step.labels.get('step')
    name = os.path.join(where, f'ior_{op}.json')
    if op not in ('write', 'read') or not os.path.exists(name):
        return []
    with open(name) as fp:
        return ior_parse.claimed_seconds(json.load(fp), op, nbytes)


def stretches(tool, where, size, tasks):
    '''``[(claimed, stretch)]`` of every timed iteration of a job (its
    output and files in ``where``), as the check holds them.'''
    with open(os.path.join(where, 'rfm_job.out')) as fp:
        found = [s for s in steps.parse(fp.read())
                 if 'calibrate' not in s.labels]
    block = 2 * size * MiB if tool == 'dd' else size_bytes(size)
    nbytes = size * MiB if tool == 'dd' else block * tasks
    out = []
    for step in found:
        traces = [t for t in step.traces if t]
        claimed = claims(tool, step, where, nbytes)
        out += [(told, stretch[0]) for _, told, _, _, stretch in
                traced.held_iterations(claimed, traces, block)
                if stretch and told > 0] if traces else []
    return out


def measure(tool, size, factor, runs, out, built):
    '''``{mode: {'cases', 'failed', 'ratios'}}`` of one tool, size and
    factor, run (or read back from ``out``).'''
    tag = f'{tool}-{size}-x{factor}'
    view = os.path.join(out, tag, 'view', 'bin')
    os.makedirs(view, exist_ok=True)
    real = os.path.join(built, 'bin', 'ior') if tool == 'ior' else \
        shutil.which('dd')
    link = os.path.join(view, tool)
    if not os.path.lexists(link):
        os.symlink(os.path.join(LIARS, tool), link)
    os.environ.update(IOGAP_SPACK_VIEW=os.path.dirname(view),
                      IOGAP_LIAR_FACTOR=str(factor),
                      **{f'IOGAP_LIAR_{tool.upper()}': real})
    scratch = os.path.join(out, tag, 'scratch')
    os.makedirs(scratch, exist_ok=True)
    if not glob.glob(os.path.join(out, tag, 'reports', '*.json')):
        cgroups.reframe_in((), ROOT, scratch, out, tag,
                           *select(tool, size), '--repeat', str(runs))
    [report] = glob.glob(os.path.join(out, tag, 'reports', '*.json'))
    with open(report) as fp:
        cases = [tc for r in json.load(fp)['runs'] for tc in r['testcases']
                 if tc['name'].startswith(('DDSingle', 'IORBench'))]
    rows = {}
    for tc in cases:
        row = rows.setdefault(tc['mode'], {'cases': 0, 'failed': 0,
                                           'ratios': []})
        row['cases'] += 1
        row['failed'] += tc['result'] == 'fail'
        where = tc['outputdir'] if tc['result'] == 'pass' else \
            tc['stagedir']
        row['ratios'] += [s / c for c, s in stretches(
            tool, where, size, tc.get('num_tasks') or 1)]
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--runs', type=int, default=10)
    ap.add_argument('--factors', default='1,2')
    ap.add_argument('--ior-blocks', default='64m,16m')
    ap.add_argument('--dd-counts', default='256,128')
    ap.add_argument('--view', default=os.environ.get('IOGAP_SPACK_VIEW') or
                    os.path.join(ROOT, 'build', 'spack', 'generic', 'view'),
                    help='the Spack view whose IOR the liar runs')
    ap.add_argument('-o', '--out', default='/var/tmp/iogap-bench-plausible')
    args = ap.parse_args()
    limit = traced.TRACE_TOLERANCE
    print('| tool | size | mode | factor | cases failed | steps over '
          f'{limit} | stretch/claim min-median-max |')
    print('|---|---|---|---|---|---|---|')
    sizes = [('ior', s) for s in args.ior_blocks.split(',') if s] + \
        [('dd', int(s)) for s in args.dd_counts.split(',') if s]
    for tool, size in sizes:
        for factor in args.factors.split(','):
            rows = measure(tool, size, factor, args.runs, args.out,
                           args.view)
            for mode, row in sorted(rows.items()):
                r = sorted(row['ratios'])
                over = sum(x > limit for x in r)
                print(f'| {tool} | {size} | {mode} | {factor} | '
                      f'{row["failed"]} of {row["cases"]} | {over} of {len(r)}'
                      f' | {r[0]:.2f}-{r[len(r) // 2]:.2f}-{r[-1]:.2f} |'
                      if r else f'| {tool} | {size} | {mode} | {factor} | '
                      f'{row["failed"]} of {row["cases"]} | no trace | |',
                      flush=True)


if __name__ == '__main__':
    main()
