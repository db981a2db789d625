'''The detection benchmark's single runs (bench/detection.py): the suite
with reframe's --repeat on this host, clean or inside a cgroup that slows
one method's figures (blkio for direct I/O, a CPU quota for CPU-bound
figures), a run whose report the -o already holds reused; a figure's
value in every repetition of a case.'''

import json
import os
import sys

from bench import cgroups
from iogap.dd.figures import BW as DD_BW
from iogap.site import hostinfo

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

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
    found = {'blkio': None, 'cpu': None, **cgroups.unavailable()}
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


def limit(method, slow, rows, root):
    '''The cgroup that slows ``method``'s figures by ``slow``.'''
    if method == 'blkio':
        device = cgroups.device(root)
        write = next(r['ref'] for r in rows if r['figure'].endswith(
            DD_BW.name(pattern='write')))
        read = next(r['ref'] for r in rows if r['figure'].endswith(
            DD_BW.name(pattern='read_once')))
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
