'''A run's own records guarded: every place a run writes checked before
anything is measured (else ReFrame would measure for minutes, then lose
the records), a bad one stopping the run in one line naming it and how to
mend it; a log write error one line; and at exit a missing report or
stored session fails the run naming why (ReFrame only warns, exits 0).'''

import atexit
import glob
import itertools
import json
import logging
import os
import re
import shutil
import sys
import time

from iogap import inputs
from iogap.errors import IogapError
from iogap.history import resultsdb

#: Free bytes the output file system needs for a run's records
MIN_FREE = 16 * 2**20
#: ReFrame's warnings that a perflog line or the run report was lost
LOST_RECORDS = ('could not log performance data', 'failed to generate report')

_problems = []
#: ReFrame's colour codes, on by default whether or not a terminal reads
COLOUR = re.compile(r'\x1b\[[0-9;]*m')
#: The mend every refusal of a place ends with
_ELSEWHERE = 'or set IOGAP_OUTPUT'


def plain(line):
    '''A line of ReFrame's without its colours and its level's prefix.'''
    return re.sub(r'^(WARNING|ERROR): ', '', COLOUR.sub('', line).strip())


def check_output(output):
    '''Stop before any job when ``output`` cannot be made or is full (the
    places a run writes are checked for the rest by :func:`check`).'''
    try:
        os.makedirs(output, exist_ok=True)
    except OSError as err:
        raise IogapError(f'output directory {output} cannot be created '
                         f'({err.strerror}): set IOGAP_OUTPUT') from None
    free = shutil.disk_usage(output).free
    if free < MIN_FREE:
        raise IogapError(f'output directory {output} has {free // 2**20} MiB '
                         f'free, a run needs at least {MIN_FREE // 2**20} '
                         f'MiB: free space or set IOGAP_OUTPUT')


def run_paths(argv, environ, system, output, db):
    '''``(what, directory)`` of every directory the run writes in.'''
    def given(flag, var):
        return ([environ.get(var)] + inputs.given(argv, flag))[-1] or None

    prefix = system.get('prefix') or output
    perflogs = given('--perflogdir', 'RFM_PERFLOG_DIR') or \
        os.path.join(prefix, 'perflogs')
    places = [
        ('output directory', output),
        ('stage directory', given('--stage', 'RFM_STAGE_DIR') or
         system.get('stagedir') or os.path.join(prefix, 'stage')),
        ('job output directory', given('--output', 'RFM_OUTPUT_DIR') or
         system.get('outputdir') or os.path.join(prefix, 'output')),
        ('perflog directory', perflogs),
        *(('perflog directory', os.path.join(perflogs, system['name'],
                                             p['name']))
          for p in system['partitions']),
        ('run report directory', os.path.dirname(
            given('--report-file', 'RFM_REPORT_FILE') or
            os.path.join(output, 'reports', 'run-report.json'))),
        ('log directory', os.path.join(output, 'logs')),
        ('results database directory', os.path.dirname(db)),
    ]
    return [(what, os.path.abspath(path)) for what, path in places]


def problem(what, path):
    '''Why the directory ``path`` cannot take a run's files, or ``None``.'''
    if os.path.islink(path) and not os.path.exists(path):
        target = os.path.join(os.path.dirname(path), os.readlink(path))
        return (f'{what} {path} is a broken link to {target}: create '
                f'{target} or remove the link, {_ELSEWHERE}')
    if os.path.exists(path) and not os.path.isdir(path):
        return (f'{what} {path} is a file, not a directory: move it away '
                f'(mv {path} {path}.old) {_ELSEWHERE}')
    if os.path.isdir(path):
        if os.access(path, os.W_OK | os.X_OK):
            return None
        return (f'{what} {path} is not writable (permissions or a '
                f'read-only file system): chmod u+rwx {path} {_ELSEWHERE}')
    parent = os.path.dirname(path)
    if parent == path:
        return None
    why = problem('its parent', parent)
    return f'{what} {path} cannot be created: {why}' if why else None


