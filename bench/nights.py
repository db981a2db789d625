'''Real nights for the detection benchmark: short runs of the stable
figures into one results database, some with a slowdown injected.

    python bench/detection.py nights -o DIR [--nights 60]

A night runs two reframe sessions: the dd group (direct write and
read-once, cached re-read) and the IOR group (IOR direct, file per process,
two tasks; only when a Spack view with IOR is there). The first
``REF_NIGHTS`` clean nights set each figure's reference; after them the
nights cycle through ``CYCLE`` (0 = clean, else a slowdown in %; both are
bench/nightplan.py's): a slowed night throttles the scratch device so that
a step runs at (1 - slowdown) of the reference bandwidths (cgroup v1
blkio; a step shorter than 5 s is refused, its slice quantizes it:
:func:`bench.cgroups.throttle_rate`, and bench/quiet.py is the bench whose
every night is throttled)
and, for the dd group, gives the run (1 - slowdown) of one CPU (cgroup v1
CPU quota; the cached re-read is one CPU-bound dd). Each session is tagged ``--session-extras
night=N,slowdown=S``; each finished group leaves ``<group>.json`` in its
night's directory, so a stopped benchmark resumes where it stopped.
'''

import json
import os
import subprocess
import sys
import time

from bench import cgroups
from bench.nightplan import (CYCLE, GROUPS, STABLE, achieved, corrections,
                             references, schedule)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def done(out):
    '''``[(night, group, record)]`` of every finished group, by night.'''
    found = []
    for name in sorted(os.listdir(out)) if os.path.isdir(out) else []:
        if not name.startswith('night-'):
            continue
        for group in GROUPS:
            path = os.path.join(out, name, f'{group}.json')
            if os.path.exists(path):
                with open(path) as fp:
                    found.append((int(name.split('-')[1]), group,
                                  json.load(fp)))
    return found


def figure_values(report, check, mode, figure):
    '''The figure's value in a run report (first passing case).'''
    for run in report['runs']:
        for tc in run['testcases']:
            if tc['name'].split()[0] == check and tc.get('mode') == mode \
                    and tc['result'] == 'pass':
                for key, value in tc.get('perfvalues', {}).items():
                    if key.rsplit(':', 1)[-1] == figure:
                        return value[0]
    return None


