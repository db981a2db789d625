'''Every place a run writes, checked before anything is measured: else
ReFrame would measure for minutes, then lose the records. A bad place
stops the run in one line naming it and how to mend it.'''

import glob
import os

from iogap.errors import IogapError

#: The mend every refusal ends with
_ELSEWHERE = 'or set IOGAP_OUTPUT'


def _option(argv, environ, flag, var):
    '''The last ``flag VALUE`` or ``flag=VALUE``, else ``$var``.'''
    found = environ.get(var) or None
    for i, arg in enumerate(argv):
        if arg == flag and i + 1 < len(argv):
            found = argv[i + 1]
        elif arg.startswith(flag + '='):
            found = arg.split('=', 1)[1]
    return found


def run_paths(argv, environ, system, output, db):
    '''``(what, directory)`` of every directory the run writes in.'''
    prefix = system.get('prefix') or output
    perflogs = _option(argv, environ, '--perflogdir', 'RFM_PERFLOG_DIR') \
        or os.path.join(prefix, 'perflogs')
    places = [
        ('output directory', output),
        ('stage directory', _option(argv, environ, '--stage',
                                    'RFM_STAGE_DIR') or
         system.get('stagedir') or os.path.join(prefix, 'stage')),
        ('job output directory', _option(argv, environ, '--output',
                                         'RFM_OUTPUT_DIR') or
         system.get('outputdir') or os.path.join(prefix, 'output')),
        ('perflog directory', perflogs),
        *(('perflog directory', os.path.join(perflogs, system['name'],
                                             p['name']))
          for p in system['partitions']),
        ('run report directory', os.path.dirname(
            _option(argv, environ, '--report-file', 'RFM_REPORT_FILE') or
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
    for what, path in places:
        why = problem(what, path)
        if why:
            raise IogapError(why)
    for what, path in places:
        if what == 'perflog directory':
            for log in sorted(glob.glob(os.path.join(path, '*.log'))):
                why = file_problem(log)
                if why:
                    raise IogapError(why)
