#!/usr/bin/env python3
'''A site onboarded from nothing to a first judged night, timed, on the
local Slurm (a copy of the repository, so nothing here changes):

    eval "$(ci/local-slurm start)"        (or --nodes 2)
    python bench/onboard.py [--budget H] [--select REGEX ...] [--out DIR]

The command is the README's ("Adding a system"): ``iogap profile
onboard site --budget H --night``, which writes the profile, prices the
baseline with the planner, chooses dd's size and the runs within the
budget, runs the baseline, re-baselines and runs the first judged night.
Prints its lines as they come, then its wall time and the figures its
lines gave (planned and spent node-hours, figures judged).
'''

import argparse
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from iogap.night.baseline import SELECT  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--budget', default='0.2',
                        help='node-hours (default: 0.2)')
    parser.add_argument('--select', nargs='+', default=list(SELECT))
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
    # The tools come from IOGAP_SPACK_VIEW or PATH: a Spack named here
    # would build the whole stack in a job first (README, "Adding a system")
    cmd = [sys.executable, '-m', 'iogap', 'profile', 'onboard', 'site',
           '--scratch', os.path.join(args.out, 'scratch'), '--no-spack',
           '--budget', args.budget, '--night', '--select', *args.select]
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=repo, env=env, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    took = time.monotonic() - start
    print(proc.stdout)
    lines = [l for l in proc.stdout.splitlines()
             if l.startswith(('iogap.onboard:', 'iogap.site.profile:'))]
    print(f'onboard: {took:.0f} s, exit {proc.returncode}', *lines,
          sep='\n')
    sys.exit(proc.returncode)


if __name__ == '__main__':
    main()