def file_problem(path):
    '''Why an existing file a run appends to cannot take it, or ``None``.'''
    if os.path.islink(path) and not os.path.exists(path):
        return (f'perflog {path} is a broken link to {os.readlink(path)}: '
                f'remove the link {_ELSEWHERE}')
    if os.path.isdir(path):
        return (f'perflog {path} is a directory, not a file: move it away '
                f'(mv {path} {path}.old) {_ELSEWHERE}')
    if not os.access(path, os.W_OK):
        return (f'perflog {path} is not writable: chmod u+w {path} '
                f'{_ELSEWHERE}')
    return None


def check(argv, environ, system, output, db):
    '''Raise, in one line, for the first place the run cannot write.'''
    places = run_paths(argv, environ, system, output, db)
    logs = (file_problem(log) for what, path in places
            if what == 'perflog directory'
            for log in sorted(glob.glob(os.path.join(path, '*.log'))))
    why = next(filter(None, itertools.chain(
        (problem(what, path) for what, path in places), logs)), None)
    if why:
        raise IogapError(why)


def _one_line_log_errors():
    '''A log write error is one line, once, never a traceback a record.'''
    def handle_error(handler, record):
        err = sys.exc_info()[1]
        if not _problems or not _problems[0].startswith('cannot write'):
            where = getattr(handler, 'baseFilename', 'a log')
            _problems.insert(0, f'cannot write {where} '
                                f'({getattr(err, "strerror", None) or err})')
            print(f'iogap: {_problems[0]}: further log records are lost',
                  file=sys.stderr, flush=True)
    logging.Handler.handleError = handle_error


def _note_lost_records():
    '''Note ReFrame's warnings of lost records: the run fails at exit.'''
    from reframe.core import logging as rlog

    handle = rlog.Logger.handle

    def noting(logger, record):
        message = plain(record.getMessage().split('\n')[0])
        if message.startswith(LOST_RECORDS):
            _problems.append(message)
        return handle(logger, record)

    rlog.Logger.handle = noting


def _reports(output):
    return set(glob.glob(os.path.join(output, 'reports',
                                      'run-report-*.json')))


def _verdict(output, db, before):
    '''Why this run's records are incomplete, or ``None``.'''
    reports = sorted(_reports(output) - before, key=os.path.getmtime)
    if not reports:
        where = problem('run report directory',
                        os.path.join(output, 'reports'))
        if where:
            return f'no run report was written: {where}'
        if os.path.isdir(output) and (
                os.statvfs(output).f_flag & os.ST_RDONLY or
                shutil.disk_usage(output).free < MIN_FREE):
            return (f'the output file system of {output} is full or '
                    f'read-only: no run report was written')
        return None     # nothing ran: ReFrame writes no empty report
    try:
        with open(reports[-1]) as fp:
            uuid = json.load(fp)['session_info']['uuid']
    except (OSError, ValueError, KeyError, TypeError) as err:
        return f'the run report {reports[-1]} is unreadable ({err})'
    why = resultsdb.stored(db, uuid)
    return f'the session was not stored: {why}' if why else None


def _say_mended(db):
    '''Mend the stored sessions, saying so; why that failed, or None.'''
    try:
        said = resultsdb.mend(db)
    except resultsdb.ResultsDBError as err:
        return str(err)
    if said:
        print(f'iogap: {said}', file=sys.stderr, flush=True)
    return None


def guard(output, db):
    '''Check the output and the database now, the run's records at exit.'''
    resultsdb.check(db)
    why = _say_mended(db)
    if why:
        raise resultsdb.ResultsDBError(why)
    _one_line_log_errors()
    _note_lost_records()
    before = _reports(output)
    started = time.monotonic()

    def at_exit():
        why = _verdict(output, db, before) or _say_mended(db) or (
            _problems[0] if _problems else None)
        if why:
            print(f'iogap: the run is not complete after '
                  f'{time.monotonic() - started:.0f} s: {why}',
                  file=sys.stderr, flush=True)
            sys.stdout.flush()
            # ReFrame has chosen its status already: only this changes it
            os._exit(1)

    atexit.register(at_exit)


def replace_file(path, text):
    '''Write ``text`` to ``path`` whole or not at all.'''
    part = f'{path}.part{os.getpid()}'
    try:
        with open(part, 'w') as fp:
            fp.write(text)
            fp.flush()
            os.fsync(fp.fileno())
        os.replace(part, path)
    except OSError:
        if os.path.exists(part):
            os.remove(part)
        raise
