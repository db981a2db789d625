#!/usr/bin/env python3
'''A site onboarded from nothing to a first judged night, timed, on the
local Slurm (a copy of the repository, so nothing here changes):

    eval "$(ci/local-slurm start)"        (or --nodes 2)
    python bench/onboard.py [--select REGEX ...] [--out DIR]

The commands are the README's ("Adding a system"): ``python -m
iogap.profile new site``, the first baseline (``--repeat 3``) and
``python -m iogap.rebaseline`` on its report, then a night judged against
the reference it wrote. The baseline and the night run the selected cases
only (the whole suite takes hours at the defaults); ``count=16`` keeps
dd's steps short. Prints each command, its wall time and its outcome.
'''

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLAIN = '(?=.*%core_spec=0)(?=.*%cpu_bind=default)'
SELECT = (f'^DDSingleStream(?=.*%mode=direct)(?=.*%darshan=off){PLAIN}',
          f'^OSULatency{PLAIN}')


def timed(what, cmd, cwd, env):
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True,
                          text=True)
    took = time.monotonic() - start
    last = (proc.stdout.strip() or proc.stderr.strip()).splitlines()[-1:]
    print(f'{what}: {took:.0f} s, exit {proc.returncode}: '
          f'{last[0] if last else ""}', flush=True)
    if proc.returncode:
        sys.exit(proc.stdout[-2000:] + proc.stderr[-2000:])
    return proc


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--select', nargs='*', default=list(SELECT))
    parser.add_argument('--out', default='/var/tmp/iogap-onboard')
    args = parser.parse_args()
    if not os.environ.get('SLURM_CONF'):
        sys.exit('no local Slurm: eval "$(ci/local-slurm start)" first')
    shutil.rmtree(args.out, ignore_errors=True)
    repo = os.path.join(args.out, 'repo')
    shutil.copytree(ROOT, repo, ignore=shutil.ignore_patterns(
        '.git', '.venv', 'output', 'build', '__pycache__'))
    env = dict(os.environ, RFM_COLORIZE='n',
               IOGAP_OUTPUT=os.path.join(args.out, 'output'))
    scratch = os.path.join(args.out, 'scratch')
    reframe = [os.path.join(os.path.dirname(sys.executable), 'reframe'),
               '-C', 'reframe_config.py', '--system', 'site']
    selected = [o for s in args.select for o in ('-n', s)]
    small = ['-S', 'count=16']

    # The tools come from IOGAP_SPACK_VIEW or PATH: a Spack named here
    # would build the whole stack in a job first (README, "Adding a system")
    timed('profile new', [sys.executable, '-m', 'iogap.profile', 'new',
                          'site', '--scratch', scratch, '--no-spack'],
          repo, env)
    report = os.path.join(env['IOGAP_OUTPUT'], 'reports',
                          'baseline-site.json')
    timed('baseline (--repeat 3)', reframe + selected + small + [
        '--repeat', '3', '--report-file', report, '-r'], repo, env)
    timed('rebaseline', [sys.executable, '-m', 'iogap.rebaseline', report],
          repo, env)
    timed('judged night', reframe + selected + small + [
        '-n', 'AbsoluteCheck', '-r'], repo, env)
    newest = max(glob.glob(os.path.join(env['IOGAP_OUTPUT'], 'reports',
                                        'run-report-*.json')),
                 key=os.path.getmtime)
    with open(newest) as fp:
        cases = [tc for r in json.load(fp)['runs'] for tc in r['testcases']
                 if not tc['fixture']]
    judged = [tc for tc in cases if tc['name'].startswith('AbsoluteCheck')]
    results = [tc['result'] for tc in cases]
    print(f'night: {len(cases)} cases, {len(judged)} of them judgements; '
          f'{ {r: results.count(r) for r in sorted(set(results))} }')


if __name__ == '__main__':
    main()
