'''What a user types, as an option or as a pipeline's variable: one check
each, returning the value or raising ``ValueError`` that says how to mend it
(:func:`option`, :func:`env`); :class:`Parser` errs in one line.'''

import argparse
import datetime
import math
import os
import re
import shlex

from iogap.errors import IogapError


def number(text, what='a number', example=''):
    '''A finite number above 0 (``nan``, ``inf``, ``0``, ``-5`` are not).'''
    example = f' ({example})' if example else ''
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise ValueError(f'{text!r} is not a number: give {what}'
                         f'{example}') from None
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f'{text!r}: give {what} above 0{example}')
    return value


def count(text, least=1):
    '''An integer of at least ``least``.'''
    try:
        value = int(str(text).strip())
    except ValueError:
        raise ValueError(f'{text!r} is not a whole number: give one of at '
                         f'least {least}') from None
    if value < least:
        raise ValueError(f'{text!r}: give a whole number of at least {least}')
    return value


def _share(text):
    try:
        return '%', number(text[:-1]) / 100
    except ValueError:
        raise ValueError(f'{text!r}: give a share of the full night '
                         f'above 0%') from None


def node_hours(text):
    '''``200``, ``40%`` (of the full night) or ``knl=100,haswell=80``:
    ``{partition or '*': value}``, a share as ``('%', share)``.'''
    form = 'e.g. 200, 40% or knl=100,haswell=80'
    text = str(text).strip()
    if text.endswith('%'):
        return {'*': _share(text)}
    found = {}
    for item in text.split(','):
        part, _, value = item.strip().rpartition('=')
        if not value or (part == '' and '=' in item):
            raise ValueError(f'{text!r}: {item.strip()!r} is not '
                             f'[partition=]number: give {form}')
        if (part or '*') in found:
            raise ValueError(f'{text!r}: {part or "the total"} is given '
                             f'twice: give it once')
        found[part or '*'] = number(value, 'node-hours', form)
    return found


def duration(text):
    '''Seconds of ``90s``, ``20m``, ``2h``, ``90``; a share as ``('%', x)``.'''
    text = str(text).strip()
    if text.endswith('%'):
        return _share(text)
    m = re.fullmatch(r'(\d+(?:\.\d+)?)([smh]?)', text)
    if not m:
        raise ValueError(f'{text!r} is not a wall time: give e.g. 90s, 20m, '
                         f'2h or 40%')
    secs = float(m.group(1)) * {'': 1, 's': 1, 'm': 60, 'h': 3600}[
        m.group(2)]
    if secs <= 0:
        raise ValueError(f'{text!r}: give a wall time above 0, e.g. 90s, '
                         f'20m, 2h')
    return secs


def date(text):
    '''A calendar day, ``YYYY-MM-DD``.'''
    try:
        return datetime.date.fromisoformat(str(text).strip())
    except ValueError as err:
        raise ValueError(f'{text!r} is not a date ({err}): give YYYY-MM-DD, '
                         f'e.g. 2026-11-25') from None


def regex(text):
    '''A Python regular expression (the text, once it compiles).'''
    try:
        re.compile(text)
        return text
    except re.error as err:
        raise ValueError(f'{text!r} is not a regular expression ({err}): '
                         f'escape the character, e.g. \\( for a '
                         f'parenthesis') from None


def words(text):
    '''Shell words, as a shell would split them.'''
    try:
        return shlex.split(text)
    except ValueError as err:
        raise ValueError(f'{text!r} cannot be split into words ({err}): '
                         f'close the quotation') from None


def name(text):
    '''A file name: letters, digits, ``_.-`` and ``+`` (``knl+haswell``).'''
    if not re.fullmatch(r'[A-Za-z0-9_][A-Za-z0-9_.+-]*', str(text)):
        raise ValueError(f'{text!r}: give a name of letters, digits and '
                         f'_.+- (it names a directory)')
    return text


#: One word a shell takes as it is
TOKEN = r'^[^\s\'"\\;&|`$<>()]+$'


def token(text):
    '''One word: no space, no newline (it becomes one job option).'''
    if not re.fullmatch(TOKEN, str(text)):
        raise ValueError(f'{text!r}: give one word, without spaces, quotes '
                         f'or shell characters (it becomes a job option)')
    return text


def _there(text, test, what):
    if not test(text):
        raise ValueError(f'{text!r} is not {what}' + (
            '' if os.path.exists(text) else ' (it does not exist)'))
    return text


def directory(text):
    '''A directory that exists.'''
    return _there(text, os.path.isdir, 'a directory')


def node_state(text):
    '''``1``, or the Slurm node states a sweep takes (``idle|reserved``);
    "off" is refused: a pipeline sweeps whenever the variable is set.'''
    if text.strip().lower() in ('0', 'no', 'false', 'off'):
        raise ValueError(f'{text!r}: to sweep no node, leave it unset (the '
                         f'sweep job runs whenever it is set); give 1 or a '
                         f'node state')
    if not re.fullmatch(r'[A-Za-z0-9_+|]+', text.strip()):
        raise ValueError(f'{text!r}: give 1, or Slurm node states joined '
                         f'by |, e.g. idle|idle+reserved')
    return text.strip()


def existing_file(text):
    '''A file that is there to be read.'''
    return _there(text, os.path.isfile, 'a file')


def pairs(text):
    '''``key=value,key=value``: a dict.'''
    items = [item.split('=', 1) for item in str(text).split(',')]
    if not all(len(i) == 2 and i[0].strip() for i in items):
        raise ValueError(f'{text!r}: give key=value pairs separated by '
                         f'commas')
    return dict(items)


def file_path(text):
    '''Where a file is or will be: not a directory.'''
    if os.path.isdir(text):
        raise ValueError(f'{text!r} is a directory: give the path of a file '
                         f'in it')
    return text


def given(argv, flag):
    '''The values of ``flag`` in ``argv`` (``flag V`` or ``flag=V``), in
    order.'''
    found = []
    for i, arg in enumerate(argv):
        if arg == flag and i + 1 < len(argv):
            found.append(argv[i + 1])
        elif arg.startswith(flag + '='):
            found.append(arg.split('=', 1)[1])
    return found


def option(check):
    '''``check`` as an argparse ``type=``.'''
    def parse(text):
        try:
            return check(text)
        except ValueError as err:
            raise argparse.ArgumentTypeError(str(err)) from None
    parse.__name__ = check.__name__
    return parse


def env(environ, var, check, default=None):
    '''``check`` of ``environ[var]`` (``default`` when unset), a bad one
    an :class:`IogapError` naming ``var``.'''
    text = environ.get(var)
    if text is None or not text.strip():
        return default
    try:
        return check(text)
    except ValueError as err:
        raise IogapError(f'{var}: {err}') from None


class Parser(argparse.ArgumentParser):
    '''argparse, whose mistakes are one line, not a usage block.'''

    def error(self, message):
        self.exit(2, f'{self.prog}: {message} ({self.prog} --help for '
                     f'usage)\n')
