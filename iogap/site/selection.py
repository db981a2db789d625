'''Which system file a run loads: ``--system`` (or ``RFM_SYSTEM``), else the
one whose ``HOSTNAMES`` claim this host, else the generic profile, unless
the host runs a Slurm that no profile claims; and the file as its author
wrote it, executed or (``HOSTNAMES``) only read, each mistake in it one
:class:`ProfileError` naming file and line.'''

import ast
import glob
import os
import re
import runpy
import socket
import sys
import traceback

import iogap
from iogap import inputs
from iogap.errors import ProfileError

ROOT = iogap.HOME
SYSTEMS_DIR = os.path.join(ROOT, 'systems')

#: The profile that matches any host, tried last, and its system's name
#: (ReFrame has a builtin system called 'generic')
GENERIC, GENERIC_SYSTEM = 'generic', 'anyhost'

#: Where a Slurm keeps its configuration when SLURM_CONF does not say
SLURM_CONFS = ('/etc/slurm/slurm.conf', '/etc/slurm-llnl/slurm.conf')


def system_files():
    '''``{system file stem: path}`` of every profile (``_*`` are not).'''
    return {os.path.splitext(os.path.basename(p))[0]: p
            for p in sorted(glob.glob(os.path.join(SYSTEMS_DIR, '*.py')))
            if not os.path.basename(p).startswith('_')}


def system_names():
    '''The systems the profiles define.'''
    return [GENERIC_SYSTEM if stem == GENERIC else stem
            for stem in system_files()]


def _hostnames(files):
    '''``{stem: HOSTNAMES}`` of the profiles but the generic one; one whose
    HOSTNAMES cannot be read has ``None``, claims no host, and says so.'''
    found = {}
    for stem, path in files.items():
        try:
            found[stem] = hostnames(path) if stem != GENERIC else []
        except ProfileError as err:
            found[stem] = None
            print(f'iogap: {err}; {stem} claims no host until it is mended',
                  file=sys.stderr)
    return found


def select(argv, environ, hostname=None):
    '''The system file to load, ``(stem, path)``; a host two profiles claim,
    or a Slurm host none claims, is refused in one line.'''
    files = system_files()
    # --system (the last one wins), else RFM_SYSTEM; a partition aside
    wanted = [environ.get('RFM_SYSTEM'), *inputs.given(argv, '--system')
              ][-1]
    wanted = wanted and wanted.split(':')[0]
    if wanted == GENERIC:
        # ReFrame would run its builtin system, which no check knows
        raise ProfileError(f'--system {GENERIC} is ReFrame\'s builtin '
                           f'system, not a profile: give --system '
                           f'{GENERIC_SYSTEM} for the generic profile '
                           f'(systems/{GENERIC}.py)')
    if wanted == GENERIC_SYSTEM:
        wanted = GENERIC
    if wanted:
        # An unknown name: ReFrame reports it itself, in one line
        return (wanted, files[wanted]) if wanted in files else \
            (GENERIC, files[GENERIC])

    hostname = hostname or socket.gethostname()
    patterns = _hostnames(files)
    claims = [stem for stem, found in patterns.items()
              if any(re.match(p, hostname) for p in found or ())]

    def said(stems):
        texts = {s: 'unreadable (see above)' if patterns[s] is None else
                 ', '.join(patterns[s]) or 'none'
                 for s in stems if s != GENERIC}
        return '; '.join(f'{stem}: {text}' for stem, text in texts.items())
    if len(claims) > 1:
        raise ProfileError(f'host {hostname} matches the HOSTNAMES of '
                           f'{len(claims)} profiles ({said(claims)}): '
                           f'narrow the patterns, or pass --system')
    if claims:
        return claims[0], files[claims[0]]
    conf = next((path for path in (environ.get('SLURM_CONF'), *SLURM_CONFS)
                 if path and os.path.isfile(path)), None)
    if conf:
        raise ProfileError(f'host {hostname} runs Slurm ({conf}) but no '
                           f'profile\'s HOSTNAMES match it '
                           f'({said(files)}): add a pattern, write a '
                           f'profile (iogap profile new <system>), or pass '
                           f'--system {GENERIC_SYSTEM} for the generic one')
    return GENERIC, files[GENERIC]


def shown(path):
    '''``path`` from the repository root when it is inside it.'''
    rel = os.path.relpath(path, ROOT)
    return path if rel.startswith('..') else rel


def key_line(path, key):
    '''The first line of ``path`` writing ``key`` (quoted or ``key =``).'''
    word = re.escape(key)
    pattern = re.compile(rf'''(['"]){word}\1|\b{word}\s*=''')
    try:
        with open(path, errors='replace') as fp:
            return next((n for n, line in enumerate(fp, 1)
                         if pattern.search(line)), None)
    except OSError:
        return None


def _text(path):
    try:
        with open(path) as fp:
            return fp.read()
    except (OSError, UnicodeDecodeError) as err:
        why = getattr(err, 'strerror', err)
        raise ProfileError(f'cannot be read ({why}): a profile is Python '
                           f'text', shown(path)) from None


def _syntax(err, path):
    where = shown(err.filename or path)
    return ProfileError(f'syntax error: {err.msg}: mend that line (python -m '
                        f'py_compile {where})', where, err.lineno)


def run(path):
    '''The globals of the system file at ``path``, executed.'''
    _text(path)
    try:
        return runpy.run_path(path)
    except SyntaxError as err:
        raise _syntax(err, path) from None
    except Exception as err:     # a ProfileError a file raises goes as it is
        # the innermost line of a system file (one file may run another)
        systems = os.path.dirname(os.path.abspath(path))
        frame = next((f for f in reversed(traceback.extract_tb(
            err.__traceback__)) if os.path.dirname(os.path.abspath(
                f.filename)) == systems), None)
        raise ProfileError(f'{type(err).__name__}: {err}: the file stops '
                           f'there; mend it', shown(frame.filename if frame
                                                    else path),
                           frame.lineno if frame else None) from None


def hostnames(path):
    '''The ``HOSTNAMES`` regular expressions of a system file, unexecuted.'''
    try:
        tree = ast.parse(_text(path), path)
    except SyntaxError as err:
        raise _syntax(err, path) from None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                getattr(t, 'id', '') == 'HOSTNAMES' for t in node.targets):
            break
    else:
        return []

    def wrong(what):
        return ProfileError(f'HOSTNAMES: {what}', shown(path), node.lineno)
    try:
        value = ast.literal_eval(node.value)
    except ValueError:
        raise wrong('give a literal list of regular expressions, e.g. '
                    '[r\'^login\\d+$\'] (it is read without running the '
                    'file)') from None
    if not isinstance(value, (list, tuple)) or not all(
            isinstance(p, str) for p in value):
        raise wrong(f'{value!r} is not a list of strings: give e.g. '
                    f'[r\'^login\\d+$\']')
    for pattern in value:
        try:
            inputs.regex(pattern)
        except ValueError as err:
            raise wrong(str(err)) from None
    return list(value)
