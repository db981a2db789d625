'''The base every measuring test builds on: scratch, tools, launch, figures.
A family fills in its hooks and reports figures its sanity checked with the
base's components; judging them is :mod:`iogap.judge`'s.'''

import os
import re
import shlex
import shutil

import reframe as rfm
import reframe.utility.sanity as sn
import reframe.utility.typecheck as typ
from reframe.core.builtins import fixture, run_after, run_before, variable

from iogap.core import jobguard, jobscript, runlock, scratch, steps
from iogap.core.cases import case_params, describe, runs_on, runtime_parts
from iogap.core.darshan import Darshan
from iogap.core.ending import JobEnding, time_limit
from iogap.core.pagecache import Eviction
from iogap.core.provider import find_tool, on_node, resolved
from iogap.core.steps import JobSteps
from iogap.core.striping import Striping
from iogap.core.toolstack import ToolStack
from iogap.core.variants import Placement
from iogap.errors import ScratchError
from iogap.site import profile
from iogap.site.spack import own


class IogapTest(rfm.RunOnlyRegressionTest, JobEnding):
    '''Undecorated base: site data comes from the partition's extras.'''

    valid_systems = ['*']
    valid_prog_environs = ['+tools']
    CONSTRAINTS = ()

    # I/O figures are meaningless on a node shared with other jobs
    exclusive_access = True

    #: The partition's tools: built with Spack or found, once
    tools = fixture(ToolStack, scope='environment')
    #: Where the measured tool came from (Spack view or PATH); logged
    tool_provider = variable(str, value='', loggable=True)
    #: Every tool the job ran, as its node resolved it (path, digest, version)
    tools_resolved = variable(str, value='', loggable=True)
    #: Directory of the project's job-side tools (``.``: the stage directory)
    own_tools = variable(str, value='.', loggable=False)
    #: How the figures were obtained (cache eviction, binding...); logged
    method = variable(str, value='', loggable=True)
    #: Bytes the test writes at most; checked against free space
    scratch_bytes = variable(int, value=0, loggable=False)
    #: Bytes the job moves in all: its time limit when the profile has none
    moved_bytes = variable(int, value=0, loggable=False)
    #: Figures this host cannot give: ``{name: reason}``
    inapplicable = variable(dict, value={}, loggable=False)
    #: How reads defeat the page cache (:class:`Eviction`)
    evict = variable(str, value='auto')
    #: Cores of each bound task (``-c`` counts their hardware threads)
    cores_per_task = variable(int, value=1)
    #: Launcher options that bind; ``None`` takes extras['cpu_bind_options']
    bind_options = variable(typ.List[str], type(None), value=None)

    def size_tasks(self):
        '''Init: the tasks, where the case's parameters alone give them.'''

    def configure(self):
        '''Set-up: the family's sizes, tasks, tools and main command.'''

    def plan_steps(self):
        '''Before the run: the family's steps and job sections.'''

    @run_after('init')
    def _declared_partitions(self):
        params = case_params(self)
        self.valid_systems = [part.fullname for part in runtime_parts()
                              if runs_on(type(self), params, part)]
        self.job_sections = jobscript.JobSections()
        self.size_tasks()

    @run_after('init')
    def _described(self):
        darshan = getattr(self, 'darshan', 'on') == 'on'
        describe(self, [f for f in getattr(self, 'figures', ())
                        if darshan or not f.template.startswith('darshan')])

    def note(self, text):
        '''Add to :attr:`method`, which every perflog line carries.'''
        self.method = f'{self.method}; {text}' if self.method else text

    def extra(self, key):
        return self.current_partition.extras[key]

    def tool(self, name, **kwargs):
        '''Resolve ``name`` through the provider and log where it came from.'''
        command, self.tool_provider = find_tool(self, name, **kwargs)
        self.job_sections['setup'].append(
            f'iogap_tool {name} {shlex.quote(command)}')
        self._measured_tool = name
        return command

    def launch_prefix(self):
        '''The main step's launcher, for other steps.'''
        # ReFrame gives the job its geometry only when it runs
        for attr in ('num_tasks', 'num_tasks_per_node', 'num_cpus_per_task'):
            setattr(self.job, attr, getattr(self, attr))
        return ' '.join([*self.job.launcher.command(self.job),
                         *self.job_sections.launcher_options()])

    @property
    def part(self):
        return profile.Part.of(self.current_partition)

    def ranked(self, command, trace_bytes=None):
        '''``command`` timed in each rank, its ``trace_bytes`` traced.'''
        return steps.ranked(command, self.own_tools, trace=(
            JobSteps.trace_quantum(trace_bytes) if trace_bytes else None))

    @property
    def is_local(self):
        return self.current_partition.scheduler.registered_name == 'local'

    @run_after('setup')
    def _set_up(self):
        self._own_tools()
        self._scratch_usable()
        # The components a family's sanity checks its job with
        self.task_placement = Placement(self)
        self.eviction = Eviction(self, self.evict)
        self.darshan_run = Darshan(self)
        self.striping_run = Striping(self)
        # The family's tool is resolved last: the one logged
        self.darshan_run.apply(self.job_sections)
        self.configure()
        # Binding follows the geometry the family set
        self.task_placement.apply(self.job_sections)

    def _own_tools(self):
        # The project's own tools come all from the view or the checkout
        path, provider = find_tool(self, 'job.sh', subdirs=(own.SUBDIR,),
                                   checkout=own.source('job.sh'), runs=False)
        checkout = provider.startswith('checkout:')
        if not checkout and own.stale(os.path.dirname(path)):
            # A view built from other sources runs tools this one lacks
            checkout, provider = True, 'checkout: the view\'s are stale'
        self.own_tools = '.' if checkout else os.path.dirname(path)
        self.note('iogap-tools=' + (f'checkout:{own.ROOT}' if checkout else
                                    provider.rsplit('/', 1)[0]))

    def _scratch_usable(self):
        # Before any family decides on modes: an unusable root fails all
        root = self.extra('scratch_root')
        scratch.check_rules(root)
        if self.is_local:
            runlock.held(root)      # removed under the run: it stops
            if why := scratch.problem(root):
                raise ScratchError(why)

    @run_before('run', always_last=True)
    def _plan(self):
        self.plan_steps()
        if self.time_limit is None:
            self.time_limit = time_limit(self.moved_bytes)
        # The I/O lock's wait, at most as long, is not the measurement's
        self.lock_wait = int(self.time_limit) if self.is_local else None
        self.time_limit += self.lock_wait or 0
        self._scratch_guard()
        self._lay_out_job()

    def _scratch_guard(self):
        root = self.extra('scratch_root')
        if self.is_local and self.scratch_bytes:
            scratch.check_free_space(root, self.scratch_bytes)
        if self.own_tools == '.':
            for name in own.FILES:
                shutil.copy(own.source(name), self.stagedir)

    def _lay_out_job(self):
        '''The one place the job script is assembled.'''
        tag = re.sub(r'[^A-Za-z0-9_-]', '_', self.unique_name)
        root, local = self.extra('scratch_root'), self.is_local
        guard = jobguard.job_guard(
            root, tag, watch_pid=os.getpid() if local else None,
            io_lock=local, lock_id=local and runlock.held(root),
            lock_wait=self.lock_wait)
        launcher = self.job.launcher.command(self.job)[:1]
        if launcher:
            self.job_sections['setup'].append(
                f'iogap_tool launcher {launcher[0]}')
        pre, post = self.job_sections.layout()
        self.prerun_cmds = [steps.source(self.own_tools), *guard,
                            steps.device(), *self.prerun_cmds, *pre]
        self.postrun_cmds = [*post, *self.postrun_cmds]
        self.job.launcher.options = [*self.job.launcher.options,
                                     *self.job_sections.launcher_options()]

    @run_before('sanity')
    def _tools_on_node(self):
        '''Record where every tool resolved on the node.'''
        if self.is_dry_run():
            return
        found = resolved(self.read('stdout'))
        self.tools_resolved = '; '.join(f'{k} {v}' for k, v in
                                        sorted(found.items()))
        self.tool_provider = on_node(self.tool_provider, found.get(
            getattr(self, '_measured_tool', None)))

    @run_after('run')
    def _scratch_cleanup(self):
        '''Remove what a killed job (no trap ran) left behind.'''
        if self.is_dry_run():
            return
        root = os.path.realpath(self.extra('scratch_root'))
        for path in jobguard.scratch_dirs(self.read('stdout')):
            real = os.path.realpath(path)
            if (os.path.dirname(real) == root and os.path.basename(
                    real).startswith(scratch.DIR_PREFIX)):
                shutil.rmtree(real, ignore_errors=True)

    def report(self, figures):
        '''Sanity's last step: ``figures`` (``{name: (value, unit)}``) become
        the performance variables.'''
        self.perf_variables = {
            name: sn.make_performance_function(lambda v=value: v, unit)
            for name, (value, unit) in figures.items()}
        return True

    def measured(self):
        '''``{name: value}`` a passed case reported, for judgements.'''
        return {name: sn.evaluate(fn)
                for name, fn in self.perf_variables.items()}
