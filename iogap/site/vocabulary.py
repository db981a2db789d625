'''The words a profile's partition is described in: features (what the host
can do, and what each needs) and extras (JSON schema, default, meaning).'''

from iogap.inputs import TOKEN

_STR_LIST = {'type': 'array', 'items': {'type': 'string'}}
_SIZE = {'type': 'string', 'pattern': r'^[1-9][0-9]*[kKmMgG]?$'}
POSITIVE = {'type': 'integer', 'minimum': 1}
_OPT_COUNT = {'type': ['integer', 'null'], 'minimum': 1}
_RATE = {'type': 'number', 'exclusiveMinimum': 0}
_TIME = {'type': ['string', 'null'], 'pattern': r'^\d+[smhd]?$|^\d+:\d\d'}
#: One word of a job option (a space or newline would start another line)
_OPT_WORD = {'type': ['string', 'null'], 'pattern': TOKEN}
_STRIPE = {'type': 'object', 'additionalProperties': False,
           'required': ['count', 'size'],
           'properties': {'count': {'type': 'integer', 'minimum': -1},
                          'size': _SIZE}}

#: key -> (JSON schema, default, description)
EXTRAS = {
    'scratch_root': ({'type': 'string', 'pattern': '^/'}, None,
                     'absolute directory the checks write under; it must be '
                     'dedicated to the suite (empty, or holding its marker '
                     '`.iogap-scratch`)'),
    'odirect_reason': ({'type': 'string'}, '',
                       'why O_DIRECT is (not) expected to work there'),
    'hdf5_direct_reason': ({'type': 'string'}, '',
                           'why HDF5\'s direct VFD is (not) there'),
    'repetitions': (POSITIVE, 3, 'repetitions of every measurement (dd runs, '
                    'IOR and mdtest `-i`)'),
    'dd_block_size': (_SIZE, '1M', 'dd `bs=` (study: 1M)'),
    'dd_count': (POSITIVE, 1024, 'dd `count=` (study: 10000, i.e. 10 GB)'),
    'dd_control_size': (_SIZE, '10000m', 'bytes of the memory copy (dd '
                        '`/dev/zero` to `/dev/null`) each dd repetition '
                        'pairs its I/O with (`<pattern>_bw_paired`), whole '
                        'blocks, at least the file (0.2 s at 50 GB/s)'),
    'cpu_bind_options': (_STR_LIST, [], 'launcher options that bind each '
                         'task to its cores (`--cpu-bind=cores`, '
                         '`--bind-to core`)'),
    'core_spec_cores': (POSITIVE, 4, 'cores the core-spec variant reserves '
                        'per node (study: `#SBATCH -S 4`)'),
    'cpu_freqs_khz': ({'type': 'array', 'minItems': 2, 'items': POSITIVE}, [],
                      'CPU clocks of the frequency sweep (`srun '
                      '--cpu-freq`), kHz'),
    'numa_nodes': ({'type': 'object', 'additionalProperties': False,
                    'required': ['dram', 'mcdram'],
                    'properties': {'dram': {'type': 'integer'},
                                   'mcdram': {'type': 'integer'}}}, {},
                   'NUMA node of each memory kind (`numactl -m`), flat '
                   'mode'),
    'memory_access': (_STR_LIST, [], 'scheduler options that give nodes '
                      'whose memory kinds are NUMA nodes (e.g. '
                      '`-C knl,quad,flat`), for the memory variants'),
    'lustre_stripes': ({'type': 'object', 'additionalProperties': False,
                        'required': ['fpp', 'ssf'],
                        'properties': {'fpp': _STRIPE, 'ssf': _STRIPE}}, {},
                       '`lfs setstripe` count and size per file layout '
                       '(file per process, shared file)'),
    'max_nodes': (POSITIVE, 1, 'nodes a job may span'),
    'ior_block_size': (_SIZE, '1g', 'IOR `-b` per task (study: 1 GB)'),
    'ior_transfer_size': (_SIZE, '1m', 'IOR `-t`'),
    'ior_max_ppn': (_OPT_COUNT, None, 'cap on the processes-per-node sweep '
                    '(null: the partition\'s cores)'),
    'ior_ppn_points': ({'type': 'array', 'items': POSITIVE}, [],
                       'processes per node the sweep adds to its powers of '
                       'two, where a study measured them (Cori KNL: 48)'),
    'ior_nodes': ({'type': 'array', 'minItems': 1, 'items': POSITIVE}, [1],
                  'node counts of the IOR and mdtest sweeps'),
    'ior_time_limit': (_TIME, None, 'job time limit of an IOR case'),
    'ior_collective_nodes': (_OPT_COUNT, None, 'nodes of the collective-I/O '
                             'cases (null: the largest of `ior_nodes`)'),
    'ior_collective_ppn': (_OPT_COUNT, None, 'processes per node of the '
                           'collective-I/O cases (null: the top of the '
                           'sweep)'),
    'ior_cb_buffer_sizes': ({'type': 'array', 'items': _SIZE}, [],
                            'ROMIO `cb_buffer_size` values to sweep'),
    'mpiio_hints_display': ({'type': 'object', 'additionalProperties':
                             {'type': 'string'}}, {},
                            'environment that makes MPI-IO print the hints '
                            'at each open (`ROMIO_PRINT_HINTS`): a multi-node '
                            'collective case then checks its aggregators'),
    'ior_collective_transfer_size': (_SIZE, '64k', 'IOR `-t` and `-b` of '
                                     'the collective-I/O cases: small '
                                     'interleaved segments (`-s`) that '
                                     'collective buffering aggregates'),
    'mpiio_direct_read': ({'type': 'object', 'additionalProperties':
                           {'type': 'string'}}, {},
                          'environment that makes the MPI-IO layer read '
                          'with O_DIRECT (Cray MPICH: `MPIIO_DIRECT_READ='
                          'TRUE`); IORPair reads a shared file with and '
                          'without it in one job'),
    'burst_buffer': ({'type': 'object', 'additionalProperties': False,
                      'required': ['directives', 'path_env'],
                      'properties': {'directives': _STR_LIST,
                                     'path_env': {'type': 'string'}}},
                     {}, 'a job\'s own burst buffer: the batch directives '
                     'that allocate it (`#DW jobdw ...`) and the variable '
                     'naming its directory (`DW_JOB_STRIPED`); FioThreads '
                     'reads there too'),
    'mdtest_files_per_proc': (POSITIVE, 1000, 'mdtest `-n`'),
    'mdtest_file_bytes': ({'type': 'integer', 'minimum': 0}, 4096,
                          'bytes written and read back per mdtest file'),
    'mdtest_time_limit': (_TIME, None, 'job time limit of an mdtest case'),
    'osu_placement': ({'type': 'object', 'additionalProperties': False,
                       'properties': {p: _STR_LIST for p in (
                           'same_socket', 'cross_socket', 'inter_node',
                           'intra_node')}},
                      {}, 'launcher options that place two ranks on one '
                      'socket, two sockets, two nodes, or (`intra_node`) '
                      'one node of a two-node job: the inter-node latency\'s '
                      'control (`latency_smallest_paired`)'),
    'osu_socket_bind_options': (_STR_LIST, [], 'options that pin ranks to '
                                'their socket when no binding variant does'),
    'osu_time_limit': (_TIME, None, 'job time limit of an OSU case'),
    'osu_max_size': (POSITIVE, 4 * 2**20, 'largest point-to-point message, B'),
    'osu_collective_max_size': (POSITIVE, 2**20, 'largest collective message, '
                                'B'),
    'osu_iterations': (_OPT_COUNT, None, 'OSU `-i` (null: OSU\'s default)'),
    'osu_warmup': ({'type': ['integer', 'null'], 'minimum': 0}, None,
                   'OSU `-x` (null: OSU\'s default)'),
    'affinity_tasks': (POSITIVE, 4, 'tasks on the under-packed node of the '
                       'affinity cases (NERSC: `srun -n 4`)'),
    'affinity_cores_per_task': (POSITIVE, 16, 'cores each of those tasks is '
                                'given and bound to (NERSC: `-c 64` on '
                                'KNL, 4 threads per core)'),
    'fio_threads': ({'type': 'array', 'minItems': 2, 'items': POSITIVE},
                    [1, 8, 16, 32], 'threads on one core of the fio read '
                    'cases (study: 16-32 saturate a KNL core\'s bandwidth)'),
    'fio_file_size': (_SIZE, '1g', 'file the fio threads read, each its '
                      'own region'),
    'fio_block_size': (_SIZE, '1m', 'fio `bs` (each pread)'),
    'fio_runtime': (POSITIVE, 10, 'seconds each fio case reads'),
    'osu_prefix': ({'type': ['string', 'null']}, None,
                   'an OSU install prefix that wins over the tool stack'),
    'spack_env': ({'type': 'string', 'pattern': '^/'}, None,
                  'directory where the partition builds its Spack '
                  'environment'),
    'spack_overlay': ({'type': 'string'}, None,
                      'overlay `systems/spack/<name>.yaml`'),
    'spack_target': ({'type': 'string'}, '', 'Spack target of the '
                     'partition (`IOGAP_SPACK_TARGET` in the overlay)'),
    'spack_setup': (_STR_LIST, [], 'shell lines that put `spack` on PATH '
                    'in the build job'),
    'darshan_unload': (_STR_LIST, [], 'modules to unload so that only the '
                       'suite\'s Darshan is preloaded'),
    'dd_time_limit': (_TIME, None, 'job time limit of a dd case'),
    'build_time_limit': (_TIME, '1h', 'time limit of the `+spack` build '
                         'job'),
    'build_cpus': (POSITIVE, 4, 'CPUs of the `+spack` build job (`spack '
                   'install -j`)'),
    'account': (_OPT_WORD, None, 'Slurm account of every job '
                '(`--account`); `IOGAP_ACCOUNT` wins'),
    'qos': (_OPT_WORD, None, 'Slurm QOS of every job (`--qos`); '
            '`IOGAP_QOS` wins'),
    'reservation': (_OPT_WORD, None, 'Slurm reservation of every job '
                    '(`--reservation`); `IOGAP_RESERVATION` wins'),
    'mpi_type': (_OPT_WORD, None, 'the MPI plugin of `srun` '
                 '(`SLURM_MPI_TYPE`: pmix, pmi2, ...; `srun --mpi=list`)'),
    'plan_start_seconds': ({'type': 'number', 'minimum': 0}, 30, 'what a '
                           'job spends beyond its bytes (start-up, probes, '
                           'calibration), for the cost of a case that never '
                           'ran (`iogap plan`)'),
    'plan_node_bandwidth': (_RATE, 500e6, 'bytes/s per node assumed where no '
                            'reference gives a case\'s bandwidth'),
    'plan_memory_bandwidth': (_RATE, 5e9, 'bytes/s of dd\'s memory copy (the '
                              'control) assumed where no reference gives '
                              '`memory_bw`'),
    'plan_osu_seconds': (_RATE, 60, 'seconds of each measured run of an OSU '
                         'case that never ran (an inter-node latency paired '
                         'with its control runs two a repetition)'),
    'plan_mdtest_rate': (_RATE, 2000, 'metadata operations per second per '
                         'task assumed for an mdtest case that never ran'),
    'night_node_hours': ({'type': ['number', 'null'], 'exclusiveMinimum':
                          0}, None, 'node-hours the partition gives the '
                         'suite a night: `iogap plan night` and '
                         'the nightly plan within it (null: no limit; '
                         '`IOGAP_NIGHT_NODE_HOURS` wins)'),
    'sweep_nodes': ({'type': ['integer', 'null'], 'minimum': 2}, None,
                    'nodes of the partition a night\'s node sweep covers '
                    '(`reframe --distribute`, what its plan counts; the '
                    'reservation bounds them): null, not swept'),
    'site_features': (_STR_LIST, [], 'a site\'s own features (for its own '
                      'checks): listed here, they are not refused as '
                      'unknown'),
    'detectable_features': (_STR_LIST, [], 'features the profile detects on '
                            'the host when it loads: a reference to a case '
                            'that needs one the host lacks is skipped with a '
                            'notice, not refused'),
}

