'''``slurm-scontrol``, ReFrame's ``slurm`` backend polling ``scontrol show
job``, for a Slurm without accounting storage: sacct refuses there, and the
``squeue`` backend gives no exit code, which every check asserts.'''

import re

import reframe.core.runtime as rt
from reframe.core.backends import register_scheduler
from reframe.core.exceptions import ConfigError, SpawnedProcessError
from reframe.core.schedulers import slurm

#: The backend's name, for a partition's ``scheduler``
SCONTROL = 'slurm-scontrol'

_FIELD = re.compile(r'\b(JobId|JobState|ExitCode|EndTime|NodeList)=(\S*)')


class ScontrolSlurm(slurm.SlurmJobScheduler):
    '''ReFrame's Slurm backend, polling ``scontrol show job``.'''

    def poll(self, *jobs):
        jobs = [job for job in jobs if job is not None]
        info = self._shown_jobs() if jobs else None
        if info is None:
            return
        self._update_state_count += 1
        for job in jobs:
            self._update_job(job, info.get(job.jobid))
        if not self._update_state_count % self._pending_job_reason_poll_freq:
            self._cancel_if_blocked(jobs)
        self._cancel_if_pending_too_long(jobs)

    def _shown_jobs(self):
        '''``{job id: fields}`` of every job slurmctld keeps, or ``None``
        when scontrol failed and that is a warning yet.'''
        with rt.temp_environment(env_vars={'SLURM_TIME_FORMAT': '%s'}):
            try:
                # All jobs at once (scontrol takes one id or none)
                completed = slurm._run_strict('scontrol -o show job',
                                              timeout=self._submit_timeout)
                self._num_sacct_failures = 0
            except SpawnedProcessError as err:
                # As the slurm backend's sacct: warnings, then the error
                self._num_sacct_failures += 1
                if self._num_sacct_failures <= self._max_sacct_failures:
                    self.log(f'scontrol failed ({self._num_sacct_failures}/'
                             f'{self._max_sacct_failures}): {err.stderr}')
                    return None
                raise
        info = {}
        for line in completed.stdout.splitlines():
            fields = dict(_FIELD.findall(line))
            if 'JobId' in fields:
                info[fields['JobId']] = fields
        return info

    def _update_job(self, job, fields):
        '''A job's state, exit code, end time and nodes from its ``fields``
        (``None``: slurmctld no longer keeps it).'''
        if fields is None:
            # Purged after MinJobAge (300 s by default): it ended long ago
            if not (job.state and slurm.slurm_state_completed(job.state)):
                job._state = 'CANCELLED' if job.is_cancelling else 'COMPLETED'
            return
        # 'CANCELLED by 0' in sacct is 'CANCELLED' here
        job._state = fields.get('JobState', '')
        if slurm.slurm_state_completed(job.state):
            # status:signal, as in sacct; the status is the script's
            code = fields.get('ExitCode', '0:0').split(':')[0]
            job._exitcode = int(code) if code.isdigit() else None
            self._update_completion_time(job, [fields.get('EndTime')])
        node = fields.get('NodeList', '')
        job._nodespec = '' if node == '(null)' else node
        if job.state == 'NODE_FAIL' and not getattr(job, 'lost_nodes', None):
            job.lost_nodes = self._lost_nodes(job._nodespec)

    def _lost_nodes(self, nodespec):
        '''A failed job's nodes that are down, and why: ``n2 (down*: ...)``.'''
        try:
            found = slurm._run_strict(f'sinfo -h -N -n {nodespec} -o '
                                      f'"%N|%T|%E"',
                                      timeout=self._submit_timeout).stdout
        except SpawnedProcessError:
            return nodespec
        lost = []
        for line in sorted(set(found.splitlines())):
            node, state, reason = (line.split('|') + ['', ''])[:3]
            if state.rstrip('*') not in ('idle', 'allocated', 'mixed',
                                         'completing') or '*' in state:
                lost.append(f'{node} ({state}: {reason})')
        return ', '.join(lost) or nodespec


try:
    register_scheduler(SCONTROL)(ScontrolSlurm)
except ConfigError:
    pass    # the configuration was loaded before in this process
