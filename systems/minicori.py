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
local Slurm has ``AccountingStorageType=accounting_storage/none``
(``sacct``: "Slurm accounting storage is disabled"), and the ``squeue``
backend reports no exit code, which every check asserts. So this profile
registers ``slurm-scontrol``: ReFrame's ``slurm`` backend (the same
sbatch, job options, cancellation) whose poll reads ``scontrol show job``
(state, exit code, end time, nodes; slurmctld keeps finished jobs for
``MinJobAge=600`` s). Nothing else differs from a cluster's ``slurm``.
'''

import re

import reframe.core.runtime as rt
from reframe.core.backends import register_scheduler
from reframe.core.exceptions import ConfigError, SpawnedProcessError
from reframe.core.schedulers import slurm

from iogap.profile import hostinfo

HOSTNAMES = []

#: The scheduler backend of this profile (see the module's docstring)
SCHEDULER = 'slurm-scontrol'

_FIELD = re.compile(r'\b(JobId|JobState|ExitCode|EndTime|NodeList)=(\S*)')


class ScontrolSlurm(slurm.SlurmJobScheduler):
    '''ReFrame's Slurm backend polling ``scontrol show job`` instead of
    ``sacct`` (a Slurm without accounting storage).'''

    def poll(self, *jobs):
        jobs = [job for job in jobs if job is not None]
        if not jobs:
            return

        with rt.temp_environment(env_vars={'SLURM_TIME_FORMAT': '%s'}):
            try:
                # All jobs at once (scontrol takes one id or none)
                completed = slurm._run_strict('scontrol -o show job',
                                              timeout=self._submit_timeout)
                self._num_sacct_failures = 0
            except SpawnedProcessError as err:
                # As the slurm backend treats sacct: a few failures are
                # warnings, then the error stops the test
                self._num_sacct_failures += 1
                if self._num_sacct_failures <= self._max_sacct_failures:
                    self.log(f'scontrol failed ({self._num_sacct_failures}/'
                             f'{self._max_sacct_failures}): {err.stderr}')
                    return
                raise

        info = {}
        for line in completed.stdout.splitlines():
            fields = dict(_FIELD.findall(line))
            if 'JobId' in fields:
                info[fields['JobId']] = fields

        self._update_state_count += 1
        for job in jobs:
            fields = info.get(job.jobid)
            if fields is None:
                # Purged after MinJobAge: it ended long ago
                if job.state is None or not slurm.slurm_state_completed(
                        job.state):
                    job._state = 'CANCELLED' if job.is_cancelling \
                        else 'COMPLETED'
                continue

            # 'CANCELLED by 0' in sacct is 'CANCELLED' here
            job._state = fields.get('JobState', '')
            if slurm.slurm_state_completed(job.state):
                # Like sacct's exitcode field: the script's status, the
                # killing signal (if any) being the part after the colon
                code = fields.get('ExitCode', '0:0').split(':')[0]
                job._exitcode = int(code) if code.isdigit() else None
                self._update_completion_time(job, [fields.get('EndTime')])

            node = fields.get('NodeList', '')
            job._nodespec = '' if node == '(null)' else node

        if not self._update_state_count % self._pending_job_reason_poll_freq:
            self._cancel_if_blocked(jobs)

        self._cancel_if_pending_too_long(jobs)


try:
    register_scheduler(SCHEDULER)(ScontrolSlurm)
except ConfigError:
    pass    # the configuration was loaded before in this process

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
    # srun's own --mpi=pmix (slurm.conf also says MpiDefault=pmix when
    # the plugin loads): Debian's Open MPI is built against PMIx 4
    ['SLURM_MPI_TYPE', 'pmix'],
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
            'cpu_bind_options': ['--cpu-bind=cores'],
            'core_spec_cores': 1,
            'dd_count': 128,
            'ior_block_size': '16m',
            'ior_max_ppn': 4,
            'ior_cb_buffer_sizes': ['4m'],
            'ior_time_limit': _TIME_LIMIT,
            'mdtest_files_per_proc': 200,
            'mdtest_time_limit': _TIME_LIMIT,
            # One socket: both ranks on it, pinned (no binding variant)
            'osu_placement': {'same_socket': ['--distribution=block:block'],
                              'inter_node': []},
            'osu_socket_bind_options': ['--cpu-bind=sockets'],
            'osu_max_size': 2**18,
            'osu_collective_max_size': 2**16,
            'osu_iterations': 100,
            'osu_warmup': 10,
            'osu_time_limit': _TIME_LIMIT,
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
