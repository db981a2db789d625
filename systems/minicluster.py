'''minicluster: a Cori-shaped multi-node profile on the cluster of
``ci/local-slurm start --nodes N`` (N slurmd nodes in namespaces of this
host), so every inter-node path of the study runs for real: OSU between
nodes and across them, IOR and mdtest on 2 nodes (file per process and
shared file on the shared scratch), collective MPI-IO with aggregators on
both nodes, Darshan on multi-node jobs. Never matched by hostname: select
it with ``--system minicluster`` after
``eval "$(ci/local-slurm start --nodes 2)"``. minicori stays the one-node
profile; this one is its multi-node sibling.

Partitions (Slurm partitions of the same names):

* ``knl`` and ``haswell``: nodes n1..nN, one CPU each (nI's cpuset holds
  CPU I-1), ``+multinode``. Two nodes are two distinct cores, so every
  inter-node figure has its ranks on distinct cores. After ``start --nodes
  N --node-cpus all`` each node is over every CPU instead (the nodes share
  them; jobs still run one at a time), so a node holds two ranks on
  distinct cores: the inter-node latency's intra-node control runs
  (``latency_smallest_paired``), which a one-CPU node cannot give.
* ``shared``: node n0 over all CPUs (one node, like Cori's shared QOS):
  the intra-node figures (two ranks on distinct cores, bound by
  task/affinity), binding and core specialization.

What the cluster cannot honour is left out, each with its reason:

* ``+cpubind`` and ``+corespec`` on knl/haswell: a node is one CPU. A task
  cannot run anywhere but on it (its cpuset confines it, and slurmd there
  runs task/none: task/affinity binds by CPU index and fails in a 1-CPU
  cpuset not on CPU 0), so a binding variant would measure the default
  again; ``--core-spec=1`` would leave the node no core. So the study's
  striped core-spec HDF5 collective case (multi-node, core-spec) is not
  generated: only ``shared`` reserves a core, and it is one node.
* ``+multinode`` on shared: one node. ``+multisocket``: one socket.
* ``+cpufreq``, ``+mcdram``, ``+lustre``, ``+spack``: as on minicori (no
  cpufreq driver, no MCDRAM, no Lustre, the tools come from the view).

n0 overlaps the other nodes' CPUs, so every job takes the cluster's one
``host`` license (``-L host``): Slurm runs them one at a time and no job
measures another's load.

The clients (sbatch, squeue, scontrol, srun...) reach the controller
through the cluster's shims (``<dir>/bin``, which ``start`` prints on
PATH): from the host's own network namespace the cluster's private
addresses would leave by its default route. Loading this profile with
``SLURM_CONF`` naming a cluster's slurm.conf puts them first on PATH.
'''

import os

from iogap.errors import ProfileError
from iogap.site import hostinfo
from iogap.site.slurm import SCONTROL
from iogap.site.spack import stack as spack

HOSTNAMES = []

SCHEDULER = SCONTROL

#: The cluster ``SLURM_CONF`` names: its directory holds the node count
#: (``.nodes``) and the client shims (``bin/``)
_dir = os.path.dirname(os.environ.get('SLURM_CONF', '')) or None
_nodes_file = os.path.join(_dir, '.nodes') if _dir else ''
if os.path.exists(_nodes_file):
    with open(_nodes_file) as _fp:
        _NODES = int(_fp.read().strip() or 2)
    _WIDE = os.path.exists(os.path.join(_dir, '.node_cpus'))
    _shims = os.path.join(_dir, 'bin')
    if os.environ.get('PATH', '').split(':')[0] != _shims:
        os.environ['PATH'] = f'{_shims}:{os.environ.get("PATH", "")}'
else:
    _NODES, _WIDE = 2, False

_root = hostinfo.scratch_root()
_odirect, _odirect_reason = hostinfo.odirect_expected(_root)
_host = hostinfo.processor()

_features = ['mpi']
_features += ['hdf5'] if hostinfo.has_parallel_hdf5() else []
_features += ['odirect'] if _odirect else []
_features += ['dropcaches'] if hostinfo.can_drop_caches() else []
_view = spack.local_view('generic')
_features += ['darshan'] if _view and os.path.exists(
    os.path.join(_view, 'lib', 'libdarshan.so')) else []

#: A hung job must not hang CI: no job outlives this
_TIME_LIMIT = '5m'

_env_vars = [
    ['SLURM_MPI_TYPE', 'pmix'],
    # Open MPI refuses root unless told
    ['OMPI_ALLOW_RUN_AS_ROOT', '1'],
    ['OMPI_ALLOW_RUN_AS_ROOT_CONFIRM', '1'],
    # ROMIO, whose hints (cb_nodes, cb_buffer_size) the collective cases
    # set and read back; Open MPI 4's default OMPIO ignores them
    ['OMPI_MCA_io', 'romio321'],
]

#: One CPU per node of knl and haswell
_ONE_CPU = {'arch': _host['arch'], 'num_cpus': 1, 'num_cpus_per_core': 1,
            'num_sockets': 1, 'num_cpus_per_socket': 1}

