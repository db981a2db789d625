'''What a reframe invocation does before any test: nothing when it lists;
when it runs, it takes and checks its scratch roots and output directory
(one run at a time), the results database and Slurm, and clears leftovers.'''

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
    roots = sorted({p['extras']['scratch_root'] for p in system['partitions']})
    for root in roots:
        scratch.check_rules(root)
    if not runs(argv):
        return

    db = results_db or os.path.join(output, 'results.db')
    # Before any directory is made: unwritable places fail now, not at dawn
    runpaths.check(argv, os.environ, system, output, db)
    if not dry(argv):
        runguard.check_output(output)
    scratch.make_output(output)
    scratch.lock_run(output, 'output directory')
    if dry(argv):
        return
    # After the lock: the database is another run's while it holds it
    runguard.guard(output, db)

    if any('slurm' in p['scheduler'] or p['scheduler'] == 'squeue'
           for p in system['partitions']):
        check_slurm()
        check_nodes(slurm_partitions(system, argv))
    for root in roots:
        take_scratch_root(root, selected(system, argv))


def take_scratch_root(root, partitions):
    '''Make ``root``, lock it for the run's ``partitions``, clear leftovers.'''
    if made := scratch.create(root):
        print(made, file=sys.stderr)
    # A root this host cannot use is the jobs' to report
    if os.path.isdir(root) and not scratch.problem(root):
        # Before this run's own lock: no other run, no live job elsewhere
        idle = runlock.idle(root)
        for part in partitions:
            if part['extras']['scratch_root'] == root:
                scratch.lock_run(root, 'scratch root', part['name'])
        if swept := leftovers.remove_leftovers(root, idle):
            print(swept, file=sys.stderr)


def output_dir(argv, environ, default):
    '''Where a run writes: ``--prefix``, RFM_PREFIX, IOGAP_OUTPUT, default.'''
    found = environ.get('RFM_PREFIX') or environ.get('IOGAP_OUTPUT')
    for i, arg in enumerate(argv):
        if arg == '--prefix' and i + 1 < len(argv):
            found = argv[i + 1]
        elif arg.startswith('--prefix='):
            found = arg.split('=', 1)[1]
    return os.path.abspath(found or default)


#: The log's start time in its name (the output lock refuses two a second)
LOG_TIMESTAMP = '%Y%m%dT%H%M%S'


def file_handlers(argv, output):
    '''A run's debug log, one file per session; a listing writes none.'''
    if not runs(argv):
        return []
    scratch.make_output(output)
    os.makedirs(os.path.join(output, 'logs'), exist_ok=True)
    return [{'type': 'file',
             'name': os.path.join(output, 'logs', 'reframe.log'),
             'timestamp': LOG_TIMESTAMP, 'level': 'debug', 'append': True,
             'format': '[%(asctime)s] %(levelname)s: %(check_info)s: '
                       '%(message)s'}]
