'''Generic profile (system "anyhost"): any host, detected at load time, no edits needed.

Matches every hostname, so it is loaded last. The scratch root is
``$IOGAP_SCRATCH`` when set (it must then exist and be yours), otherwise a
private directory under /var/tmp that this profile creates.
'''

import os

from iogap import hostinfo

_user_root = os.environ.get(hostinfo.SCRATCH_ENV)
scratch_root = _user_root or hostinfo.default_scratch_root()
if not _user_root:
    os.makedirs(scratch_root, mode=0o700, exist_ok=True)

_mpi = hostinfo.mpi_flavour()
_odirect, _odirect_reason = hostinfo.probe_odirect(scratch_root)
_features = ['local']
_features += ['mpi', 'cpubind'] if _mpi else []
_features += ['hdf5'] if _mpi and hostinfo.has_parallel_hdf5() else []
_features += ['odirect'] if _odirect else []
_features += ['dropcaches'] if hostinfo.can_drop_caches() else []
_features += ['multisocket'] if hostinfo.processor()['num_sockets'] > 1 else []

_env_vars = []
if _mpi == 'openmpi':
    # Small runners have fewer cores than the 2-rank MPI checks need
    _env_vars += [['OMPI_MCA_rmaps_base_oversubscribe', '1']]
    if os.geteuid() == 0:
        # CI containers run as root, which OpenMPI refuses by default
        _env_vars += [['OMPI_ALLOW_RUN_AS_ROOT', '1'],
                      ['OMPI_ALLOW_RUN_AS_ROOT_CONFIRM', '1']]

site_configuration = {
    'systems': [
        {
            'name': 'anyhost',
            'descr': 'Any machine, detected at load time',
            'hostnames': [r'.*'],
            'modules_system': 'nomod',
            'partitions': [
                {
                    'name': 'default',
                    'descr': 'This host',
                    'scheduler': 'local',
                    'launcher': 'mpirun' if _mpi else 'local',
                    'environs': ['builtin', 'spack'],
                    'env_vars': _env_vars,
                    'max_jobs': 1,   # I/O checks must not share the disk
                    'processor': hostinfo.processor(),
                    'features': _features,
                    'extras': {
                        'scratch_root': scratch_root,
                        'odirect_reason': _odirect_reason,
                        'cores': hostinfo.cpus(),
                        'memory_gib': hostinfo.memory_gib(),
                        'mpi': _mpi or 'none',
                        'cpu_bind_options': ['--bind-to', 'core'],
                        'cpu_freqs_khz': [],
                        'dd_block_size': '1M',
                        'dd_count': 256,
                        'repetitions': 3,
                        # OSU: mpirun mapping per placement; sizes and
                        # iterations keep the family quick on a laptop
                        'osu_placement': {
                            'same_socket': ['--map-by', 'core'],
                            'cross_socket': ['--map-by', 'socket'],
                            'inter_node': ['--map-by', 'node'],
                        },
                        'osu_max_size': 2**18,
                        'osu_collective_max_size': 2**16,
                        'osu_iterations': 100,
                        'osu_warmup': 10,
                        # IOR/mdtest: quick here, yet every direct/fsync
                        # byte reaches the disk (4 KiB-aligned transfers)
                        'ior_block_size': '16m',
                        'ior_transfer_size': '1m',
                        'ior_max_ppn': 4,
                        'ior_nodes': [1],
                        'ior_cb_buffer_sizes': ['4m'],
                        'mdtest_files_per_proc': 200,
                        'mdtest_file_bytes': 4096,
                    },
                },
            ],
        },
    ],
}
