'''A system file as its author wrote it, executed or (``HOSTNAMES``) only
read; each mistake in it is one :class:`ProfileError` naming file and line.'''

import ast
import os
import re
import runpy
import traceback

import iogap
from iogap import inputs
from iogap.errors import ProfileError

ROOT = iogap.HOME


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
            return _patterns(path, node)
    return []


def _patterns(path, node):
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
