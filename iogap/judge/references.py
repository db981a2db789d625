'''The reference store: ``reference/<system>.yaml``, checked before any job.

Its shape is :mod:`iogap.judge.schema`'s, its meaning is checked by
:mod:`iogap.judge.meaning`; every error names file, line, key and value.'''

import os
import sys

import jsonschema
import yaml

from iogap import inputs
from iogap.errors import IogapError, ReferenceFileError
from iogap.judge import audit, lines, meaning, schema
from iogap.site import profile


class File:
    '''A checked reference file: its entries and where each one is.'''

    def __init__(self, path, system, partitions, enforce=True):
        self.path, self.system = path, system
        self.partitions = {p.fullname.split(':')[1]: p for p in partitions}
        text = read_text(path)
        try:
            self.data = lines.load(path, text)
        except yaml.YAMLError as err:
            mark = getattr(err, 'problem_mark', None)
            raise ReferenceFileError(
                f'{path}:{mark.line + 1 if mark else 1}: malformed YAML: '
                f'{getattr(err, "problem", err)}') from None
        if self.data is None:
            raise ReferenceFileError(f'{path}:1: the file is empty (give at '
                                     f'least system: {system})')
        error = next(iter(sorted(jsonschema.Draft7Validator(schema.SCHEMA)
                                 .iter_errors(self.data),
                                 key=lambda e: list(e.absolute_path))), None)
        if error is not None:
            self.fail(list(error.absolute_path), error.message)
        if self.data['system'] != system:
            self.fail(['system'], f'names {self.data["system"]!r}, but the '
                                  f'file is for system {system!r}')
        for key in ('absolute', 'ratios', 'fits', 'mechanisms', 'unjudged'):
            self.data[key] = self.data.get(key) or lines.LineList()

        #: Entries whose cases need a feature this host lacks
        self.absent = set()
        meaning.check(self)
        #: Each judgement's false alarms and detection (iogap.judge.audit)
        self.audit = audit.enforce(self) if enforce else None

    def rate_of(self, entry):
        '''An entry's (or its copy's) false alarms per night, or ``None``.'''
        return next((r.rate for r in self.audit or ()
                     if _ident(r.entry) == _ident(entry)), None)

    def fail(self, path, message):
        key = '.'.join(f'[{k}]' if isinstance(k, int) else str(k)
                       for k in path).replace('.[', '[')
        raise ReferenceFileError(f'{self.path}:'
                                 f'{lines.line_of(self.data, path)}: '
                                 f'{key}: {message}')

    def entries(self, kind):
        '''The entries of ``kind`` whose cases this host can run.'''
        return [e for e in self.data[kind] if id(e) not in self.absent]

    def absent_count(self):
        return sum(id(e) in self.absent for kind in
                   ('absolute', 'ratios', 'fits', 'mechanisms')
                   for e in self.data[kind])


def read_text(path):
    '''The text of a reference file, or one line saying why it has none.'''
    try:
        with open(path, 'rb') as fp:
            raw = fp.read()
    except OSError as err:
        raise ReferenceFileError(f'cannot be read ({err.strerror}): give a '
                                 f'reference file (YAML)', path) from None
    try:
        return raw.decode()
    except UnicodeDecodeError as err:
        rel = os.path.relpath(os.path.abspath(path), profile.ROOT)
        restore = 'a backup' if rel.startswith('..') else \
            f'git checkout {rel}'
        raise ReferenceFileError(
            f'byte {err.start + 1} (0x{raw[err.start]:02x}) is not UTF-8 '
            f'text: a reference file is YAML; restore it ({restore}) or '
            f'rewrite it', path, raw.count(b'\n', 0, err.start) + 1) \
            from None


def _ident(entry):
    return ('name', entry['name']) if 'name' in entry else \
        meaning.entry_key(entry)


def reference_dir():
    '''Directory of the reference files (``IOGAP_REFERENCE_DIR`` overrides).'''
    try:
        return inputs.env(os.environ, 'IOGAP_REFERENCE_DIR',
                          inputs.directory) or \
            os.path.join(profile.ROOT, 'reference')
    except IogapError as err:
        # a directory that is not there would judge nothing, silently
        raise ReferenceFileError(f'{err}: give the directory of the '
                                 f'reference files') from None


def path_for(system):
    return os.path.join(reference_dir(), f'{system}.yaml')


_current = None


def load(system, partitions):
    '''Check and keep the reference file of ``system`` (``None``: none).'''
    global _current
    path = path_for(system)
    _current = File(path, system, partitions) if os.path.lexists(path) \
        else None
    return _current


def unenforced(path):
    '''The reference file at ``path``, checked against the profile of the
    system it names, its budget not enforced.'''
    system = os.path.splitext(os.path.basename(path))[0]
    profile.load(['--system', system], {})
    return File(path, system, profile.parts(), enforce=False)


def current():
    '''The loaded reference file, or ``None``.'''
    return _current


def of_system(system):
    '''The reference file of ReFrame's ``system`` (loaded now if not yet).'''
    if _current is not None and _current.system == system.name:
        return _current
    return load(system.name, [profile.Part.of(p) for p in system.partitions])


def say_what_is_judged(system):
    '''Say when nothing or not everything of ``system`` will be judged.'''
    if current() is None:
        path = path_for(system['name'])
        if os.environ.get('IOGAP_REQUIRE_REFERENCES') == '1':
            raise ReferenceFileError(f'{path}: no reference file for system '
                                     f'{system["name"]}, and IOGAP_REQUIRE_'
                                     f'REFERENCES=1 demands one')
        print(f'iogap: no reference file {path}: the figures of '
              f'{system["name"]} are measured but not judged',
              file=sys.stderr)

    absent = current() and current().absent_count()
    if absent:
        left = profile.omitted()
        also = f' or a partition this run left out ({", ".join(left)})' \
            if left else ''
        print(f'iogap: {absent} reference(s) judge cases that need a feature '
              f'this host lacks (see the profile\'s detectable_features)'
              f'{also}: not judged here', file=sys.stderr)
