'''Reference store: ``reference/<system>.yaml``, checked before any job.

Five lists and a count. ``absolute``: one figure of the test cases a
partition runs (``params`` select them; parameters left out match any
value, the most specific entry wins). ``ratios``: one figure divided by another
(parameters left out take their default). ``fits``: a statistic (r2,
slope, intercept) of a figure against a swept parameter. ``mechanisms``:
a direct observation of a mechanism (a share of the bytes resident, or
moved by the device) against a bound any healthy host meets. ``unjudged``:
figures re-baselining found too noisy to judge, kept on record.
``expected_skips``: how many cases a full night skips here, besides the
judgements a host finds not applicable. Every judged entry carries ``ref:
[value, lower, upper]`` (relative bounds as in ReFrame, ``null`` for
one-sided), its ``unit`` and its ``provenance``.

A judgement that holds only where the host has some property declares it:
a ratio's ``precondition`` (another ratio, measured in the same run, with
``at_most`` or ``at_least``, and ``what`` it means), or ``applies_when``
(in words, for what the measuring test itself detects, such as a block
device under the scratch root). Where it does not hold, the judgement is
skipped as "not applicable on this host: <why>": neither pass nor fail,
and expected (:func:`iogap.judge.unexpected_skips`).

The file's shape is a JSON schema (iogap.judge.schema); its meaning (families, parameters,
figures and units, partitions that generate the case, duplicates) is
checked here. Every error names file, line, key and value in one line.
'''

import json
import math
import os

import jsonschema
import yaml

from iogap import profile
from iogap.core import registry
from iogap.core.cases import runs_on
from iogap.errors import ReferenceFileError
from iogap.judge import audit, lines, schema


