'''The spack.yaml an environment is made from: the project's, plus a scope of
this build keeping every Spack write in the build directory, with a site's
mirror (IOGAP_SPACK_MIRROR) and build cache (IOGAP_SPACK_BUILDCACHE); and a
system's overlay, checked, or written for a new site with the nodes' own
tools as externals, so that Spack builds only the benchmarks.'''

import difflib
import os
import re

import jsonschema
import yaml

from iogap.site.spack import own

#: Where the systems' overlays live
OVERLAYS = os.path.join(own.ROOT, 'systems', 'spack')


class SpackError(Exception):
    '''Spack, its environment or its inputs failed.'''


def overlay_path(name):
    path = os.path.join(OVERLAYS, f'{name}.yaml')
    if not os.path.exists(path):
        raise SpackError(f'no Spack overlay {path}')
    return path


def mirror_url():
    '''The mirror named by IOGAP_SPACK_MIRROR as a URL, or ``None``.'''
    mirror = os.environ.get('IOGAP_SPACK_MIRROR')
    if not mirror:
        return None
    if '://' not in mirror:
        mirror = 'file://' + os.path.abspath(mirror)
    if mirror.startswith('file://') and not os.path.isdir(mirror[7:]):
        raise SpackError(f'IOGAP_SPACK_MIRROR names {mirror[7:]}, which is '
                         f'not a directory')
    return mirror


def buildcache_dir():
    '''The build cache a site keeps (IOGAP_SPACK_BUILDCACHE, a path or a
    ``file://`` URL) as an absolute path, or ``None``.'''
    cache = os.environ.get('IOGAP_SPACK_BUILDCACHE')
    if not cache:
        return None
    cache = os.path.abspath(cache.removeprefix('file://'))
    if not os.path.isdir(os.path.dirname(cache)):
        raise SpackError(f'IOGAP_SPACK_BUILDCACHE names {cache}, whose '
                         f'parent is not a directory')
    return cache


def write(path):
    '''spack.yaml (ours, plus the scope of this build) in ``path``.'''
    os.makedirs(os.path.join(path, 'logs'), exist_ok=True)
    base = os.path.dirname(path)
    site = {'config': {
        'install_tree': {'root': os.path.join(base, 'install')},
        'build_stage': [os.path.join(base, 'stage')],
        'source_cache': os.path.join(base, 'source-cache'),
        'misc_cache': os.path.join(base, 'misc-cache'),
    }, 'packages': {
        # A changed tool is a new spec, never a stale copy in the view
        'iogap-tools': {'require': [f'sources={own.digest()}']}}}
    mirror = mirror_url()
    if mirror:
        # Archives of the releases, not their tarballs: no checksums here
        site['mirrors'] = {'iogap': mirror}
        site['config']['checksum'] = False

    cache = buildcache_dir()
    if cache:
        # A padded prefix relocates in place into any clone's shorter one
        # (no patchelf); the cache is the site's own, its binaries unsigned
        site['config']['install_tree']['padded_length'] = 128
        site.setdefault('mirrors', {})['iogap-buildcache'] = {
            'url': f'file://{cache}', 'source': False, 'signed': False}

    with open(os.path.join(path, 'iogap-build.yaml'), 'w') as fp:
        yaml.safe_dump(site, fp, sort_keys=False)
    with open(os.path.join(own.ROOT, 'spack.yaml')) as fp:
        manifest = yaml.safe_load(fp)
    manifest['spack']['include'].append('iogap-build.yaml')
    manifest['spack']['repos'] = [
        os.path.join(own.ROOT, repo) for repo in manifest['spack'].get(
            'repos', [])]
    with open(os.path.join(path, 'spack.yaml'), 'w') as fp:
        yaml.safe_dump(manifest, fp, sort_keys=False)


#: The sections of a Spack scope (``name:`` overrides the scopes below)
SECTIONS = ('bootstrap', 'cdash', 'ci', 'compilers', 'concretizer', 'config',
            'definitions', 'develop', 'env_vars', 'include', 'mirrors',
            'modules', 'packages', 'repos', 'toolchains', 'upstreams', 'view')
#: An overlay: Spack's sections, and the ``iogap_arch`` definition the
#: roots of spack.yaml are built for
OVERLAY = jsonschema.Draft7Validator({
    'type': 'object', 'required': ['definitions'],
    'additionalProperties': False,
    'patternProperties': {f'^({"|".join(SECTIONS)}):?$': {}},
    'properties': {
        'packages': {'type': 'object',
                     'additionalProperties': {'type': 'object'}},
        'definitions': {'type': 'array', 'contains': {
            'type': 'object', 'required': ['iogap_arch']}}}})


