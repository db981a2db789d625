'''What the parallel I/O families share: MPI tasks placed and checked, and
the sweep over nodes x processes per node, a case per point of a
partition's sweep.'''

from reframe.core.builtins import parameter
from reframe.core.exceptions import SanityError, SkipTestError

from iogap.core import IogapTest, JobSteps, variant
from iogap.pio import parse


def ppn_sweep(part, core_spec=0, study_points=True):
    '''Processes per node on ``part``: powers of two below its usable
    cores (capped by extras['ior_max_ppn']) and that count, and with
    ``study_points`` the study's points that fit (KNL's 48).'''
    cores = part.num_cores - core_spec
    top = min(cores, part.extras['ior_max_ppn'] or cores)
    points = part.extras['ior_ppn_points'] if study_points else []
    return sorted(set(variant.per_node_counts(top)) |
                  {n for n in points if n <= top})


def node_sweep(part):
    '''Node counts on ``part``: extras['ior_nodes'] the partition allows.'''
    most = part.extras['max_nodes'] if 'multinode' in part.features else 1
    return [n for n in part.extras['ior_nodes'] if n <= most]


class ParallelIOTest(IogapTest):
    '''An MPI I/O tool: tasks placed as the variants ask, and verified.'''

    CONSTRAINTS = (variant.feature('mpi'),)
    #: Cores per node reserved for system daemons (:data:`iogap.core.variant`)
    core_spec = variant.core_spec()
    #: The launcher's default placement, or each task bound to cores
    cpu_bind = variant.cpu_bind()
    #: The tool's name, for messages and the partition's time limit key
    TOOL = ''

    def configure(self):
        self.time_limit = self.time_limit or \
            self.extra(f'{self.TOOL}_time_limit')

    def plan_steps(self):
        # Launched exactly like the tool: where every task runs
        self.job_sections['probe'].extend(self.task_placement.probe())

    def ran(self):
        '''Sanity: the job's stdout, checked by :meth:`check_run`; a job
        that said why it could not measure is skipped with that reason.'''
        reason = JobSteps.skip_reason(self.read('stdout'))
        if reason:
            raise SkipTestError(reason)
        return self.check_run()

    def check_run(self):
        '''Sanity core: no integrity problem, exit 0, placement as asked.'''
        text = self.read('stdout')
        if bad := parse.problems(text):
            more = f' (and {len(bad) - 1} more)' if len(bad) > 1 else ''
            raise SanityError(f'{self.TOOL} step {bad[0][0]}: '
                              f'{bad[0][1]}{more}')
        self.assert_exit_ok(self.TOOL)
        _, cpus = self.task_placement.check(
            text, self.num_tasks, self.num_tasks // self.num_tasks_per_node)
        cpus = cpus.split()
        self.note(f'cpus={" ".join(cpus[:4])}{" ..." * (len(cpus) > 4)}')
        return text


# A family whose cases are the sweep's points declares the two parameters
# below, adds SWEEP_CONSTRAINTS and sizes its tasks with size_point

def num_nodes():
    '''Nodes of a sweep's case (extras['ior_nodes']).'''
    return parameter(variant.values(node_sweep))


def procs_per_node():
    '''Processes per node of a sweep's case (see :func:`ppn_sweep`).'''
    return parameter(variant.values(
        lambda part: [n for cs in variant.core_specs(part)
                      for n in ppn_sweep(part, cs)]))


def on_nodes(p, part):
    '''Constraint: the case's node count is in the partition's sweep.'''
    return p['num_nodes'] in node_sweep(part)


#: A sweep's case is generated where the partition's sweep holds its point
#: (a family running the study's own points gives its own)
SWEEP_CONSTRAINTS = (
    on_nodes,
    lambda p, part: p['procs_per_node'] in ppn_sweep(part, p['core_spec'],
                                                     study_points=False),
)


def size_point(test):
    '''The tasks of a sweep's case, from its two parameters.'''
    test.num_tasks = test.num_nodes * test.procs_per_node
    test.num_tasks_per_node = test.procs_per_node
