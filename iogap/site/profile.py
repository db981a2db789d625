'''The system profile a run uses, and nothing but it: :func:`load` runs and
checks only the file of the system ReFrame will pick, :func:`parametrize`
makes the families' parameters span it alone (else every profile).'''

import copy
import functools
import sys

from iogap import inputs
from iogap.errors import IogapError, ProfileError
from iogap.site import extras as schema
from iogap.site import selection
from iogap.site.selection import (  # noqa: F401 (re-exported)
    GENERIC,
    GENERIC_SYSTEM,
    ROOT,
    SLURM_CONFS,
    SYSTEMS_DIR,
    key_line,
    select,
    shown,
    system_files,
    system_names,
)

_current = _path = None
#: The system whose partitions the parameters span (see :func:`values`)
_parametrizing = None
_spanned = None
#: Partitions the loaded profile left out of this run (its module's
#: ``OMITTED_PARTITIONS``): references to them are not judged, not refused
_omitted = []
#: The environment variables the loaded profile reads (its ENVIRONMENT)
_environment = []

#: Job options every Slurm job of a partition gets from its extras, or the
#: environment variable that overrides them
SLURM_OPTIONS = {'account': 'IOGAP_ACCOUNT', 'qos': 'IOGAP_QOS',
                 'reservation': 'IOGAP_RESERVATION'}


class Part:
    '''What a family needs to know of a partition, from the configuration
    or from ReFrame's runtime partition alike.'''

    def __init__(self, fullname, features, extras, num_cores, resources=()):
        self.fullname, self.features = fullname, set(features)
        self.extras, self.num_cores = extras, num_cores
        self.resources = set(resources)

    def detectable(self):
        '''This partition with the features its host may detect (extras
        ``detectable_features``): what a reference may name here.'''
        return Part(self.fullname, self.features | set(
            self.extras.get('detectable_features', [])), self.extras,
            self.num_cores, self.resources)

    @classmethod
    def of(cls, partition):
        '''From a ReFrame ``SystemPartition``.'''
        return cls(partition.fullname, partition.features, partition.extras,
                   partition.processor.num_cores or 1, partition.resources)


def _site_options(part, environ):
    '''Account, QOS, reservation and srun's MPI plugin as job options.'''
    extras = part['extras']
    for key, var in SLURM_OPTIONS.items():
        # one word: it becomes a line of the job script
        value = inputs.env(environ, var, inputs.token) or extras[key]
        extras[key] = value
        if value and 'slurm' in part.get('scheduler', ''):
            part.setdefault('access', []).append(f'--{key}={value}')
    if extras['mpi_type']:
        part['env_vars'] = [*part.get('env_vars', []),
                            ['SLURM_MPI_TYPE', extras['mpi_type']]]


def read(stem, path, environ):
    '''Execute and check one system file: ``(site_configuration fragment,
    OMITTED_PARTITIONS, ENVIRONMENT)``, the extras' defaults filled.'''
    selection.hostnames(path)      # as the host's selection reads them
    module = selection.run(path)
    schema.validate_file(path, module)
    fragment = copy.deepcopy(module['site_configuration'])
    [system] = fragment['systems']
    _checked(path, 'systems', schema.validate_system, system,
             fragment.get('environments', []))
    if system['name'] != (GENERIC_SYSTEM if stem == GENERIC else stem):
        raise ProfileError(f'defines system {system["name"]!r}; the file '
                           f'must be named after its system', shown(path),
                           key_line(path, system['name']))
    for part in system['partitions']:
        _checked(path, part['name'], schema.validate_partition,
                 system['name'], part)
        extras = part.setdefault('extras', {})
        for key in schema.EXTRAS:
            extras.setdefault(key, copy.deepcopy(schema.default(key)))
        _site_options(part, environ)
        _core_spec(path, system['name'], part)
    return fragment, list(module.get('OMITTED_PARTITIONS', [])), \
        list(module.get('ENVIRONMENT', []))


def _checked(path, name, check, *args):
    '''``check(*args)``, its error placed at its key's line in ``path``
    (else at ``name``'s).'''
    try:
        check(*args)
    except ProfileError as err:
        raise err.at(shown(path), key_line(path, err.key) or
                     key_line(path, name)) from None


def _core_spec(path, system, part):
    '''No core-spec variant where it would leave the job no core: said
    once, with the reason, never silently none.'''
    reserved, cores = part['extras']['core_spec_cores'], _cores(part)
    if 'corespec' in part['features'] and reserved >= cores:
        part['features'].remove('corespec')
        _once(f'iogap: {shown(path)}:'
              f'{key_line(path, "core_spec_cores") or 0}: system '
              f'{system}, partition {part["name"]}: no core-spec variant: '
              f'extras.core_spec_cores ({reserved}) leaves none of the '
              f'node\'s {cores} cores to the job')


@functools.lru_cache(maxsize=None)
def _once(said):
    print(said, file=sys.stderr)


def load(argv, environ):
    '''Load, check and register the selected profile; its fragment.'''
    global _current, _omitted, _environment, _path
    stem, _path = select(argv, environ)
    fragment, _omitted, _environment = read(stem, _path, environ)
    _current = fragment['systems'][0]
    return fragment


def mistake(message, *keys):
    '''A mistake of the loaded profile found once it loaded (against
    Slurm): its file, and the line of the first of ``keys`` written.'''
    line = next(filter(None, (key_line(_path, k) for k in keys)), 0)
    return ProfileError(message, shown(_path), line, keys[-1])


def parametrize(system):
    '''Make the partition-shaped parameters span ``system`` alone; a run,
    and whatever names its variants by number (``Family@N``), calls this
    before a check is imported.'''
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


def environment():
    '''The environment variables the loaded profile reads (its file's
    ``ENVIRONMENT``), which every job of a night must see as it did.'''
    return _environment


def _cores(part):
    proc = part.get('processor', {})
    return proc.get('num_cpus', 1) // max(proc.get('num_cpus_per_core') or 1,
                                          1)


def _parts_of(system):
    return [Part(f'{system["name"]}:{p["name"]}', p.get('features', []),
                 p['extras'], _cores(p),
                 [r['name'] for r in p.get('resources', [])])
            for p in system['partitions']]


def parts():
    ''':class:`Part` of every partition of the loaded system.'''
    return _parts_of(_current) if _current is not None else []


@functools.lru_cache(maxsize=None)
def _every_shipped_part():
    found = []
    for stem, path in system_files().items():
        try:
            systems = read(stem, path, {})[0]['systems']
        except IogapError as err:
            # one broken profile stops no other system's commands
            print(f'iogap: {err}; its partitions are left out until it is '
                  f'mended', file=sys.stderr)
            continue
        found += [part for system in systems for part in _parts_of(system)]
    return found


def values(of):
    '''Sorted union of ``of(part)`` over the partitions the parameters
    span: the run's system (:func:`parametrize`), else every profile in
    ``systems/`` (even one loaded), so that importing the library gives
    every case of every system, each generated where its constraints allow.'''
    global _spanned
    if _parametrizing is not None:
        _spanned, spanned = _parametrizing['name'], _parts_of(_parametrizing)
    else:
        _spanned, spanned = 'every profile', _every_shipped_part()
    return sorted({v for part in spanned for v in of(part)},
                  key=lambda v: (str(type(v)), v))
