'''OSU collectives (EPCC's all-to-all): latency per message size at each
count of ranks per node (see :func:`rank_sweep`) on 1, 2 or 4 nodes.'''

from reframe.core.builtins import parameter

from iogap.core import Figures, family, variant
from iogap.osu import control
from iogap.osu.base import OSUBase
from iogap.osu.figures import LATENCY_AT, PER_PEER
from iogap.osu.pt2pt import at


def rank_sweep(part, core_spec, nodes):
    '''Ranks per node on ``part``: powers of two below its usable cores,
    then that count; one rank per node only across nodes.'''
    return [n for n in variant.per_node_counts(part.num_cores - core_spec)
            if n > 1 or nodes > 1]


def _all_ranks(part):
    return [n for nodes in (1, 2) for n in rank_sweep(part, 0, nodes)]


class OSUCollective(OSUBase):
    '''A collective at ``ranks_per_node`` ranks on ``num_nodes`` nodes.'''

    #: Nodes the collective spans (several need +multinode, max_nodes)
    num_nodes = parameter([1, 2, 4])
    #: Ranks per node (see :func:`rank_sweep`)
    ranks_per_node = parameter(variant.values(_all_ranks))
    # EPCC's sweep ran on whole nodes: no core specialization
    core_spec = parameter(inherit_params=True, filter_params=lambda p: p[:1])

    CONSTRAINTS = (
        lambda p, part: p['num_nodes'] == 1 or (
            'multinode' in part.features and
            p['num_nodes'] <= part.extras['max_nodes']),
        lambda p, part: p['ranks_per_node'] in rank_sweep(
            part, p['core_spec'], p['num_nodes']),
    )

    category = 'collective'
    MAX_SIZE_KEY = 'osu_collective_max_size'
    #: Message sizes (bytes) whose latency is reported, if <= max_size
    report_sizes = [8, 65536, 1048576]
    figures = Figures(LATENCY_AT)

    def size_tasks(self):
        self.num_tasks_per_node = self.ranks_per_node
        self.num_tasks = self.num_nodes * self.ranks_per_node

    def figures_of(self, table):
        latency = table.values('Latency')
        return {LATENCY_AT.name(size=s): at(latency, s)
                for s in self.report_sizes if s <= self.max_size}


@family
class OSUAlltoall(OSUCollective):
    '''osu_alltoall: average all-to-all latency (us). At the most ranks a
    node holds (a power of two), each repetition runs it first at half
    the ranks a node: ``latency_{size}B_per_peer_paired``.'''

    benchmark = 'osu_alltoall'
    figures = Figures(LATENCY_AT, PER_PEER)
    PAIRED = (PER_PEER,)

    def paired_names(self):
        return [PER_PEER.name(size=s) for s in self.report_sizes
                if s <= self.max_size]

    def control_launch(self):
        tasks, _, _ = self.control_ranks()
        return self.launcher_with(placement=[
            f'--ntasks={tasks}',
            f'--ntasks-per-node={self.ranks_per_node // 2}'])

    def control_ranks(self):
        return self.num_tasks // 2, self.num_nodes, None

    def combine(self, measured, control_runs):
        return control.per_peer(measured, control_runs, self.num_tasks)


@family
class OSUAllreduce(OSUCollective):
    '''osu_allreduce: average allreduce latency (us), in MPI_FLOAT.'''

    benchmark = 'osu_allreduce'
    # OSU 5.x's only type; 7.x's default MPI_CHAR sums overflow and fail -c
    datatype = 'mpi_float'
