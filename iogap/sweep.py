'''The sweep every parallel I/O family shares: node counts x processes per
node, one launcher step per point inside one job sized for the largest.

The sweep depends on the partition (its cores, less core_spec, bounded by
extras['ior_max_ppn'], and extras['ior_nodes']), so it cannot be a class
parameter; each point's figures carry the point in their names
(``write_bw_n1_p32``).
'''

import os

import reframe.utility.typecheck as typ
from reframe.core.builtins import run_after, variable
from reframe.core.exceptions import SanityError

from iogap import iorparse, placement
from iogap.base import IogapTest, require_feature
from iogap.errors import IogapError
from iogap.variants import CoreSpecVariant, CpuBindVariant


def ppn_sweep(cores, limit=None):
    '''Powers of two below ``cores`` (or ``limit``), then that count.'''
    top = min(cores, limit) if limit else cores
    return [2**i for i in range(top.bit_length()) if 2**i < top] + [top]



class ParallelIOTest(IogapTest, CoreSpecVariant, CpuBindVariant):
    '''An MPI I/O tool swept over node counts x processes per node.'''

    #: Processes per node; ``None``: :func:`ppn_sweep` of the partition's
    #: cores (less core_spec), bounded by extras['ior_max_ppn']
    procs_per_node = variable(typ.List[int], type(None), value=None)

    #: Node counts; ``None`` takes extras['ior_nodes'] (default ``[1]``)
    node_counts = variable(typ.List[int], type(None), value=None)

    @run_after('init')
    def _mpi_feature(self):
        require_feature(self, 'mpi')

    def sweep(self):
        '''``(node counts, processes per node)`` on this partition.'''
        cores = self.extra('cores', 1) - self.core_spec
        ppn = (self.procs_per_node or
               ppn_sweep(cores, self.extra('ior_max_ppn')))
        nodes = self.node_counts or self.extra('ior_nodes', [1])
        if min(ppn) < 1 or min(nodes) < 1:
            raise IogapError(f'node counts {nodes} and processes per node '
                             f'{ppn} must be positive')

        return sorted(set(nodes)), sorted(set(ppn))

    def points(self):
        nodes, ppn = self.sweep()
        return [(n, p) for n in nodes for p in ppn]

    @run_after('setup')
    def _size_job(self):
        nodes, ppn = self.sweep()
        self.num_tasks = max(nodes) * max(ppn)
        self.num_tasks_per_node = max(ppn)
        self.time_limit = (self.time_limit or
                           self.extra(f'{self.TOOL}_time_limit'))
        self.note(f'nodes={",".join(map(str, nodes))} '
                  f'ppn={",".join(map(str, ppn))}')

    def launch_step(self, nodes, ppn):
        '''Launcher prefix of one step with ``nodes`` x ``ppn`` tasks.'''
        return self.launch(nodes=nodes, tasks=nodes * ppn)

    def check_run(self):
        '''Sanity core: no integrity problem, exit 0, binding as asked.'''
        with open(os.path.join(self.stagedir, self.job.stdout)) as fp:
            text = fp.read()

        bad = iorparse.problems(text)
        if bad:
            more = f' (and {len(bad) - 1} more)' if len(bad) > 1 else ''
            raise SanityError(f'{self.TOOL} step {bad[0][0]}: '
                              f'{bad[0][1]}{more}')

        self.assert_exit_ok(self.TOOL)
        # The allocation really spans the largest point's nodes
        nodes, _ = self.sweep()
        placement.check(self.task_placement(), self.num_tasks, max(nodes))
        cpus = str(self.check_binding()).split()
        self.note(f'cpus={" ".join(cpus[:4])}{" ..." * (len(cpus) > 4)}')
        return text
