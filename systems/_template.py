'''TEMPLATE: a new site's profile. Rather than editing it by hand, write
one from the cluster itself on a login node:

    iogap profile new <system>

Otherwise copy it to systems/<system>.py (the file is named after the
system), edit what is marked EDIT, add systems/spack/<overlay>.yaml for
+spack partitions, and run `reframe -C reframe_config.py --system <system>
-l`: the profile is checked when it loads, one line naming the partition,
the key and the fix; a run also checks `access`, `num_cpus` and `mpi_type`
against Slurm before any job. Every extra and feature is in
docs/reference/profile.md.

Checks pick partitions by feature, never by name: give a partition only
the features it can honour, and the extras each feature needs.
'''

import os

#: EDIT: regular expressions for the hosts reframe runs on (login nodes);
#: no other profile's patterns may match them
HOSTNAMES = [r'^login\d+\.example\.org$']

#: EDIT: where the checks write: a directory of the suite's own
_scratch = os.environ.get('SCRATCH', '/scratch') + '/iogap'

#: EDIT: the environment variables this file reads: a night split into
#: pipeline jobs gives every job the values its planning job saw
ENVIRONMENT = ('SCRATCH',)


def _partition(name, constraint, processor, clocks_ghz):
    return {
        'name': name,
        'descr': f'{name} nodes',
        'scheduler': 'slurm',
        'launcher': 'srun',
        # EDIT: how jobs reach these nodes (account, QOS and reservation
        # are extras below; IOGAP_ACCOUNT, IOGAP_QOS, IOGAP_RESERVATION win)
        'access': [f'-p {name}', f'-C {constraint}'],
        # EDIT: the programming environments the tools run in (defined
        # below), and the modules every job of the partition loads
        'environs': ['builtin'],
        'modules': [],
        'max_jobs': 10,
        # EDIT: from `lscpu` on a compute node; required
        'processor': processor,
        'features': ['mpi', 'hdf5', 'odirect', 'multinode', 'cpubind',
                     'corespec', 'cpufreq'],
        # +corespec: Slurm must allow it (AllowSpecResourcesUsage=YES)
        'resources': [{'name': 'core_spec',
                       'options': ['--core-spec={cores}']}],
        'extras': {
            'scratch_root': _scratch,
            'spack_overlay': 'generic',     # EDIT: systems/spack/<name>.yaml
            # EDIT: Slurm account, QOS and reservation of every job
            'account': None,
            'qos': None,
            'reservation': None,
            # EDIT: srun's MPI plugin (`srun --mpi=list`)
            'mpi_type': 'pmix',
            'max_nodes': 2,
            'cpu_bind_options': ['--cpu-bind=cores'],
            'core_spec_cores': 2,
            'cpu_freqs_khz': [int(round(f * 1e6)) for f in clocks_ghz],
            'osu_placement': {'same_socket': ['--distribution=block:block'],
                              'cross_socket': ['--distribution=block:cyclic'],
                              'inter_node': []},
            'osu_socket_bind_options': ['--cpu-bind=sockets'],
            'ior_nodes': [1, 2],
            # EDIT: job time limit of each family, and of the Spack build
            # job (+spack) with its CPUs
            'dd_time_limit': '30m',
            'ior_time_limit': '30m',
            'mdtest_time_limit': '30m',
            'osu_time_limit': '15m',
            'build_time_limit': '1h',
            'build_cpus': 8,
        },
    }


site_configuration = {
    'systems': [{
        'name': 'template',     # EDIT: the file's name
        'descr': 'EDIT: what the system is',
        'hostnames': HOSTNAMES,
        'modules_system': 'nomod',      # EDIT: 'lmod', 'tmod4', ...
        'partitions': [
            _partition('cpu', 'cpu', {'arch': 'zen2', 'num_cpus': 128,
                                      'num_cpus_per_core': 2,
                                      'num_sockets': 2,
                                      'num_cpus_per_socket': 64},
                       [1.5, 2.0, 2.5]),
            _partition('big', 'bigmem', {'arch': 'icelake', 'num_cpus': 72,
                                         'num_cpus_per_core': 2,
                                         'num_sockets': 2,
                                         'num_cpus_per_socket': 36},
                       [1.2, 1.8, 2.4]),
        ],
    }],
    # EDIT: the environments the tools run in: 'tools' marks the ones the
    # checks use (the Spack view or PATH gives the tools themselves)
    'environments': [
        {'name': 'builtin', 'features': ['tools'], 'modules': [],
         'cc': 'cc', 'cxx': 'CC', 'ftn': 'ftn'},
    ],
}
