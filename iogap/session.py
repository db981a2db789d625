'''What a reframe invocation does before any test: nothing, when it only
lists; when it runs, it takes the scratch root and the output directory
for itself (one run at a time), checks the output file system and the
results database (iogap.runguard) and clears what killed runs left behind.
'''

import os
import subprocess
import sys

from iogap import profile
from iogap import runguard
from iogap.core import scratch
from iogap.errors import IogapError, ReferenceFileError
from iogap.judge import references

#: Options with which reframe runs (or dry-runs) tests
_RUNS = ('-r', '--run', '--dry-run', '--ci-generate')


def runs(argv):
    return any(a in _RUNS for a in argv[1:])


def dry(argv):
    return '--dry-run' in argv


def distributes(argv):
    '''Whether ReFrame runs each case on every node (``--distribute``).'''
    return any(a == '--distribute' or a.startswith('--distribute=')
               for a in argv[1:])


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
            raise ReferenceFileError(f'{path}: no reference file for system '
                                 f'{system["name"]}, and IOGAP_REQUIRE_'
                                 f'REFERENCES=1 demands one')
        print(f'iogap: no reference file {path}: the figures of '
              f'{system["name"]} are measured but not judged',
              file=sys.stderr)

    absent = references.current() and references.current().absent_count()
    if absent:
        left = profile.omitted()
        also = f' or a partition this run left out ({", ".join(left)})' \
            if left else ''
        print(f'iogap: {absent} reference(s) judge cases that need a feature '
              f'this host lacks (see the profile\'s detectable_features)'
              f'{also}: not judged here', file=sys.stderr)

    if not runs(argv):
        return

    if dry(argv):
        scratch.make_output(output)
        scratch.lock_run(output, 'output directory')
        return

    runguard.check_output(output)
    scratch.make_output(output)
    scratch.lock_run(output, 'output directory')
    # After the lock: the database is another run's while it holds it
    runguard.guard(output, results_db or os.path.join(output, 'results.db'))

    if any('slurm' in p['scheduler'] or p['scheduler'] == 'squeue'
           for p in system['partitions']):
        check_slurm()
        check_nodes(slurm_partitions(system, argv))

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


def output_dir(argv, environ, default):
    '''Where a run writes: ``--prefix`` (last one wins), else RFM_PREFIX,
    else IOGAP_OUTPUT, else ``default``.'''
    found = environ.get('RFM_PREFIX') or environ.get('IOGAP_OUTPUT')
    for i, arg in enumerate(argv):
        if arg == '--prefix' and i + 1 < len(argv):
            found = argv[i + 1]
        elif arg.startswith('--prefix='):
            found = arg.split('=', 1)[1]

    return os.path.abspath(found or default)


#: The debug log of one session: its start time (a run and a dry run of
#: the same second are refused by the output lock) in the file's name
LOG_TIMESTAMP = '%Y%m%dT%H%M%S'


def file_handlers(argv, output):
    '''The debug log of a run, one file per session
    (``logs/reframe_<start>.log``), never another's; a listing writes
    none.'''
    if not runs(argv):
        return []

    scratch.make_output(output)
    os.makedirs(os.path.join(output, 'logs'), exist_ok=True)
    return [{'type': 'file',
             'name': os.path.join(output, 'logs', 'reframe.log'),
             'timestamp': LOG_TIMESTAMP, 'level': 'debug', 'append': True,
             'format': '[%(asctime)s] %(levelname)s: %(check_info)s: '
                       '%(message)s'}]


#: Node states (sinfo %T, less a trailing flag) in which jobs can run
_USABLE = ('idle', 'allocated', 'mixed', 'completing', 'reserved', 'planned')


def slurm_partitions(system, argv):
    '''The Slurm partitions (``-p NAME`` in their access options) of the
    profile partitions this run selected (``--system name:part``).'''
    chosen = {a.split(':', 1)[1] for a in _system_args(argv) if ':' in a}
    found = set()
    for part in system['partitions']:
        if chosen and part['name'] not in chosen:
            continue
        for opt in part.get('access', []):
            if opt.startswith('-p '):
                found.add(opt[3:].strip())

    return sorted(found)


def _system_args(argv):
    for i, arg in enumerate(argv):
        if arg == '--system' and i + 1 < len(argv):
            yield argv[i + 1]
        elif arg.startswith('--system='):
            yield arg.split('=', 1)[1]


def check_nodes(partitions):
    '''Stop before any job when a node of the selected Slurm partitions is
    down, drained or not responding, naming it: its jobs would wait for it
    or die on it.'''
    if not partitions:
        return

    try:
        proc = subprocess.run(['sinfo', '-h', '-N', '-p', ','.join(partitions),
                               '-o', '%N|%P|%T|%E'], capture_output=True,
                              text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise IogapError(f'sinfo failed: {err}') from None

    bad = {}
    for line in proc.stdout.splitlines():
        node, part, state, reason = (line.split('|') + ['', '', ''])[:4]
        if state.rstrip('*~#!%$@^-').lower() not in _USABLE or \
                state.endswith('*'):
            why = f' ({reason})' if reason and reason != 'none' else ''
            bad.setdefault(node, [state.lower(), why, []])[2].append(part)

    if bad:
        said = '; '.join(f'node {n} of partition {", ".join(parts)} is '
                         f'{state}{why}' for n, (state, why, parts) in
                         sorted(bad.items()))
        raise IogapError(f'{said}: its jobs cannot run (scontrol update '
                         f'nodename=<node> state=resume, once it is back)')
