'''What a reframe invocation does before any test: nothing, when it only
lists; when it runs, it takes the scratch root and the output directory
for itself (one run at a time), checks the output file system and the
results database (iogap.history.runguard), on Slurm the controller and the nodes
(iogap.site.slurmstate), and clears what killed runs left behind.
'''

import os
import sys

from iogap.core import leftovers, runlock, scratch
from iogap.history import runguard, runpaths
from iogap.site.slurmstate import (
    check_nodes,
    check_slurm,
    selected,
    slurm_partitions,
)

#: Options with which reframe runs (or dry-runs) tests
_RUNS = ('-r', '--run', '--dry-run', '--ci-generate')


def runs(argv):
    return any(a in _RUNS for a in argv[1:])


def dry(argv):
    return '--dry-run' in argv


def start(argv, system, output, results_db=None):
    '''Check the profile's scratch roots and, for a run, lock and clean.'''
    roots = sorted({p['extras']['scratch_root']
                    for p in system['partitions']})
    for root in roots:
        scratch.check_rules(root)

    if not runs(argv):
        return

    db = results_db or os.path.join(output, 'results.db')
    # Before any directory is made: a place that cannot be written is
    # named, not met at the end of a night's measuring
    runpaths.check(argv, os.environ, system, output, db)
    if dry(argv):
        scratch.make_output(output)
        scratch.lock_run(output, 'output directory')
        return

    runguard.check_output(output)
    scratch.make_output(output)
    scratch.lock_run(output, 'output directory')
    # After the lock: the database is another run's while it holds it
    runguard.guard(output, db)

    if any('slurm' in p['scheduler'] or p['scheduler'] == 'squeue'
           for p in system['partitions']):
        check_slurm()
        check_nodes(slurm_partitions(system, argv))

    for root in roots:
        take_scratch_root(root, selected(system, argv))


def take_scratch_root(root, partitions):
    '''Make ``root`` the suite's if it is missing, lock it for each of the
    run's ``partitions`` on it (runs of other partitions share it: a night
    split per partition) and remove what killed runs left in it.'''
    made = scratch.create(root)
    if made:
        print(made, file=sys.stderr)
    # A root this host cannot use is the jobs' to report
    if os.path.isdir(root) and not scratch.problem(root):
        # Before this run's own lock: no other run, no live job elsewhere
        idle = runlock.idle(root)
        for part in partitions:
            if part['extras']['scratch_root'] == root:
                scratch.lock_run(root, 'scratch root', part['name'])
        swept = leftovers.remove_leftovers(root, idle)
        if swept:
            print(swept, file=sys.stderr)


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
