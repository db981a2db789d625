'''A system's Spack overlay: the nodes' own tools as externals, so that Spack
builds only the benchmarks (``spack external find``, or the node probe).'''

import os
import re

import yaml

from iogap.site import profile

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


def path(system):
    return os.path.join(profile.SYSTEMS_DIR, 'spack', f'{system}.yaml')


def write(where, cluster, partition, probe, spack_root):
    '''Write the overlay at ``where``; one line saying how it was made.'''
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
    debian_hdf5(packages)
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


def debian_hdf5(packages):
    '''Debian's parallel HDF5 lives in a per-flavour pseudo-prefix
    (include/ and lib/ are symlinks): with prefix /usr a compiler would not
    see /usr/include/hdf5/openmpi.'''
    for entry in packages.get('hdf5', {}).get('externals', []):
        for flavour in ('openmpi', 'mpich'):
            pseudo = f'/usr/lib/{os.uname().machine}-linux-gnu/hdf5/{flavour}'
            if entry.get('prefix') == '/usr' and os.path.isdir(pseudo):
                entry['prefix'] = pseudo
                break