_extras = {
    'scratch_root': _root,
    'odirect_reason': _odirect_reason,
    'detectable_features': ['hdf5', 'odirect', 'dropcaches', 'darshan'],
    'spack_overlay': 'generic',
    'dd_count': 128,
    # The dd control small, as the generic profile's (CI)
    'dd_control_size': '2g',
    'repetitions': 2,
    'ior_block_size': '16m',
    'ior_nodes': [1, 2],
    'ior_time_limit': _TIME_LIMIT,
    'ior_cb_buffer_sizes': ['4m'],
    # ROMIO prints the hints in force: the collective cases check their
    # aggregators (one per node) against where the ranks ran
    'mpiio_hints_display': {'ROMIO_PRINT_HINTS': '1'},
    'mdtest_files_per_proc': 100,
    'mdtest_time_limit': _TIME_LIMIT,
    'osu_placement': {'same_socket': ['--distribution=block:block'],
                      'inter_node': ['--distribution=block:block'],
                      'intra_node': ['--nodes=1', '--ntasks=2',
                                     '--ntasks-per-node=2']},
    'osu_socket_bind_options': ['--cpu-bind=sockets'],
    # Small: a job here crosses the bridge by TCP (tens of us a message)
    'osu_max_size': 2**16,
    'osu_collective_max_size': 2**12,
    'osu_iterations': 100,
    'osu_warmup': 10,
    'osu_time_limit': _TIME_LIMIT,
}


def _partition(name, descr, processor, features, extras):
    return {
        'name': name,
        'descr': descr,
        'scheduler': SCHEDULER,
        'launcher': 'srun',
        'access': [f'-p {name}', '-L host'],
        'environs': ['builtin', 'spack'],
        'env_vars': _env_vars,
        'time_limit': _TIME_LIMIT,
        'max_jobs': 4,
        'processor': processor,
        'features': _features + features,
        'resources': [{'name': 'core_spec',
                       'options': ['--core-spec={cores}']}],
        'extras': {**_extras, **extras},
    }


def _nodes_partition(name):
    return _partition(
        name, f'Local cluster partition {name}: nodes n1-n{_NODES}, '
        f'{"all CPUs" if _WIDE else "one CPU"} each',
        _host if _WIDE else _ONE_CPU, ['multinode'],
        {'max_nodes': _NODES, 'ior_max_ppn': 1,
         # A node sweep (reframe --distribute) covers n1..nN
         'sweep_nodes': _NODES,
         # The study's collective point scaled down: every node, one
         # aggregator on each
         'ior_collective_nodes': min(_NODES, 2), 'ior_collective_ppn': 1})


_PARTITIONS = [
    _nodes_partition('knl'),
    _nodes_partition('haswell'),
    _partition('shared', 'Local cluster partition shared: node n0 over all '
               'CPUs', _host, ['cpubind', 'corespec'],
               {'cpu_bind_options': ['--cpu-bind=cores'],
                'core_spec_cores': 1, 'ior_max_ppn': 2,
                # IORPair's read-3x pair (Cori KNL: 48 against 32) scaled
                # down: 2 processes against 1 (2 is in the sweep already)
                'ior_ppn_points': [2],
                # The under-packed node scaled down (NERSC: 4 tasks of 16
                # cores): one task given both CPUs of n0, or placed as
                # srun places it. Unbound, srun leaves it both CPUs too,
                # so the two placements coincide here: the family runs,
                # the finding cannot show
                'affinity_tasks': 1, 'affinity_cores_per_task': 2}),
]

#: IOGAP_MINICLUSTER_PARTITIONS (comma-separated) keeps only some: knl and
#: haswell are the same nodes, and a small CI run needs one of them
ENVIRONMENT = ('IOGAP_MINICLUSTER_PARTITIONS',)
_chosen = [n for n in os.environ.get('IOGAP_MINICLUSTER_PARTITIONS', '')
           .split(',') if n] or [p['name'] for p in _PARTITIONS]
#: Left out of this run: references to them are not judged here
OMITTED_PARTITIONS = [p['name'] for p in _PARTITIONS
                      if p['name'] not in _chosen]
_unknown = set(_chosen) - {p['name'] for p in _PARTITIONS}
if _unknown:
    raise ProfileError(f'IOGAP_MINICLUSTER_PARTITIONS names no partition '
                       f'{", ".join(sorted(_unknown))} (knl, haswell, '
                       f'shared)')

site_configuration = {
    'systems': [{
        'name': 'minicluster',
        'descr': f'Cori-shaped partitions on the {_NODES}-node cluster of '
                 f'ci/local-slurm start --nodes {_NODES}',
        'hostnames': HOSTNAMES,
        'modules_system': 'nomod',
        'sched_options': {'job_submit_timeout': 20,
                          'max_sacct_failures': 2},
        'partitions': [p for p in _PARTITIONS if p['name'] in _chosen],
    }],
}
