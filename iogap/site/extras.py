'''A profile checked against :mod:`iogap.site.vocabulary` when it loads (one
line naming system, partition and key).'''

import difflib
import functools
import json
import math
import os

import jsonschema
import reframe

from iogap.errors import ProfileError
from iogap.site.selection import key_line, shown
from iogap.site.spack.config import OVERLAYS, check_overlay
from iogap.site.vocabulary import _STR_LIST, EXTRAS, FEATURES, POSITIVE

# JSON's types: 1.2e6 is a float, not a clock in kHz; nan and inf are no
# number (a nan bandwidth plans nothing); a tuple is a list
_Validator = jsonschema.validators.extend(
    jsonschema.Draft7Validator,
    type_checker=jsonschema.Draft7Validator.TYPE_CHECKER.redefine_many({
        'integer': lambda _, value: isinstance(value, int) and
        not isinstance(value, bool),
        'number': lambda _, value: isinstance(value, (int, float)) and
        not isinstance(value, bool) and math.isfinite(value),
        'array': lambda _, value: isinstance(value, (list, tuple))}))

_VALIDATOR = _Validator({
    'type': 'object', 'additionalProperties': False,
    'required': ['scratch_root'],
    'properties': {k: s for k, (s, _, _) in EXTRAS.items()}})

#: What a partition's ``processor`` must give (cores come from it)
_CPUS = ['num_cpus', 'num_cpus_per_core', 'num_sockets', 'num_cpus_per_socket']
_PROCESSOR = _Validator({'type': 'object', 'required': _CPUS,
                         'properties': {k: POSITIVE for k in _CPUS}})

#: What this package reads of a system file (ReFrame's schema the rest)
_FILE = _Validator({
    'type': 'object', 'required': ['site_configuration'],
    'properties': {
        'OMITTED_PARTITIONS': _STR_LIST, 'ENVIRONMENT': _STR_LIST,
        'site_configuration': {
            'type': 'object', 'required': ['systems'],
            'properties': {'systems': {'type': 'array', 'minItems': 1,
                                       'maxItems': 1, 'items': {
                                           'type': 'object'}}}}}})

#: The command that writes a profile
GENERATE = 'iogap profile new <system>'


def default(key):
    return EXTRAS[key][1]


def _fix(err):
    '''How to mend a schema error, when it is plain.'''
    value = err.instance
    if err.validator == 'type' and isinstance(value, float) and \
            value.is_integer() and 'integer' in str(err.validator_value):
        return f' (write the integer {int(value)})'
    if err.validator == 'minItems' and 'env_vars' in err.absolute_path:
        return ' (each is [name, value])'
    return ''


def _keys(err):
    '''The keys down to a schema error, and the innermost named one.'''
    keys = [str(p) for p in err.absolute_path]
    return keys, next((k for k in reversed(keys) if not k.isdigit()), None)


def _schema_error(where, what, validator, data):
    for err in sorted(validator.iter_errors(data), key=str):
        keys, named = _keys(err)
        inside = '.'.join(filter(None, [what, *keys]))
        at = f'{where}: {inside}: ' if inside else f'{where}: '
        if err.validator == 'additionalProperties':
            known = err.schema.get('properties', {})
            unknown = sorted(set(err.instance) - set(known))[0]
            close = difflib.get_close_matches(unknown, known, 1)
            hint = f'did you mean {close[0]!r}? ' if close else ''
            listed = 'docs/reference/profile.md' if inside == 'extras' \
                else ', '.join(sorted(known))
            raise ProfileError(f'{at}unknown key {unknown!r} ({hint}known '
                               f'keys: {listed})', key=unknown)

        raise ProfileError(f'{at}{err.message}{_fix(err)}',
                           key=named or what)


@functools.lru_cache(maxsize=None)
def _reframe_schemas():
    '''ReFrame's own schemas of a system and of a partition, stricter where
    ReFrame takes a value that then fails inside it or hangs.'''
    with open(os.path.join(os.path.dirname(reframe.__file__), 'schemas',
                           'config.json')) as fp:
        full = json.load(fp)
    system = full['properties']['systems']['items']
    part = system['properties']['partitions']['items']
    system['properties']['partitions'] = {
        'type': 'array', 'minItems': 1, 'items': {
            'type': 'object', 'required': ['name'],
            'properties': {'name': {'type': 'string'}}}}
    full['defs']['envvar_list']['items']['minItems'] = 2    # [name, value]
    part['properties']['max_jobs'] = POSITIVE
    return [_Validator({**s, 'defs': full['defs']}) for s in (
        system, part, full['properties']['environments']['items'])]


