'''Reference store: ``reference/<system>.yaml``, validated before any job.

A file holds two lists. ``absolute`` entries give one performance variable
of one test on one partition; ``ratios`` divide two such measurements. Both
carry ``ref: [value, lower, upper]`` (relative bounds as in ReFrame: lower
<= 0, upper >= 0, ``null`` for one-sided), a ``unit`` and a ``provenance``.
``params`` select test variants; parameters left out take their first
(default) value in ratios and match any value in absolute entries.
'''

import functools
import os

import yaml

from iogap import registry
from iogap.errors import ReferenceError

#: Directory holding one YAML file per system
REFERENCE_DIR = os.environ.get(
    'IOGAP_REFERENCE_DIR',
    os.path.join(os.path.dirname(os.path.dirname(__file__)), 'reference')
)

_MEASURE_KEYS = {'test', 'partition', 'params', 'var'}


def path_for(system):
    return os.path.join(REFERENCE_DIR, f'{system}.yaml')


@functools.lru_cache(maxsize=None)
def _load(path, mtime, partitions):
    with open(path) as fp:
        return validate_text(path, fp.read(), partitions)


def validate_text(path, text, partitions):
    '''Parse and check a reference file's text; ``(absolute, ratios)``.'''
    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as err:
        mark = getattr(err, 'problem_mark', None)
        where = f' line {mark.line + 1}' if mark else ''
        raise ReferenceError(f'{path}{where}: malformed YAML: '
                             f'{getattr(err, "problem", err)}') from None

    if not isinstance(data, dict):
        raise ReferenceError(f'{path}: top level must be a mapping')

    unknown = set(data) - {'system', 'absolute', 'ratios'}
    if unknown:
        raise ReferenceError(f'{path}: unknown top-level key(s) '
                             f'{sorted(unknown)}')

    for key in ('absolute', 'ratios'):
        if not isinstance(data.get(key) or [], list):
            raise ReferenceError(f'{path}: {key}: expected a list of '
                                 f'entries, got {data[key]!r}')

    absolute = data.get('absolute') or []
    ratios = data.get('ratios') or []
    for i, entry in enumerate(absolute):
        where = f'{path}: absolute[{i}]'
        _check_entry(where, entry, _MEASURE_KEYS, {'test', 'partition', 'var'})
        _check_measure(where, entry, partitions)
        _check_ref(where, entry)

    names = set()
    for i, entry in enumerate(ratios):
        where = f'{path}: ratios[{i}]'
        _check_entry(where, entry, {'name', 'numerator', 'denominator'},
                     {'name', 'numerator', 'denominator'})
        if entry['name'] in names:
            raise ReferenceError(f'{where}: name: duplicate ratio '
                                 f'{entry["name"]!r}')

        names.add(entry['name'])
        for side in ('numerator', 'denominator'):
            _check_entry(f'{where}.{side}', entry[side], _MEASURE_KEYS,
                         _MEASURE_KEYS - {'params'}, with_ref=False)
            _check_measure(f'{where}.{side}', entry[side], partitions)

        _check_ref(where, entry)

    return absolute, ratios


def load(system, partitions=None):
    '''``(absolute, ratios)`` of ``system``; empty when it has no file.
    Partition names are checked when ``partitions`` lists them (at
    configuration time, when the whole system is known).'''
    path = path_for(system)
    if not os.path.exists(path):
        return [], []

    return _load(path, os.path.getmtime(path),
                 None if partitions is None else tuple(partitions))


def _check_entry(where, entry, keys, required, with_ref=True):
    if not isinstance(entry, dict):
        raise ReferenceError(f'{where}: expected a mapping, got {entry!r}')

    allowed = keys | ({'ref', 'unit', 'provenance'} if with_ref else set())
    for key in entry:
        if key not in allowed:
            raise ReferenceError(f'{where}: unknown key {key!r}')

    for key in sorted(required | ({'ref', 'unit', 'provenance'}
                                  if with_ref else set())):
        if entry.get(key) in (None, ''):
            raise ReferenceError(f'{where}: {key}: missing value')


def _check_measure(where, entry, partitions):
    family = registry.family(entry['test'])
    if family is None:
        raise ReferenceError(f'{where}: test: unknown test {entry["test"]!r} '
                             f'(known: {", ".join(registry.names())})')

    if partitions is not None and entry['partition'] not in partitions:
        raise ReferenceError(f'{where}: partition: no partition '
                             f'{entry["partition"]!r} (known: '
                             f'{", ".join(partitions)})')

    params = entry.get('params') or {}
    if not isinstance(params, dict):
        raise ReferenceError(f'{where}: params: expected a mapping, got '
                             f'{params!r}')

    for name, value in params.items():
        values = registry.param_values(family, name)
        if values is None:
            raise ReferenceError(f'{where}: params.{name}: {entry["test"]} '
                                 f'has no parameter {name!r}')
        if value not in values:
            raise ReferenceError(f'{where}: params.{name}: {value!r} is not '
                                 f'one of {list(values)}')

    if not registry.has_perf_var(family, entry['var']):
        raise ReferenceError(f'{where}: var: {entry["test"]} reports no '
                             f'performance variable {entry["var"]!r}')


def _check_ref(where, entry):
    ref = entry['ref']
    if (not isinstance(ref, list) or len(ref) != 3 or
            not all(isinstance(v, (int, float)) or v is None for v in ref) or
            ref[0] is None):
        raise ReferenceError(f'{where}: ref: expected [value, lower, upper] '
                             f'with numbers or null bounds, got {ref!r}')

    value, lower, upper = ref
    if lower is not None and lower > 0:
        raise ReferenceError(f'{where}: ref: lower bound {lower} must be <= 0 '
                             f'(a fraction below the value)')
    if upper is not None and upper < 0:
        raise ReferenceError(f'{where}: ref: upper bound {upper} must be >= 0 '
                             f'(a fraction above the value)')
    if lower is not None and lower < -1:
        raise ReferenceError(f'{where}: ref: lower bound {lower} is below '
                             f'-1 (more than the whole value)')
    if not isinstance(entry['unit'], str):
        raise ReferenceError(f'{where}: unit: expected a string, got '
                             f'{entry["unit"]!r}')


def matches(params, test):
    return all(getattr(test, k, None) == v for k, v in params.items())


def absolute_for(test):
    '''The ReFrame ``reference`` of ``test`` from its system's file.'''
    system = test.current_system.name
    part = test.current_partition
    absolute, _ = load(system)
    best = {}
    for entry in absolute:
        params = entry.get('params') or {}
        if (entry['test'] == registry.family_name(type(test)) and
                entry['partition'] == part.name and matches(params, test)):
            var = entry['var']
            if var not in best or len(params) >= len(best[var][0]):
                best[var] = (params, entry)

    refs = {var: (*e['ref'], e['unit']) for var, (_, e) in best.items()}
    return {part.fullname: refs} if refs else {}
