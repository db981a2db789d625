'''TEMPLATE: a new site's profile. Copy it to systems/<system>.py (the file
is named after the system), edit what is marked EDIT, add
reference/<system>.yaml, and run `reframe -C reframe_config.py --system
<system> -l`: the profile is checked when it loads, one line naming the
partition and key. Every extra and feature is in docs/profile.md.

Checks pick partitions by feature, never by name: give a partition only
the features it can honour, and the extras each feature needs.
'''

import os

#: EDIT: regular expressions for the hosts reframe runs on (login nodes)
HOSTNAMES = [r'^login\d+\.example\.org$']

#: EDIT: where the checks write: a directory of the suite's own
_scratch = os.environ.get('SCRATCH', '/scratch') + '/iogap'


def _partition(name, constraint, processor, clocks_ghz):
    return {
        'name': name,
        'descr': f'{name} nodes',
        'scheduler': 'slurm',
        'launcher': 'srun',
        # EDIT: how jobs reach these nodes (partition, constraint, account)
        'access': [f'-p {name}', f'-C {constraint}'],
        'environs': ['builtin'],
        'max_jobs': 10,
        # EDIT: from `lscpu` on a compute node
        'processor': processor,
        'features': ['mpi', 'hdf5', 'odirect', 'multinode', 'cpubind',
                     'corespec', 'cpufreq'],
        # +corespec: Slurm must allow it (AllowSpecResourcesUsage=YES)
        'resources': [{'name': 'core_spec',
                       'options': ['--core-spec={cores}']}],
        'extras': {
            'scratch_root': _scratch,
            'spack_overlay': 'generic',     # EDIT: systems/spack/<name>.yaml
            'max_nodes': 2,
            'cpu_bind_options': ['--cpu-bind=cores'],
            'core_spec_cores': 2,
            'cpu_freqs_khz': [int(f * 1e6) for f in clocks_ghz],
            'osu_placement': {'same_socket': ['--distribution=block:block'],
                              'cross_socket': ['--distribution=block:cyclic'],
                              'inter_node': []},
            'osu_socket_bind_options': ['--cpu-bind=sockets'],
            'ior_nodes': [1, 2],
            'ior_time_limit': '30m',
        },
    }


site_configuration = {
    'systems': [{
        'name': 'template',     # EDIT: the file's name
        'descr': 'EDIT: what the system is',
        'hostnames': HOSTNAMES,
        'modules_system': 'nomod',
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
}