def check_overlay(path):
    '''``(problem, line)`` of an overlay that is not text, not YAML, empty
    or not of the schema, else ``None``.'''
    try:
        with open(path, encoding='utf-8') as fp:
            text = fp.read()
        data = yaml.safe_load(text)
    except (OSError, UnicodeDecodeError) as err:
        return f'cannot be read as text ({getattr(err, "strerror", err)})', 0
    except yaml.YAMLError as err:
        mark = getattr(err, 'problem_mark', None)
        return (f'not YAML: {getattr(err, "problem", None) or err}'.split(
            '\n')[0], mark.line + 1 if mark else 0)
    if data is None:
        return 'is empty (spack external find writes one)', 0
    data = {str(k): v for k, v in data.items()} if isinstance(
        data, dict) else data
    line = lambda key: next((n for n, l in enumerate(
        text.splitlines(), 1) if key and l.startswith(f'{key}:')), 0)
    for err in sorted(OVERLAY.iter_errors(data), key=lambda e: (
            e.validator != 'additionalProperties', str(e))):
        key = '.'.join(map(str, err.absolute_path))
        if err.validator == 'additionalProperties':
            key = sorted(k for k in data if k.rstrip(':') not in SECTIONS)[0]
            close = difflib.get_close_matches(key, SECTIONS, 1)
            hint = f'did you mean {close[0]!r}? ' if close else ''
            return (f'unknown key {key!r} ({hint}Spack\'s sections: '
                    f'{", ".join(SECTIONS)})', line(key))
        if err.validator in ('contains', 'required'):
            return ('definitions: no iogap_arch (the roots of spack.yaml '
                    'are built for it)', line('definitions'))
        return f'{key or "the file"}: {err.message}', line(key.split('.')[0])
    return None


#: What the suite's stack takes from the system when it is there
PACKAGES = ('openmpi', 'mpich', 'hdf5', 'coreutils', 'numactl', 'autoconf',
            'automake', 'libtool', 'm4', 'gmake', 'perl', 'pkgconf', 'zlib')

#: Run in a job: Spack's configuration and caches in a directory of its own
FIND = r'''
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
export SPACK_USER_CONFIG_PATH=$t SPACK_USER_CACHE_PATH=$t/cache
. "$1/share/spack/setup-env.sh" || exit 1
shift
spack external find --scope user --not-buildable "$@" >&2 || exit 1
cat "$t/packages.yaml"
'''


def write_overlay(where, cluster, partition, probe, spack_root):
    '''Write a new site's overlay at ``where``; one line saying how it was
    made.'''
    if spack_root:
        out = cluster.step(partition, 'bash', '-c', FIND, 'find', spack_root,
                           *PACKAGES, timeout=3600, minutes=60)
        packages = (yaml.safe_load(out) or {}).get('packages', {})
        how = (f'`spack external find` in a job on {partition} ({spack_root})'
               f': {", ".join(sorted(packages)) or "nothing"}')
    else:
        packages = from_probe(probe)
        how = (f'no Spack (IOGAP_SPACK_ROOT, --spack-root): the overlay '
               f'names what the node\'s tools report: '
               f'{", ".join(sorted(packages)) or "nothing"}')
    mpi = next((m for m in ('openmpi', 'mpich') if m in packages), None)
    if mpi:
        # Never build an MPI: the benchmarks use the one srun launches
        packages = {'mpi': {'require': mpi, 'buildable': False}, **packages}
    for entry in packages.get('hdf5', {}).get('externals', []):
        # Debian's parallel HDF5 is a per-flavour pseudo-prefix (include/
        # and lib/ are symlinks): from /usr a compiler would not see it
        for flavour in ('openmpi', 'mpich'):
            pseudo = f'/usr/lib/{os.uname().machine}-linux-gnu/hdf5/{flavour}'
            if entry.get('prefix') == '/usr' and os.path.isdir(pseudo):
                entry['prefix'] = pseudo
                break
    os.makedirs(os.path.dirname(where), exist_ok=True)
    with open(where, 'w') as fp:
        fp.write(f'# Written by iogap profile new: {how}.\n'
                 f'# Everything listed is a non-buildable external; Spack '
                 f'builds the rest.\n')
        yaml.safe_dump({'packages': packages, 'definitions': [
            {'iogap_arch': ['platform=linux']}]}, fp, sort_keys=False)
    return f'overlay from {how}'


def from_probe(probe):
    '''Externals (version, prefix) from the node probe's tool sections.'''
    found = {}
    for name, section, pattern, variants in (
            ('openmpi', 'mpirun', r'\(Open MPI\) (\S+)', ''),
            ('coreutils', 'dd', r'\((?:GNU )?coreutils\) (\S+)', ''),
            ('hdf5', 'h5pcc', r'HDF5 Version: (\S+)', '+mpi')):
        lines = probe.get(section, [])
        version = next((m.group(1) for line in lines
                        if (m := re.search(pattern, line))), None)
        tool = next((line for line in lines if line.startswith('/')), None)
        if version and tool:
            prefix = os.path.dirname(os.path.dirname(tool))
            found[name] = {'buildable': False, 'externals': [
                {'spec': f'{name}@{version}{variants}', 'prefix': prefix}]}
    return found
