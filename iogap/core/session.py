'''What a reframe invocation does before any test: nothing when it lists;
when it runs, it takes and checks its scratch roots and output directory
(one run at a time), the results database and Slurm, and clears leftovers.'''

import io
import logging
import os
import sys
import time
from contextlib import suppress

from reframe.core import logging as rlog
from reframe.core import meta
from reframe.core.fields import remove_convertible

from iogap import inputs
from iogap.core import leftovers, runlock, scratch
from iogap.core.variants import size_bytes
from iogap.errors import IogapError
from iogap.history import runguard
from iogap.site import discover

#: Options with which reframe runs (or dry-runs) tests
_RUNS = ('-r', '--run', '--dry-run', '--ci-generate')


def runs(argv):
    return any(a in _RUNS for a in argv[1:])


def start(argv, system, output, results_db=None):
    '''Check the profile's scratch roots and, for a run, lock and clean.'''
    roots = sorted({p['extras']['scratch_root'] for p in system['partitions']})
    for root in roots:
        scratch.check_rules(root)
    if not runs(argv):
        return

    db = results_db or os.path.join(output, 'results.db')
    # Before any directory is made: unwritable places fail now, not at dawn
    runguard.check(argv, os.environ, system, output, db)
    if '--dry-run' not in argv:
        runguard.check_output(output)
    scratch.make_output(output)
    scratch.lock_run(output, 'output directory')
    if '--dry-run' in argv:
        return
    # After the lock: the database is another run's while it holds it
    runguard.guard(output, db)

    if any('slurm' in p['scheduler'] or p['scheduler'] == 'squeue'
           for p in system['partitions']):
        discover.check_slurm()
        discover.check_nodes(discover.slurm_partitions(system, argv))
    for root in roots:
        take_scratch_root(root, discover.selected(system, argv))


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


#: Variables whose 0 has a meaning: no warm-up, empty files
ZERO_MEANS = ('warmup', 'file_bytes')


def _checked(test, name, text):
    '''Refuse ``-S`` ``text`` of the project's variable ``name`` unless a
    size (``*_size``) or a whole number as declared.'''
    var = getattr(test, '_rfm_var_space', {}).get(name)
    if var is None or not isinstance(text, str) or not any(
            k.__name__ == var._owner and k.__module__.startswith('iogap.')
            for k in test.__mro__):
        return
    if name.endswith('_size'):
        for units in (None, 'dd'):
            with suppress(IogapError):
                if size_bytes(text, units=units) > 0:
                    return
        raise IogapError(f'{text!r} is not a size above 0 (e.g. 4k, 1m)')
    if int in var.field.valid_types:
        # Unset takes the profile's value: 0 would silently do the same
        inputs.count(text, 0 if isinstance(var._default_value, int) or
                     name in ZERO_MEANS else 1)


def check_settings():
    '''Each ``-S`` value checked as ReFrame sets it: one line, and the run
    stops (it gave two tracebacks, or ran ``0`` as the profile's value).'''
    setvar = meta.RegressionTestMeta.setvar

    def checked(test, name, value):
        text = remove_convertible(value)
        try:
            _checked(test, name, text)
            return setvar(test, name, value)
        except (ValueError, TypeError, IogapError) as err:
            rlog.getlogger().error(f'-S {test.__name__}.{name}={text}: {err}')
            raise SystemExit(1) from None

    meta.RegressionTestMeta.setvar = checked


def output_dir(argv, environ, default):
    '''Where a run writes: ``--prefix``, RFM_PREFIX, IOGAP_OUTPUT, default.'''
    found = [environ.get('RFM_PREFIX') or environ.get('IOGAP_OUTPUT'),
             *inputs.given(argv, '--prefix')][-1]
    return os.path.abspath(found or default)


#: The log's start time in its name (the output lock refuses two a second)
LOG_TIMESTAMP = '%Y%m%dT%H%M%S'


class _Start(io.StringIO):
    def close(self):
        '''ReFrame closes its start's log once configured: kept.'''


_start = _Start()


def keep_start_log():
    '''ReFrame's log of its start, a temporary ``rfm-*.log``, kept in
    memory: a run's log begins with it, a listing drops it.'''
    for old in list(getattr(rlog._logger, 'handlers', [])):
        path = getattr(old, 'baseFilename', '')
        if os.path.basename(path).startswith('rfm-'):
            old.flush()
            with open(path) as fp:
                _start.write(fp.read())
            os.unlink(path)
            old.close()
            # the same handler, on a stream: ReFrame names no file for it
            new = logging.StreamHandler(_start)
            new.formatter, new.level, new._rfm_type = old.formatter, \
                old.level, 'file'
            rlog._logger.removeHandler(old)
            rlog._logger.addHandler(new)


def file_handlers(argv, output):
    '''A run's debug log, one file per session; a listing writes none.'''
    if not runs(argv):
        return []
    scratch.make_output(output)
    log = os.path.join(output, 'logs',
                       f'reframe_{time.strftime(LOG_TIMESTAMP)}.log')
    os.makedirs(os.path.dirname(log), exist_ok=True)
    with open(log, 'a') as fp:
        fp.write(_start.getvalue())
    return [{'type': 'file', 'name': log, 'level': 'debug', 'append': True,
             'format': '[%(asctime)s] %(levelname)s: %(check_info)s: '
                       '%(message)s'}]
