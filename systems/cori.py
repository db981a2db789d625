'''NERSC Cori (2016-2023), the study's reference profile.

Partitions as in the CUG'17 study: Haswell (Xeon E5-2698 v3, 2 x 16 cores,
2.3 GHz, 128 GB) and KNL (Xeon Phi 7250, 68 cores x 4 threads, 1.4 GHz,
96 GB DDR4 + 16 GB MCDRAM), Sonexion Lustre $SCRATCH, Aries network.
Account and QOS come from IOGAP_ACCOUNT / IOGAP_QOS.
'''

import os
import shutil

_access = [f'--qos={os.environ.get("IOGAP_QOS", "regular")}']
if os.environ.get('IOGAP_ACCOUNT'):
    _access += [f'--account={os.environ["IOGAP_ACCOUNT"]}']

_scratch = os.environ.get('SCRATCH', '/global/cscratch1/sd/' +
                          os.environ.get('USER', 'unknown'))
_features = ['slurm', 'lustre', 'corespec', 'cpufreq', 'cpubind', 'mpi',
             'hdf5', 'odirect', 'numactl', 'multinode', 'spack']
_envs = ['spack', 'builtin', 'PrgEnv-gnu', 'PrgEnv-intel']
_resources = [
    # Core specialization: the study's `#SBATCH -S 4`
    {'name': 'core_spec', 'options': ['--core-spec={cores}']},
]


def _partition(name, descr, processor, memory_gib, freqs_ghz, extra_features,
               numa_nodes):
    return {
        'name': name,
        'descr': descr,
        'scheduler': 'slurm',
        'launcher': 'srun',
        'access': [f'-C {name}'] + _access,
        'environs': _envs,
        'max_jobs': 100,
        'processor': processor,
        'features': _features + extra_features,
        'resources': _resources,
        'extras': {
            'scratch_root': _scratch,
            'cores': processor['num_cpus'] // processor['num_cpus_per_core'],
            'memory_gib': memory_gib,
            # srun gets -c (--cpus-per-task) from the test's CPUs per task
            'cpu_bind_options': ['--cpu-bind=cores'],
            'cpu_freqs_khz': [int(f * 1e6) for f in freqs_ghz],
            'dd_block_size': '1M',
            'dd_count': 10000,     # 10 GB, as in the study
            'repetitions': 3,
            # IOR/mdtest: 1 GiB per process as in the study; the sweep
            # goes to the core count (less core_spec) on 1 and 4 nodes
            'ior_block_size': '1g',
            'ior_transfer_size': '1m',
            'ior_nodes': [1, 4],
            'ior_time_limit': '2h',
            # The study's core-spec figure: 32-node HDF5 collective I/O
            'ior_collective_nodes': 32,
            'ior_collective_ppn': 32,
            'ior_cb_buffer_sizes': ['4m', '16m', '64m'],
            # One step per sweep point: srun places nodes x tasks itself
            'step_geometry_options': ['--nodes={nodes}', '--ntasks={tasks}',
                                      '--ntasks-per-node={ppn}'],
            # FPP on one OST; SSF over 72 OSTs, as NERSC's stripe_large
            # helper did on cscratch (from memory, not the study: verify)
            'lustre_stripes': {'fpp': {'count': 1, 'size': '1m'},
                               'ssf': {'count': 72, 'size': '1m'}},
            'mdtest_files_per_proc': 5000,
            'mdtest_file_bytes': 4096,
            'mdtest_time_limit': '1h',
            'numa_nodes': numa_nodes,
            # OSU: Slurm's task distribution puts the two ranks of a node
            # on one socket (block:block) or alternates sockets (block:cyclic)
            'max_nodes': 4,
            'osu_placement': {'same_socket': ['--distribution=block:block'],
                              'cross_socket': ['--distribution=block:cyclic'],
                              'inter_node': []},
            # Default-binding variants pin each rank to its socket, else
            # the socket placements above would not hold
            'osu_socket_bind_options': ['--cpu-bind=sockets'],
            # A collective job sweeps up to 8 rank counts, -c run included
            'osu_time_limit': '30m',
            # The ToolStack fixture builds spack.yaml here once per
            # partition, with systems/spack/cori.yaml for this target
            'spack_env': f'{_scratch}/iogap-spack/{name}',
            'spack_overlay': 'cori',
            'spack_target': {'knl': 'mic_knl'}.get(name, name),
            'spack_setup': [
                f'. {os.environ.get("IOGAP_SPACK_ROOT", _scratch + "/spack")}'
                f'/share/spack/setup-env.sh'
            ],
        },
    }


site_configuration = {
    'systems': [
        {
            'name': 'cori',
            'descr': 'NERSC Cori Cray XC40 (retired 2023)',
            'hostnames': [r'^cori\d+', r'^nid\d+'],
            'modules_system': 'tmod32' if shutil.which('modulecmd') else 'nomod',
            'partitions': [
                _partition('haswell', 'Haswell nodes, 2 x 16 cores',
                           {'arch': 'haswell', 'num_cpus': 64,
                            'num_cpus_per_core': 2, 'num_sockets': 2,
                            'num_cpus_per_socket': 32},
                           128, [1.2, 1.4, 1.6, 1.8, 2.0, 2.3],
                           ['multisocket'], {}),
                _partition('knl', 'KNL nodes, 68 cores, quad/cache',
                           {'arch': 'knl', 'num_cpus': 272,
                            'num_cpus_per_core': 4, 'num_sockets': 1,
                            'num_cpus_per_socket': 272},
                           96, [1.0, 1.1, 1.2, 1.3, 1.4], ['mcdram'],
                           {'dram': 0, 'mcdram': 1}),   # flat mode
            ],
        },
    ],
    'environments': [
        {'name': 'PrgEnv-gnu', 'target_systems': ['cori'],
         'modules': ['PrgEnv-gnu'], 'features': ['cray'],
         'cc': 'cc', 'cxx': 'CC', 'ftn': 'ftn'},
        {'name': 'PrgEnv-intel', 'target_systems': ['cori'],
         'modules': ['PrgEnv-intel'], 'features': ['cray'],
         'cc': 'cc', 'cxx': 'CC', 'ftn': 'ftn'},
        {'name': 'builtin', 'target_systems': ['cori'],
         'cc': 'cc', 'cxx': 'CC', 'ftn': 'ftn'},
        # On Cori the tools come from the project's Spack environment view
        {'name': 'spack', 'target_systems': ['cori'], 'features': ['tools'],
         'cc': 'cc', 'cxx': 'CC', 'ftn': 'ftn'},
    ],
}