#: feature -> (extras it needs, resources it needs, description)
FEATURES = {
    'mpi': ([], [], 'an MPI launcher: IOR, mdtest and OSU run'),
    'hdf5': ([], [], 'IOR\'s HDF5 backend runs'),
    'odirect': ([], [], 'the scratch file system is not known to refuse '
                'O_DIRECT (each job still probes it)'),
    'hdf5direct': ([], [], 'HDF5 has the direct VFD (`H5Pset_fapl_direct`, '
                   'the study\'s up to +11 %); no check uses it yet: IOR '
                   '4.0.0\'s HDF5 backend does not do O_DIRECT '
                   '(docs/research/findings.md)'),
    'dropcaches': ([], [], 'jobs may write /proc/sys/vm/drop_caches'),
    'multisocket': ([], [], 'nodes have two or more sockets: cross-socket '
                    'placements'),
    'multinode': (['max_nodes'], [], 'jobs may span nodes: inter-node '
                  'placements and node sweeps'),
    'cpubind': (['cpu_bind_options'], [], 'the `cpu_bind=cores` variant'),
    'corespec': (['core_spec_cores'], ['core_spec'], 'the core-spec '
                 'variant (`--core-spec`)'),
    'cpufreq': (['cpu_freqs_khz'], [], 'the CPU-frequency sweeps'),
    'mcdram': (['numa_nodes', 'memory_access'], [], 'the `memory=dram|'
               'mcdram` variants (`numactl -m`)'),
    'lustre': (['lustre_stripes'], [], 'the `striping=tuned` variant '
               '(`lfs setstripe`)'),
    'spack': (['spack_env', 'spack_overlay'], [], 'the ToolStack fixture '
              'builds spack.yaml as a job on the partition'),
    'darshan': ([], [], 'the `darshan=on` variant: darshan-runtime is '
                'preloaded around each I/O step'),
}