class File:
    '''A checked reference file: its entries and where each one is.'''

    def __init__(self, path, system, partitions, enforce=True):
        self.path, self.system = path, system
        self.partitions = {p.fullname.split(':')[1]: p for p in partitions}
        with open(path) as fp:
            text = fp.read()
        try:
            self.data = lines.load(path, text)
        except yaml.YAMLError as err:
            mark = getattr(err, 'problem_mark', None)
            raise ReferenceFileError(f'{path}:{mark.line + 1 if mark else 1}: '
                                 f'malformed YAML: '
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
        self._check()
        #: Each judgement's false alarms and detection (iogap.judge.audit)
        self.audit = audit.enforce(self) if enforce else None

    def rate_of(self, entry):
        '''The false-alarm rate per night of a judged entry (as the file
        holds it, or a copy), or ``None``.'''
        return next((r.rate for r in self.audit or ()
                     if _ident(r.entry) == _ident(entry)), None)

    def fail(self, path, message):
        key = '.'.join(f'[{k}]' if isinstance(k, int) else str(k)
                       for k in path).replace('.[', '[')
        raise ReferenceFileError(f'{self.path}:{lines.line_of(self.data, path)}: '
                             f'{key}: {message}')

    def _check(self):
        seen = {}
        for i, entry in enumerate(self.data['absolute']):
            where = ['absolute', i]
            fig = self._case(where, entry, partial=True)
            self._judged(where, entry, fig.unit)
            key = _key(entry)
            if key in seen:
                self.fail(where, f'duplicates the entry on line {seen[key]}')
            seen[key] = lines.line_of(self.data, where)

        names = {}
        for kind in ('ratios', 'fits', 'mechanisms'):
            for i, entry in enumerate(self.data[kind]):
                where = [kind, i]
                if entry['name'] in names:
                    self.fail(where + ['name'], f'{entry["name"]!r} is '
                              f'already used on line {names[entry["name"]]}')
                names[entry['name']] = lines.line_of(self.data, where)
                if kind == 'ratios':
                    self._ratio(where, entry)
                elif kind == 'fits':
                    self._fit(where, entry)
                else:
                    fig = self._case(where, entry)
                    self._judged(where, entry, fig.unit)

        for i, entry in enumerate(self.data['unjudged']):
            self._case(['unjudged', i], entry, partial=True)

    def _ratio(self, where, entry):
        pre = entry.get('precondition') or {}
        for side, path in [(entry[s], [s]) for s in ('numerator',
                                                     'denominator')] + \
                [(pre[s], ['precondition', s]) for s in pre
                 if s in ('numerator', 'denominator')]:
            self._case(where + path, side, described=bool(path[1:]))
            if id(side) in self.absent:
                self.absent.add(id(entry))
        bound = pre.get('at_most', pre.get('at_least'))
        if pre and not bound > 0:
            self.fail(where + ['precondition'], f'bound {bound} must be '
                      f'positive')
        self._judged(where, entry, 'ratio')

    def _case(self, where, entry, partial=False, described=False):
        '''Check a case (family, partition, params, var); its figure.'''
        cls = registry.get(entry['test'])
        if cls is None:
            self.fail(where + ['test'], f'unknown test {entry["test"]!r} '
                      f'(known: {", ".join(registry.names())})')
        part = self.partitions.get(entry['partition'])
        if part is None and entry['partition'] in profile.omitted():
            self.absent.add(id(entry))
            return cls.figures.find(entry['var'])
        if part is None:
            self.fail(where + ['partition'], f'no partition '
                      f'{entry["partition"]!r} in system {self.system} '
                      f'(known: {", ".join(self.partitions)})')

        params = entry.get('params') or {}
        for name, value in params.items():
            values = registry.param_values(cls, name)
            if values is None:
                self.fail(where + ['params', name], f'{entry["test"]} has no '
                          f'parameter {name!r}')
            if value not in values or isinstance(value, bool) != \
                    isinstance(values[0], bool):
                self.fail(where + ['params', name], f'{value!r} is not one '
                          f'of {values}')

        fulls = variants(cls, params, partial)
        if not any(runs_on(cls, full, part) for full in fulls):
            if not any(runs_on(cls, full, part.detectable())
                       for full in fulls):
                self.fail(where + ['params'], f'{entry["test"]} with '
                          f'{params or "its defaults"} is not generated on '
                          f'partition {entry["partition"]} (its features: '
                          f'{" ".join(sorted(part.features))})')
            self.absent.add(id(entry))

        fig = cls.figures.find(entry['var'])
        if fig is None:
            self.fail(where + ['var'], f'{entry["test"]} reports no figure '
                      f'{entry["var"]!r} (its figures: '
                      f'{", ".join(cls.figures.templates())})')
        if fig.better is None and not where[0] == 'unjudged' and \
                not described:
            self.fail(where + ['var'], f'{entry["var"]} describes the spread '
                      f'of a run; it is not judged')

        return fig

    def _judged(self, where, entry, unit):
        value, lower, upper = entry['ref']
        for i, v in enumerate(entry['ref']):
            if isinstance(v, bool) or (v is not None and not math.isfinite(v)):
                self.fail(where + ['ref'], f'{v!r} is not a number')
        if value <= 0:
            self.fail(where + ['ref'], f'value {value} must be positive')
        if lower is not None and not -1 <= lower <= 0:
            self.fail(where + ['ref'], f'lower bound {lower} must be a '
                      f'fraction between -1 and 0')
        if upper is not None and upper < 0:
            self.fail(where + ['ref'], f'upper bound {upper} must be >= 0')
        if lower is None and upper is None:
            self.fail(where + ['ref'], 'both bounds are null: nothing would '
                      'be judged')
        if entry['unit'] != unit:
            self.fail(where + ['unit'], f'{entry["unit"]!r} differs from the '
                      f'figure\'s unit {unit!r}')

    def _fit(self, where, entry):
        fig = self._case(where, entry, partial=True)
        if entry['over'] not in registry.get(entry['test']).param_space.params:
            self.fail(where + ['over'], f'{entry["test"]} has no parameter '
                      f'{entry["over"]!r} to fit over')
        if entry['over'] in (entry.get('params') or {}):
            self.fail(where + ['params'], f'fixes {entry["over"]}, the '
                      f'parameter the fit runs over')

        unit = schema.FIT_STATS[entry['stat']].format(
            y=fig.unit, x=schema.AXES[entry['over']][0])
        self._judged(where, entry, unit)

    def entries(self, kind):
        '''The entries of ``kind`` whose cases this host can run.'''
        return [e for e in self.data[kind] if id(e) not in self.absent]

    def absent_count(self):
        return sum(id(e) in self.absent for kind in
                   ('absolute', 'ratios', 'fits', 'mechanisms')
                   for e in self.data[kind])


def variants(cls, params, partial):
    '''Full parameter sets of ``cls`` that ``params`` select: every match
    when ``partial``, else the one with defaults for the rest.'''
    if not partial:
        return [registry.full_params(cls, params)]

    nums = cls.get_variant_nums(**{k: (lambda x, v=v: x == v)
                                   for k, v in params.items()})
    return [{k: v for k, v in cls.get_variant_info(n)['params'].items()
             if not k.startswith('.')} for n in nums]


def _ident(entry):
    return ('name', entry['name']) if 'name' in entry else _key(entry)


def _key(entry):
    return (entry['test'], entry['partition'],
            json.dumps(entry.get('params') or {}, sort_keys=True),
            entry['var'])


#: Directory of the reference files (``IOGAP_REFERENCE_DIR`` overrides)
def reference_dir():
    return os.environ.get('IOGAP_REFERENCE_DIR') or \
        os.path.join(profile.ROOT, 'reference')


def path_for(system):
    return os.path.join(reference_dir(), f'{system}.yaml')


_current = None


def load(system, partitions):
    '''Check and keep the reference file of ``system``; ``None`` (and
    nothing judged) when it has none.'''
    global _current
    path = path_for(system)
    _current = File(path, system, partitions) if os.path.exists(path) \
        else None
    return _current


def current():
    '''The loaded reference file, or ``None``.'''
    return _current
