'''What a reframe invocation does before any test: nothing, when it only
lists; when it runs, it takes the scratch root and the output directory
for itself (one run at a time), checks the output file system and the
results database (iogap.runguard) and clears what killed runs left behind.
'''

import os
import subprocess
import sys

from iogap import runguard
from iogap.core import scratch
from iogap.errors import IogapError, ReferenceError
from iogap.judge import references

#: Options with which reframe runs (or dry-runs) tests
_RUNS = ('-r', '--run', '--dry-run', '--ci-generate')


def runs(argv):
    return any(a in _RUNS for a in argv[1:])


def dry(argv):
    return '--dry-run' in argv


def start(argv, system, output, results_db=None):
    '''Check the profile's scratch roots, say whether anything will be
    judged, and, for a run, lock and clean.'''
    roots = sorted({p['extras']['scratch_root']
                    for p in system['partitions']})
    for root in roots:
        scratch.check_rules(root)

    if references.current() is None:
        path = references.path_for(system['name'])
        if os.environ.get('IOGAP_REQUIRE_REFERENCES') == '1':
            raise ReferenceError(f'{path}: no reference file for system '
                                 f'{system["name"]}, and IOGAP_REQUIRE_'
                                 f'REFERENCES=1 demands one')
        print(f'iogap: no reference file {path}: the figures of '
              f'{system["name"]} are measured but not judged',
              file=sys.stderr)

    absent = references.current() and references.current().absent_count()
    if absent:
        print(f'iogap: {absent} reference(s) judge cases that need a feature '
              f'this host lacks (see the profile\'s detectable_features): '
              f'not judged here', file=sys.stderr)

    if not runs(argv):
        return

    if dry(argv):
        os.makedirs(output, exist_ok=True)
        scratch.lock_run(output, 'output directory')
        return

    runguard.check_output(output)
    scratch.lock_run(output, 'output directory')
    # After the lock: the database is another run's while it holds it
    runguard.guard(output, results_db or os.path.join(output, 'results.db'))

    if any('slurm' in p['scheduler'] or p['scheduler'] == 'squeue'
           for p in system['partitions']):
        check_slurm()

    for root in roots:
        made = scratch.create(root)
        if made:
            print(made, file=sys.stderr)
        # A root this host cannot use is the jobs' to report
        if os.path.isdir(root) and not scratch.problem(root):
            scratch.lock_run(root, 'scratch root')
            swept = scratch.remove_leftovers(root)
            if swept:
                print(swept, file=sys.stderr)


def check_slurm():
    '''Stop before any job when the Slurm controller does not answer: each
    submission would otherwise wait for it in turn.'''
    try:
        proc = subprocess.run(['scontrol', 'ping'], capture_output=True,
                              text=True, timeout=30)
        answer = [line for line in (proc.stdout + proc.stderr).splitlines()
                  if line.strip().strip('*')]
        up = proc.returncode == 0 and answer and 'UP' in answer[0]
    except (OSError, subprocess.TimeoutExpired) as err:
        up, answer = False, [str(err)]

    if not up:
        said = answer[0].strip() if answer else 'no reply'
        raise IogapError(f'the Slurm controller does not answer ({said}): '
                         f'no job can be submitted')


def file_handlers(argv, output):
    '''The debug log of a run; a listing writes none.'''
    if not runs(argv):
        return []

    os.makedirs(output, exist_ok=True)
    return [{'type': 'file', 'name': os.path.join(output, 'reframe.log'),
             'level': 'debug', 'append': False,
             'format': '[%(asctime)s] %(levelname)s: %(check_info)s: '
                       '%(message)s'}]
