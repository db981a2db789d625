'''The system profile a run uses, and nothing but it.

``reframe_config.py`` calls :func:`load` once: it picks the system ReFrame
will pick (``--system``, ``RFM_SYSTEM``, else the first ``HOSTNAMES`` match
of ``systems/*.py``, the generic profile last), executes only that file,
checks every partition against :mod:`iogap.profile.schema` and fills the
extras' defaults; then :func:`parametrize` makes the families'
partition-shaped parameters (processes per node, CPU clocks, ...) span
that system alone. Imported without a run, they span every profile.
'''

import ast
import copy
import functools
import glob
import os
import re
import runpy
import socket

from iogap.errors import IogapError, ProfileError
from iogap.profile import schema

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SYSTEMS_DIR = os.path.join(ROOT, 'systems')

#: The profile that matches any host, tried last, and its system's name
#: (ReFrame has a builtin system called 'generic')
GENERIC, GENERIC_SYSTEM = 'generic', 'anyhost'

_current = None

#: The system whose partitions the parameters span (see :func:`values`)
_parametrizing = None
_spanned = None

#: Partitions the loaded profile left out of this run (its module's
#: ``OMITTED_PARTITIONS``): references to them are not judged, not refused
_omitted = []


class Part:
    '''What a family needs to know of a partition, from the configuration
    or from ReFrame's runtime partition alike.'''

    def __init__(self, fullname, features, extras, num_cores, resources=()):
        self.fullname, self.features = fullname, set(features)
        self.extras, self.num_cores = extras, num_cores
        self.resources = set(resources)

    @classmethod
    def of(cls, partition):
        '''From a ReFrame ``SystemPartition``.'''
        return cls(partition.fullname, partition.features, partition.extras,
                   partition.processor.num_cores or 1,
                   partition.resources)


def system_files():
    '''``{system file stem: path}`` of every profile (``_*`` are not).'''
    return {os.path.splitext(os.path.basename(p))[0]: p
            for p in sorted(glob.glob(os.path.join(SYSTEMS_DIR, '*.py')))
            if not os.path.basename(p).startswith('_')}


def hostnames(path):
    '''The module-level ``HOSTNAMES`` literal of a system file, unexecuted.'''
    with open(path) as fp:
        tree = ast.parse(fp.read(), path)

    for node in tree.body:
        if (isinstance(node, ast.Assign) and
                any(getattr(t, 'id', '') == 'HOSTNAMES' for t in node.targets)):
            return ast.literal_eval(node.value)

    return []


def requested_system(argv, environ):
    '''The system named by ``--system`` (last one wins) or RFM_SYSTEM.'''
    name = environ.get('RFM_SYSTEM')
    for i, arg in enumerate(argv):
        if arg == '--system' and i + 1 < len(argv):
            name = argv[i + 1]
        elif arg.startswith('--system='):
            name = arg.split('=', 1)[1]

    return name.split(':')[0] if name else None


#: Where a Slurm keeps its configuration when SLURM_CONF does not say
SLURM_CONFS = ('/etc/slurm/slurm.conf', '/etc/slurm-llnl/slurm.conf')


def slurm_conf(environ):
    '''The Slurm configuration this host uses, or ``None``.'''
    for path in (environ.get('SLURM_CONF'), *SLURM_CONFS):
        if path and os.path.isfile(path):
            return path

    return None


def _patterns(files):
    return '; '.join(f'{stem}: {", ".join(hostnames(path)) or "none"}'
                     for stem, path in files.items() if stem != GENERIC)


def select(argv, environ, hostname=None):
    '''The system file to load: ``(stem, path)``. A host that two profiles
    claim, or a Slurm host that none claims, is refused in one line.'''
    files = system_files()
    wanted = requested_system(argv, environ)
    if wanted == GENERIC_SYSTEM:
        wanted = GENERIC
    if wanted:
        # An unknown name: ReFrame reports it itself, in one line
        return (wanted, files[wanted]) if wanted in files else \
            (GENERIC, files[GENERIC])

    hostname = hostname or socket.gethostname()
    claims = {stem: path for stem, path in files.items()
              if stem != GENERIC and any(re.match(p, hostname)
                                         for p in hostnames(path))}
    if len(claims) > 1:
        raise ProfileError(f'host {hostname} matches the HOSTNAMES of '
                           f'{len(claims)} profiles ({_patterns(claims)}): '
                           f'narrow the patterns, or pass --system')
    if claims:
        return claims.popitem()

    conf = slurm_conf(environ)
    if conf:
        raise ProfileError(f'host {hostname} runs Slurm ({conf}) but no '
                           f'profile\'s HOSTNAMES match it '
                           f'({_patterns(files)}): add a pattern, write a '
                           f'profile (python -m '
                           f'iogap.profile new <system>), or pass --system '
                           f'{GENERIC_SYSTEM} for the generic one')

    return GENERIC, files[GENERIC]


