'''The base every iogap test builds on: scratch, provider, launch, sanity.'''

import os
import re

import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.builtins import fixture, run_before, variable
from reframe.core.exceptions import SanityError

from iogap import references
from iogap.provider import find_tool
from iogap.scratch import ScratchMixin
from iogap.toolstack import ToolStack


def require_feature(test, feature):
    '''AND ``+feature`` into every entry of the test's ``valid_systems``.'''
    test.valid_systems = [f'+{feature}' if s == '*' else f'{s} +{feature}'
                          for s in test.valid_systems]


class IogapTest(rfm.RunOnlyRegressionTest, ScratchMixin):
    '''Undecorated base: site data comes from the partition's extras.'''

    valid_systems = ['*']
    valid_prog_environs = ['+tools']

    # I/O figures are meaningless on a node shared with other jobs
    exclusive_access = True

    #: The partition's tools: built with Spack or found, once per partition
    #: and environment
    tools = fixture(ToolStack, scope='environment')

    #: Where the measured tool came from (Spack view or PATH); logged
    tool_provider = variable(str, value='', loggable=True)

    #: How the figures were obtained (cache eviction, binding...); logged
    method = variable(str, value='', loggable=True)

    #: Extra launcher options for every launch (variants add to these)
    launch_options = variable(list, value=[], loggable=False)

    #: Command prefixes after the launcher, e.g. ``numactl -m 1``
    launch_wrappers = variable(list, value=[], loggable=False)

    def note(self, text):
        '''Add to :attr:`method`, which every perflog line carries.'''
        self.method = f'{self.method}; {text}' if self.method else text

    def extra(self, key, default=None):
        return self.current_partition.extras.get(key, default)

    def tool(self, name):
        '''Resolve ``name`` through the provider and log where it came from.'''
        command, self.tool_provider = find_tool(self, name)
        return command

    def launch(self, *extra_opts, nodes=None, tasks=None):
        '''The launcher prefix for one step, with the variants' options.

        A step of its own size (``tasks`` ranks on ``nodes`` nodes) gets the
        launcher's own task counts and the partition's
        extras['step_geometry_options'], for launchers (srun) that do not
        take them from the job.'''
        job, geometry = self.job, []
        if tasks is not None:
            ppn = tasks // nodes
            job = _Step(self.job, tasks, ppn)
            geometry = [o.format(nodes=nodes, tasks=tasks, ppn=ppn)
                        for o in self.extra('step_geometry_options', [])]

        parts = [*self.job.launcher.command(job), *geometry,
                 *self.launch_options, *extra_opts, *self.launch_wrappers]
        return ' '.join(str(p) for p in parts if p)

    @run_before('run')
    def _iogap_launch_options(self):
        self.job.launcher.options += self.launch_options

    def report(self, figures):
        '''Sanity's last step: ``figures`` (``{name: (value, unit)}``) become
        the test's performance variables. A figure the reference file
        expects but the run did not produce fails here, rather than being
        skipped with a warning as a missing performance variable would.'''
        expected = references.absolute_for(self).get(
            self.current_partition.fullname, {})
        missing = sorted(set(expected) - set(figures))
        if missing:
            raise SanityError(f'the reference file expects '
                              f'{", ".join(missing)}, which this run did '
                              f'not measure')

        self.results = figures
        return True

    def figure(self, name):
        return self.results[name][0]

    @run_before('performance')
    def _iogap_performance(self):
        self.reference = references.absolute_for(self)
        if self.is_dry_run():
            return

        self.perf_variables = {
            name: sn.make_performance_function(self.figure, unit, name)
            for name, (_, unit) in self.results.items()
        }

    def assert_exit_ok(self, tool):
        '''Sanity: the job (run under errexit) exited 0; otherwise quote the
        first error line the tool or the scratch guard printed.'''
        code = self.job.exitcode
        if code != 0:
            raise SanityError(f'{tool} failed with exit code {code}: '
                              f'{first_error(self.stderr_path(), tool)}')

    def stderr_path(self):
        return os.path.join(self.stagedir, sn.evaluate(self.stderr))


class _Step:
    '''The job as the launcher sees it for one step of its own size.'''

    def __init__(self, job, num_tasks, num_tasks_per_node):
        self._job = job
        self.num_tasks, self.num_tasks_per_node = num_tasks, num_tasks_per_node

    def __getattr__(self, name):
        return getattr(self._job, name)


def first_error(path, tool):
    '''The first line of ``path`` from ``tool``, iogap or the launcher that
    reads as an error.'''
    error = re.compile(rf'^({re.escape(tool)}|iogap):|'
                       r'\b(error|Error|ERROR|failed|denied)\b')
    try:
        with open(path) as fp:
            for line in fp:
                if error.search(line):
                    return line.strip()
    except OSError:
        pass

    return f'no error message (see {path})'