def validate_system(system, environments=()):
    '''Refuse a system or environment ReFrame's schema refuses, or two
    partitions of one name (ReFrame would drop the second, warning only).'''
    _schema_error(f'system {system.get("name")}', '', _reframe_schemas()[0],
                  system)
    for env in environments:
        _schema_error(f'environment {env.get("name")}', '',
                      _reframe_schemas()[2], env)
    names = [p['name'] for p in system['partitions']]
    for name in {n for n in names if names.count(n) > 1}:
        raise ProfileError(f'system {system["name"]}: two partitions are '
                           f'named {name!r}: ReFrame would drop the second',
                           key=name)


def validate_file(path, module):
    '''Refuse a system file whose globals lack what this package reads.'''
    for err in sorted(_FILE.iter_errors(module), key=str):
        keys, named = _keys(err)
        raise ProfileError(f'{".".join(keys) or "the file"}: {err.message}: '
                           f'see systems/_template.py', shown(path),
                           key_line(path, named or
                                           'site_configuration'))


def validate_partition(system, part):
    '''Refuse a partition's first problem (extras, processor, ReFrame's
    keys, features, facts, overlay).'''
    where = f'system {system}, partition {part["name"]}'
    extras = part.get('extras', {})
    _schema_error(where, 'extras', _VALIDATOR, extras)
    if 'processor' not in part:
        raise ProfileError(f'{where}: no \'processor\' entry: add num_cpus, '
                           f'num_cpus_per_core, num_sockets and num_cpus_per_'
                           f'socket from `lscpu` on a compute node (or '
                           f'{GENERATE})', key='name')
    _schema_error(where, 'processor', _PROCESSOR, part['processor'])
    _schema_error(where, '', _reframe_schemas()[1], part)
    resources = {r['name'] for r in part.get('resources', [])}
    own = set(extras.get('site_features', []))    # ours ignore them
    for feature in [f for f in part.get('features', []) if f not in own]:
        if feature not in FEATURES:
            close = difflib.get_close_matches(feature, FEATURES, 1)
            hint = f'did you mean {close[0]!r}? ' if close else ''
            raise ProfileError(f'{where}: unknown feature {feature!r} ({hint}'
                               f'known features: docs/reference/profile.md;'
                               f' a site\'s own feature goes in extras[\'site_'
                               f'features\'] too)', key=feature)
        keys, needs, _ = FEATURES[feature]
        missing = [f'extras[{k!r}]' for k in keys if not extras.get(
            k, EXTRAS[k][1])] + [f'a {r!r} resource' for r in needs
                                 if r not in resources]
        if missing:
            raise ProfileError(f'{where}: feature +{feature} needs '
                               f'{missing[0]}', key=feature)
    _facts(where, part, extras)
    overlay = extras.get('spack_overlay')
    path = os.path.join(OVERLAYS, f'{overlay}.yaml')
    # Read now, not after a Spack bootstrap
    wrong = overlay and (check_overlay(path) if os.path.exists(path) else (
        f'no such overlay (write it with `spack external find`, or '
        f'{GENERATE})', 0))
    if wrong:
        at = ':'.join(str(w) for w in (shown(path), wrong[1]) if w)
        raise ProfileError(f'{where}: extras.spack_overlay: {at}: '
                           f'{wrong[0]}', key='spack_overlay')


def _facts(where, part, extras):
    '''Refuse facts that contradict each other or, on a local partition,
    this host, where its jobs run.'''
    cpus, per_core, sockets, per_socket = (part['processor'][k]
                                           for k in _CPUS)
    local = part.get('scheduler') == 'local'
    root = extras['scratch_root']
    parent = os.path.dirname(os.path.normpath(root))
    for wrong, key, said in (
            (sockets * per_socket != cpus, 'num_cpus', f'processor.num_cpus:'
             f' {cpus}, but {sockets} socket(s) x {per_socket} CPUs are '
             f'{sockets * per_socket} (`lscpu` on a compute node)'),
            (per_socket % per_core, 'num_cpus_per_core', f'processor.num_'
             f'cpus_per_core: {per_core} does not divide the {per_socket} '
             f'CPUs of a socket'),
            ('multinode' in part.get('features', []) and extras.get(
                'max_nodes', 1) < 2, 'multinode', 'feature +multinode needs '
             'extras["max_nodes"] >= 2'),
            (local and cpus > os.cpu_count(), 'num_cpus', f'processor.num_'
             f'cpus: {cpus}, but this host, where its jobs run, has '
             f'{os.cpu_count()}'),
            (local and not os.path.isdir(parent), 'scratch_root', f'extras.'
             f'scratch_root: {root}: its parent {parent} is no directory on '
             f'this host, where its jobs run')):
        if wrong:
            raise ProfileError(f'{where}: {said}', key=key)