#: Job options every Slurm job of a partition gets from its extras, or the
#: environment variable that overrides them
SLURM_OPTIONS = {'account': 'IOGAP_ACCOUNT', 'qos': 'IOGAP_QOS',
                 'reservation': 'IOGAP_RESERVATION'}


def _site_options(part, environ):
    '''Account, QOS, reservation and srun's MPI plugin: profile data (or
    the environment) turned into the partition's job options.'''
    extras = part['extras']
    for key, var in SLURM_OPTIONS.items():
        value = environ.get(var) or extras[key]
        extras[key] = value
        if value and 'slurm' in part.get('scheduler', ''):
            part.setdefault('access', []).append(f'--{key}={value}')

    if extras['mpi_type']:
        part['env_vars'] = [*part.get('env_vars', []),
                            ['SLURM_MPI_TYPE', extras['mpi_type']]]


def read(stem, path, environ):
    '''Execute and check one system file: ``(site_configuration fragment,
    its OMITTED_PARTITIONS)``, the extras' defaults filled.'''
    module = runpy.run_path(path)
    fragment = copy.deepcopy(module['site_configuration'])
    for system in fragment['systems']:
        if system['name'] != (GENERIC_SYSTEM if stem == GENERIC else stem):
            raise ProfileError(f'{path}: defines system {system["name"]!r}; '
                               f'the file must be named after its system')
        for part in system['partitions']:
            schema.validate_partition(system['name'], part)
            extras = part.setdefault('extras', {})
            for key in schema.EXTRAS:
                extras.setdefault(key, copy.deepcopy(schema.default(key)))
            _site_options(part, environ)

    return fragment, list(module.get('OMITTED_PARTITIONS', []))


def load(argv, environ):
    '''Load, check and register the selected profile; its
    ``site_configuration`` fragment.'''
    global _current, _omitted
    fragment, _omitted = read(*select(argv, environ), environ)
    _current = fragment['systems'][0]
    return fragment


def parametrize(system):
    '''Give the families' partition-shaped parameters the values of
    ``system`` alone: a run's configuration, and whatever names a run's
    variants by number (``Family@N``), call this before a check is
    imported.'''
    global _parametrizing
    if _spanned not in (None, system['name']):
        raise IogapError(f'the checks were imported with parameters that '
                         f'span {_spanned}, not {system["name"]}: their '
                         f'variant numbers are not those of a run')
    _parametrizing = system


def current():
    '''The loaded system's configuration, or ``None`` outside a run.'''
    return _current


def omitted():
    '''Names of the partitions the loaded profile left out of this run.'''
    return _omitted


def _parts_of(system):
    result = []
    for p in system['partitions']:
        proc = p.get('processor', {})
        cores = (proc.get('num_cpus', 1) //
                 max(proc.get('num_cpus_per_core') or 1, 1))
        result.append(Part(f'{system["name"]}:{p["name"]}',
                           p.get('features', []), p['extras'], cores,
                           [r['name'] for r in p.get('resources', [])]))

    return result


def parts():
    ''':class:`Part` of every partition of the loaded system.'''
    return _parts_of(_current) if _current is not None else []


@functools.lru_cache(maxsize=None)
def _every_shipped_part():
    return [part for stem, path in system_files().items()
            for system in read(stem, path, {})[0]['systems']
            for part in _parts_of(system)]


def values(of):
    '''Sorted union of ``of(part)`` over the partitions the parameters
    span: the run's system (:func:`parametrize`), else every profile in
    ``systems/``, whichever profile was loaded last, so that importing the
    library (tests, tools) gives every case of every system, each generated
    where its constraints allow.'''
    global _spanned
    if _parametrizing is not None:
        _spanned, spanned = _parametrizing['name'], _parts_of(_parametrizing)
    else:
        _spanned, spanned = 'every profile', _every_shipped_part()
    found = set()
    for part in spanned:
        found.update(of(part))

    return sorted(found, key=lambda v: (str(type(v)), v))