def run_group(out, night, group, slowdown, records, env, cpu=True):
    '''One group of one night, after the ``records`` of the nights before;
    its record (also written to disk). ``cpu`` False: the device throttle
    alone slows it, no CPU quota.'''
    spec, refs = GROUPS[group], references(records)
    wanted, correction = slowdown, corrections(records, group, slowdown)
    slowdown, limits = throttles(group, slowdown, refs, correction)
    here = os.path.join(out, f'night-{night:03d}', group)
    groups = cgroups.slowdown(
        limits, slowdown / 100 if spec['cpu'] and cpu else 0,
        env['IOGAP_SCRATCH'])
    cmd = [os.path.join(ROOT, '.venv', 'bin', 'reframe'), '-C',
           'reframe_config.py', '-n', spec['select'], *spec['set'],
           '--session-extras', f'night={night},slowdown={slowdown}', '-r']
    start, load = time.time(), os.getloadavg()[0]
    try:
        proc = subprocess.run(
            cmd, cwd=ROOT, env=dict(env, IOGAP_OUTPUT=here),
            preexec_fn=lambda: cgroups.enter(groups), text=True,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    finally:
        cgroups.remove(groups)
    seconds = time.time() - start
    report, values = stable_values(os.path.join(here, 'reports'))
    record = {'night': night, 'group': group, 'slowdown': slowdown,
              'wanted': wanted, 'seconds': round(seconds, 1),
              'exit': proc.returncode, 'values': values,
              # the machine is shared: its load when the night started
              'load': round(load, 1),
              'cpu_quota': bool(cpu and spec['cpu']),
              'limits': limits, 'correction': correction,
              'session': report and report['session_info'].get('uuid'),
              'finished': time.strftime('%Y-%m-%dT%H:%M:%S')}
    if slowdown:
        record['achieved'] = achieved(record, refs, group)
    with open(os.path.join(out, f'night-{night:03d}', f'{group}.json'),
              'w') as fp:
        json.dump(record, fp, indent=1)
    return record


def throttles(group, slowdown, refs, correction):
    '''``(slowdown, {way: bytes/s})``: the blkio caps that slow ``group``
    by ``slowdown`` % of its references, each times its ``correction``;
    none, and no slowdown, while a reference is missing.'''
    spec = GROUPS[group]
    if not slowdown:
        return slowdown, {}
    rates = {w: refs.get((group, w)) for w in spec['throttle']}
    if None in rates.values():
        return 0, {}        # no reference yet: this group runs clean
    return slowdown, {w: correction[w] * cgroups.throttle_rate(
        r * spec['unit'] * (1 - slowdown / 100), spec['step_bytes'])
        for w, r in rates.items()}


def stable_values(reports):
    '''``(run report, {check:mode:figure: value})``: the newest report in
    ``reports`` and its stable figures (``(None, {})`` without one).'''
    report = None
    if os.path.isdir(reports) and os.listdir(reports):
        with open(os.path.join(reports, sorted(os.listdir(reports))[-1])) \
                as fp:
            report = json.load(fp)
    values = {}
    for check, mode, figure in STABLE:
        value = report and figure_values(report, check, mode, figure)
        if value:
            values[f'{check}:{mode}:{figure}'] = value
    return report, values


def run_nights(out, count, env, groups, gap=0, cpu=True, cycle=CYCLE):
    '''Run nights 0..count-1 that are not done yet, ``gap`` seconds apart,
    slowed in turn by ``cycle``; ``groups()`` names the groups that can
    run now.'''
    for night in range(count):
        for group in groups():
            records = done(out)
            # A group that joined late (IOR once its view is there) starts
            # where it joined: no earlier night is filled in afterwards
            if any(n >= night and g == group for n, g, _ in records):
                continue
            os.makedirs(os.path.join(out, f'night-{night:03d}'),
                        exist_ok=True)
            rec = run_group(out, night, group, schedule(night, cycle),
                            [r for r in records if r[0] < night], env, cpu)
            print(f'night {night} {group}: slowdown {rec["slowdown"]} %, '
                  f'{rec["seconds"]:.0f} s, exit {rec["exit"]}, '
                  f'{rec["values"]}', file=sys.stderr, flush=True)
            time.sleep(gap)     # nights apart, not back to back


def main(argv=None):
    import argparse
    from iogap.site import hostinfo
    parser = argparse.ArgumentParser(prog='bench/detection.py nights',
                                     description=__doc__.split('\n')[0])
    parser.add_argument('-o', '--out', required=True)
    parser.add_argument('--nights', type=int, default=60)
    parser.add_argument('--gap', type=float, default=0,
                        help='seconds between nights (spaced, not back to '
                        'back)')
    parser.add_argument('--device-only', action='store_true',
                        help='slow by the device throttle alone (no CPU '
                        'quota: it would slow a memory-bound control too)')
    parser.add_argument('--cycle', default=','.join(map(str, CYCLE)),
                        help='slowdowns in %% after the reference nights, '
                        'in turn (0: clean)')
    parser.add_argument('--groups', default=','.join(GROUPS),
                        help='the groups a night runs (IOR joins only once '
                        'a Spack view has it)')
    args = parser.parse_args(argv)
    missing = cgroups.unavailable()
    if missing:
        sys.exit('nights: ' + '; '.join(missing.values()))
    root = hostinfo.scratch_root()
    os.makedirs(root, exist_ok=True)
    view = os.environ.get('IOGAP_SPACK_VIEW', '')

    def groups():
        # IOR joins the nights once the view has it
        wanted = args.groups.split(',')
        return [g for g in wanted if g != 'ior'] + (['ior'] if 'ior' in
                                                     wanted and os.path.exists(
            os.path.join(view, 'bin', 'ior')) else [])

    env = dict(os.environ, IOGAP_SCRATCH=root, RFM_COLORIZE='n',
               IOGAP_RESULTS_DB=os.path.join(os.path.abspath(args.out),
                                             'results.db'))
    os.makedirs(args.out, exist_ok=True)
    run_nights(os.path.abspath(args.out), args.nights, env, groups,
               args.gap, not args.device_only,
               tuple(int(x) for x in args.cycle.split(',')))
