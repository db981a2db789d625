'''NERSC Cori (2016-2023), the study's reference profile.

Partitions as in the CUG'17 study: Haswell (Xeon E5-2698 v3, 2 x 16 cores,
2.3 GHz, 128 GB) and KNL (Xeon Phi 7250, 68 cores x 4 threads, 1.4 GHz,
96 GB DDR4 + 16 GB MCDRAM), Sonexion Lustre $SCRATCH, Aries network.
QOS regular; the account (and another QOS or a reservation) come from
IOGAP_ACCOUNT / IOGAP_QOS / IOGAP_RESERVATION, as on any site. Selected by
Cori's login node names (compute nodes are nid*, like every Cray).
'''

import os

HOSTNAMES = [r'^cori\d+$']

_scratch = os.environ.get('SCRATCH', '/global/cscratch1/sd/' +
                          os.environ.get('USER', 'unknown'))
#: What this file reads from the environment, for every job of a night
#: split into pipeline jobs (USER is every job's own)
ENVIRONMENT = ('SCRATCH',)
_features = ['lustre', 'corespec', 'cpufreq', 'cpubind', 'mpi', 'hdf5',
             'odirect', 'multinode', 'spack', 'darshan']


def _partition(name, descr, processor, freqs_ghz, extra_features, extras):
    return {
        'name': name,
        'descr': descr,
        'scheduler': 'slurm',
        'launcher': 'srun',
        'access': [f'-C {name}'],
        'environs': ['spack', 'builtin'],
        'max_jobs': 100,
        'processor': processor,
        'features': _features + extra_features,
        # Core specialization: the study's `#SBATCH -S 4`
        'resources': [{'name': 'core_spec',
                       'options': ['--core-spec={cores}']}],
        'extras': {**_extras(name, freqs_ghz), **extras},
    }


def _extras(name, freqs_ghz):
    '''What the checks read from a partition: where they write, the sizes
    and nodes of the study, the binding and placement options, the Spack
    build.'''
    return {
        'scratch_root': f'{_scratch}/iogap',
        'qos': 'regular',
        # srun gets -c (--cpus-per-task) from the test's CPUs per task
        'cpu_bind_options': ['--cpu-bind=cores'],
        'cpu_freqs_khz': [int(round(f * 1e6)) for f in freqs_ghz],
        'dd_count': 10000,     # 10 GB, as in the study
        # The memory copy each dd repetition pairs its I/O with: 10000 MiB
        # lasts 0.4 s even at 25 GB/s, faster than one Haswell or KNL
        # core's dd copies memory to /dev/null, so its time is precise
        # to a scheduler tick or two in a thousand
        'dd_control_size': '10000m',
        'max_nodes': 4,
        # IOR/mdtest: 1 GiB per process as in the study, on 1 and 4
        # nodes; the core-spec figure: 32-node HDF5 collective I/O
        'ior_nodes': [1, 4],
        'ior_time_limit': '2h',
        'ior_collective_nodes': 32,
        'ior_collective_ppn': 32,
        'ior_cb_buffer_sizes': ['4m', '16m', '64m'],
        # FPP on one OST; SSF over 72 OSTs, as NERSC's stripe_large
        # helper did on cscratch (from NERSC's pages, not the study)
        'lustre_stripes': {'fpp': {'count': 1, 'size': '1m'},
                           'ssf': {'count': 72, 'size': '1m'}},
        'mdtest_files_per_proc': 5000,
        'mdtest_time_limit': '1h',
        # OSU: Slurm's task distribution puts the two ranks of a node
        # on one socket (block:block) or alternates sockets
        # (block:cyclic); without a binding variant, pin to sockets
        'osu_placement': {'same_socket': ['--distribution=block:block'],
                          'cross_socket': ['--distribution=block:cyclic'],
                          'inter_node': [],
                          # Each inter-node latency's control: two ranks
                          # on one node of its 2-node job
                          'intra_node': ['--nodes=1', '--ntasks=2',
                                         '--ntasks-per-node=2']},
        'osu_socket_bind_options': ['--cpu-bind=sockets'],
        'osu_time_limit': '30m',
        'dd_time_limit': '1h',
        # The Spack build job: one node's cores for an hour at most
        'build_time_limit': '1h',
        'build_cpus': 32,
        # The ToolStack fixture builds spack.yaml here once per
        # partition, with systems/spack/cori.yaml for this target
        'spack_env': f'{_scratch}/iogap-spack/{name}',
        'spack_overlay': 'cori',
        'spack_target': {'knl': 'mic_knl'}.get(name, name),
        'spack_setup': [
            f'. {os.environ.get("IOGAP_SPACK_ROOT", _scratch + "/spack")}'
            f'/share/spack/setup-env.sh'
        ],
        # Cray MPICH reads with O_DIRECT under this (NUG17 slide 8 "Tip
        # 3: Direct IO vs. Buffered IO"): IORPair's mpiio_direct_read
        'mpiio_direct_read': {'MPIIO_DIRECT_READ': 'TRUE'},
        # NERSC preloads its own Darshan: only the suite's may run
        'darshan_unload': ['darshan'],
    }


site_configuration = {
    'systems': [{
        'name': 'cori',
        'descr': 'NERSC Cori Cray XC40 (retired 2023)',
        'hostnames': HOSTNAMES,
        'modules_system': 'nomod',
        'partitions': [
            _partition('haswell', 'Haswell nodes, 2 x 16 cores',
                       {'arch': 'haswell', 'num_cpus': 64,
                        'num_cpus_per_core': 2, 'num_sockets': 2,
                        'num_cpus_per_socket': 32},
                       [1.2, 1.3, 1.4, 1.6, 1.8, 2.0, 2.3],
                       ['multisocket'], {}),
            _partition('knl', 'KNL nodes, 68 cores, quad/cache',
                       {'arch': 'knl', 'num_cpus': 272,
                        'num_cpus_per_core': 4, 'num_sockets': 1,
                        'num_cpus_per_socket': 272},
                       [1.0, 1.1, 1.2, 1.3, 1.4], ['mcdram'],
                       {'numa_nodes': {'dram': 0, 'mcdram': 1},
                        # Read 3x drops at 48-64 cores per node (CUG17
                        # slide 30 "Read Multiple Times", docs/study.md):
                        # the sweep's powers of two miss 48
                        'ior_ppn_points': [48],
                        # NUMA node 1 is MCDRAM on flat-mode nodes only
                        'memory_access': ['-C knl,quad,flat'],
                        # DataWarp: one KNL core saturates it (NERSC-KNL-IO
                        # §"I/O Parallelism"); 82 GiB, one BB server
                        'burst_buffer': {
                            'directives': ['#DW jobdw capacity=82GiB '
                                           'access_mode=striped '
                                           'type=scratch'],
                            'path_env': 'DW_JOB_STRIPED'}}),
        ],
    }],
    'environments': [
        # On Cori the tools come from the project's Spack environment view
        {'name': 'spack', 'target_systems': ['cori'], 'features': ['tools'],
         'cc': 'cc', 'cxx': 'CC', 'ftn': 'ftn'},
        {'name': 'builtin', 'target_systems': ['cori'],
         'cc': 'cc', 'cxx': 'CC', 'ftn': 'ftn'},
    ],
}
