'''minicori: a Cori-shaped profile on the private one-node Slurm of
``ci/local-slurm`` (partitions ``knl`` and ``haswell``, node features
``knl,haswell``), so the suite's cluster path (sbatch, srun with PMIx,
--core-spec, --cpu-bind, time limits, cancellation) runs for real on a
laptop or CI VM. Never matched by hostname: select it with
``--system minicori`` after ``eval "$(ci/local-slurm start)"``.

Both partitions are this very host: cross-partition ratios stay near 1.
What the local Slurm cannot honour is left out, each with its reason:

* ``+cpufreq``: ``srun --cpu-freq`` is accepted but ignored (the VM has no
  cpufreq driver), so every clock of a sweep would run at the same clock
  and a bandwidth-against-clock fit would judge noise. Off.
* ``+mcdram``: no flat-mode MCDRAM NUMA node. ``+lustre``: no Lustre.
* ``+multinode``: one node. ``+multisocket``: only if the host has two.
* ``+spack``: the tools come from the view ``./setup.sh`` built
  (``spack_overlay: generic``), not from a build job.

Core specialization: Slurm gives a ``--core-spec=1`` job on the 2-core
node only the other core, so the core-spec variant reserves 1 core here
(extras['core_spec_cores']; the study's 4 cannot fit a 2-core node).

ReFrame's ``slurm`` backend polls ``sacct``, which needs slurmdbd; the
local Slurm has none, so the profile uses the library's ``slurm-scontrol``
backend (iogap.site.slurm).
'''

from iogap.site import hostinfo
from iogap.site.slurm import SCONTROL

HOSTNAMES = []

#: ReFrame's slurm backend polls sacct, which this Slurm (no accounting
#: storage) refuses; the library's variant reads `scontrol show job`
SCHEDULER = SCONTROL

_root = hostinfo.scratch_root()
_odirect, _odirect_reason = hostinfo.odirect_expected(_root)
_proc = hostinfo.processor()

_features = ['mpi', 'cpubind', 'corespec']
_features += ['hdf5'] if hostinfo.has_parallel_hdf5() else []
_features += ['odirect'] if _odirect else []
# Jobs run as their submitter: root on the CI VM (SlurmUser=root)
_features += ['dropcaches'] if hostinfo.can_drop_caches() else []
_features += ['multisocket'] if _proc['num_sockets'] > 1 else []

#: A hung job must not hang CI: no job outlives this
_TIME_LIMIT = '5m'

_env_vars = [
    # Open MPI refuses root unless told; two ranks may share a core
    ['OMPI_ALLOW_RUN_AS_ROOT', '1'],
    ['OMPI_ALLOW_RUN_AS_ROOT_CONFIRM', '1'],
    ['OMPI_MCA_rmaps_base_oversubscribe', '1'],
]


def _partition(name, descr):
    return {
        'name': name,
        'descr': descr,
        'scheduler': SCHEDULER,
        'launcher': 'srun',
        'access': [f'-p {name}', f'-C {name}'],
        'environs': ['builtin', 'spack'],
        'env_vars': _env_vars,
        'time_limit': _TIME_LIMIT,
        # Both partitions share one node and --exclusive jobs: Slurm runs
        # them one at a time; a few queued keep it busy
        'max_jobs': 4,
        'processor': _proc,
        'features': _features,
        # --core-spec=1 leaves the job the other core (CoreSpec=1)
        'resources': [{'name': 'core_spec',
                       'options': ['--core-spec={cores}']}],
        'extras': {
            'scratch_root': _root,
            'odirect_reason': _odirect_reason,
            'spack_overlay': 'generic',
            # srun's own --mpi=pmix (slurm.conf also says MpiDefault=pmix
            # when the plugin loads): Debian's Open MPI is built against
            # PMIx 4
            'mpi_type': 'pmix',
            'cpu_bind_options': ['--cpu-bind=cores'],
            'core_spec_cores': 1,
            'dd_count': 128,
            # The dd control small, as the generic profile's (CI)
            'dd_control_size': '2g',
            'ior_block_size': '16m',
            'ior_max_ppn': 4,
            'ior_cb_buffer_sizes': ['4m'],
            'ior_time_limit': _TIME_LIMIT,
            'mdtest_files_per_proc': 200,
            'mdtest_time_limit': _TIME_LIMIT,
            'fio_threads': [1, 8],
            'fio_file_size': '256m',
            'fio_runtime': 3,
            # One socket: both ranks on it, pinned (no binding variant)
            'osu_placement': {'same_socket': ['--distribution=block:block'],
                              'inter_node': []},
            'osu_socket_bind_options': ['--cpu-bind=sockets'],
            'osu_max_size': 2**18,
            'osu_collective_max_size': 2**16,
            'osu_iterations': 100,
            'osu_warmup': 10,
            'osu_time_limit': _TIME_LIMIT,
            'dd_time_limit': _TIME_LIMIT,
        },
    }


site_configuration = {
    'systems': [{
        'name': 'minicori',
        'descr': 'Cori-shaped partitions on the local Slurm of '
                 'ci/local-slurm (one node)',
        'hostnames': HOSTNAMES,
        'modules_system': 'nomod',
        'sched_options': {
            # A dead slurmctld: MessageTimeout=5 makes each client fail in
            # ~5 s; do not retry long
            'job_submit_timeout': 20,
            'max_sacct_failures': 2,
        },
        'partitions': [
            _partition('knl', 'Local Slurm partition knl (this host)'),
            _partition('haswell', 'Local Slurm partition haswell (this '
                       'host)'),
        ],
    }],
}
