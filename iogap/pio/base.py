'''What the parallel I/O families share: MPI tasks placed and checked, and
the sweep over node counts and processes per node.

Each point of the sweep is a case of its own, so every job is sized for
exactly what it measures and its main step is the tool. The points depend
on the partition (its cores less core_spec, bounded by
extras['ior_max_ppn']; extras['ior_nodes'] up to extras['max_nodes']), so
the parameters take their values from the selected system's profile and a
case is generated only on the partitions whose sweep holds its point.
'''

import reframe as rfm
from reframe.core.builtins import parameter, run_after, run_before
from reframe.core.exceptions import SanityError

from iogap import profile
from iogap.core import placement
from iogap.core.base import IogapTest
from iogap.core.cases import feature
from iogap.core.variants import CoreSpec, CpuBind, core_specs
from iogap.pio import parse


def ppn_sweep(part, core_spec=0):
    '''Processes per node on ``part``: powers of two below its usable cores
    (bounded by extras['ior_max_ppn']), then that count.'''
    cores = part.num_cores - core_spec
    return placement.per_node_counts(min(cores,
                                         part.extras['ior_max_ppn'] or cores))


def node_sweep(part):
    '''Node counts on ``part``: extras['ior_nodes'] the partition allows.'''
    most = part.extras['max_nodes'] if 'multinode' in part.features else 1
    return [n for n in part.extras['ior_nodes'] if n <= most]


class ParallelIOTest(IogapTest, CoreSpec, CpuBind):
    '''An MPI I/O tool: tasks placed as the variants ask, and verified.'''

    CONSTRAINTS = (feature('mpi'),)

    #: The tool's name, for messages and the partition's time limit key
    TOOL = ''


    @run_after('setup')
    def set_time_limit(self):
        self.time_limit = self.time_limit or \
            self.extra(f'{self.TOOL}_time_limit')

    @run_before('run')
    def probe_placement(self):
        # Launched exactly like the tool: where every task runs
        self.job_sections['probe'].extend([
            placement.JOB_CPUS,
            placement.probe_step(self.launch_prefix(), self.own_tools)])

    def check_run(self):
        '''Sanity core: no integrity problem, exit 0, placement as asked.'''
        text = self.read('stdout')
        bad = parse.problems(text)
        if bad:
            more = f' (and {len(bad) - 1} more)' if len(bad) > 1 else ''
            raise SanityError(f'{self.TOOL} step {bad[0][0]}: '
                              f'{bad[0][1]}{more}')

        self.assert_exit_ok(self.TOOL)
        ranks = placement.parse(text)
        placement.check(ranks, self.num_tasks, self.num_tasks //
                        self.num_tasks_per_node)
        cpus = self.check_binding([r['cpus'] for r in ranks]).split()
        self.check_core_spec(placement.job_cpus(text))
        self.note(f'cpus={" ".join(cpus[:4])}{" ..." * (len(cpus) > 4)}')
        return text


class Sweep(rfm.RegressionTestPlugin):
    '''The node x processes-per-node sweep as two parameters.'''

    #: Nodes of the case (the selected system's extras['ior_nodes'])
    num_nodes = parameter(profile.values(node_sweep))

    #: Processes per node of the case (see :func:`ppn_sweep`)
    procs_per_node = parameter(profile.values(
        lambda part: [n for cs in core_specs(part)
                      for n in ppn_sweep(part, cs)]))

    CONSTRAINTS = (
        lambda p, part: p['num_nodes'] in node_sweep(part),
        lambda p, part: p['procs_per_node'] in ppn_sweep(part,
                                                         p['core_spec']),
    )

    @run_after('init')
    def size_point(self):
        self.num_tasks = self.num_nodes * self.procs_per_node
        self.num_tasks_per_node = self.procs_per_node
