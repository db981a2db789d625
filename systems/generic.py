'''Generic profile: any host, detected when the configuration loads, with no
edits. It matches every hostname, so it is tried last.

The scratch root is ``$IOGAP_SCRATCH`` (a relative path is taken from the
directory reframe runs in), else ``/var/tmp/iogap-$USER``. Detection reads
the machine and writes nothing: whether O_DIRECT works is judged from the
file-system type here and probed for real by every direct-mode job.
'''

import os

from iogap.site import hostinfo
from iogap.site.spack import stack as spack

HOSTNAMES = [r'.*']

_root = hostinfo.scratch_root()
_mpi = hostinfo.mpi_flavour()
_odirect, _odirect_reason = hostinfo.odirect_expected(_root)
_hdf5_direct, _hdf5_direct_reason = hostinfo.hdf5_direct_vfd()
_proc = hostinfo.processor()

_features = ['mpi', 'cpubind'] if _mpi else []
_features += ['hdf5'] if _mpi and hostinfo.has_parallel_hdf5() else []
_features += ['odirect'] if _odirect else []
_features += ['hdf5direct'] if 'hdf5' in _features and _hdf5_direct else []
_features += ['dropcaches'] if hostinfo.can_drop_caches() else []
_features += ['multisocket'] if _proc['num_sockets'] > 1 else []
# Darshan variants only where darshan-runtime is there to preload
_view = spack.local_view('generic')
_features += ['darshan'] if _view and os.path.exists(
    os.path.join(_view, 'lib', 'libdarshan.so')) else []

_env_vars = []
if _mpi == 'openmpi':
    # Small runners have fewer cores than the 2-rank MPI checks need
    _env_vars += [['OMPI_MCA_rmaps_base_oversubscribe', '1']]
    if os.geteuid() == 0:
        # CI containers run as root, which Open MPI refuses by default
        _env_vars += [['OMPI_ALLOW_RUN_AS_ROOT', '1'],
                      ['OMPI_ALLOW_RUN_AS_ROOT_CONFIRM', '1']]

partition = {
    'name': 'default',
    'descr': 'This host',
    'scheduler': 'local',
    'launcher': 'mpirun' if _mpi else 'local',
    'environs': ['builtin', 'spack'],
    'env_vars': _env_vars,
    'max_jobs': 1,   # I/O checks must not share the disk
    'processor': _proc,
    'features': _features,
    'extras': {
        'scratch_root': _root,
        'odirect_reason': _odirect_reason,
        # Debian 12's parallel HDF5 has none, and the source mirror holds
        # no HDF5 for Spack to build one with it
        'hdf5_direct_reason': _hdf5_direct_reason,
        'detectable_features': ['mpi', 'cpubind', 'hdf5', 'hdf5direct',
                                'odirect', 'dropcaches', 'multisocket',
                                'darshan'],
        # setup.sh builds spack.yaml with systems/spack/generic.yaml
        'spack_overlay': 'generic',
        'cpu_bind_options': ['--bind-to', 'core'],
        # No IORAffinity cases (under-packed node): its 4 tasks x 16 cores
        # do not fit, and no scaled-down form means anything on a few
        # cores: Open MPI binds up to 2 processes to cores by default, so
        # "default" and "cores" are the same placement there
        'dd_count': 256,
        # The memory copy each dd repetition pairs its I/O with, small
        # for CI: 2 GiB takes 0.04-0.05 s here (dd copies 50 GB/s on a
        # quiet host; its rate varied 8.6 % over 12 copies, against
        # 4.7 % for the default 10000 MiB in 0.2 s). A site judging
        # its nights on this profile may take the default instead
        'dd_control_size': '2g',
        # OSU: mpirun mapping per placement; sizes and iterations keep
        # the family quick on a laptop
        'osu_placement': {
            'same_socket': ['--map-by', 'core'],
            'cross_socket': ['--map-by', 'socket'],
            'inter_node': ['--map-by', 'node'],
        },
        'osu_max_size': 2**18,
        'osu_collective_max_size': 2**16,
        'osu_iterations': 100,
        'osu_warmup': 10,
        # What an OSU latency job of these sizes takes here, for the plan
        # (26 jobs of two onboardings: 2.6-27 s, median 10 s; 60 s is a
        # cluster's run at OSU's own iterations)
        'plan_osu_seconds': 12,
        # IOR/mdtest: quick here, yet every direct/fsync byte reaches the
        # disk (4 KiB-aligned transfers) and each phase lasts long enough
        # to be timed (tens of ms)
        'ior_block_size': '64m',
        'ior_max_ppn': 4,
        'ior_cb_buffer_sizes': ['4m'],
        'mdtest_files_per_proc': 200,
        # fio: threads on one core, each reading its region of 256 MiB
        # through O_DIRECT for a few seconds
        'fio_threads': [1, 8],
        'fio_file_size': '256m',
        'fio_runtime': 3,
    },
}

site_configuration = {
    'systems': [{
        'name': 'anyhost',
        'descr': 'Any machine, detected at load time',
        'hostnames': HOSTNAMES,
        'modules_system': 'nomod',
        'partitions': [partition],
    }],
}
