'''OSU families: point-to-point latency and bandwidth, collective latency.

Point-to-point runs two ranks on one socket, on two sockets of one node
(EPCC's NUMA effect) or on two nodes (the study's inter-node figure).
Collectives (EPCC's all-to-all) sweep ranks per node up to the node's usable
cores on 1, 2 or 4 nodes. Placements come from the partition's
extras['osu_placement'] and are checked against where the ranks ran.
'''

import reframe.utility.typecheck as typ
from reframe.core.builtins import parameter, run_after, variable
from reframe.core.exceptions import SanityError, SkipTestError

from iogap import placement
from iogap.base import require_feature
from iogap.osubase import OSUBase

#: Placement -> partition feature it needs
_PLACEMENT_FEATURE = {'cross_socket': 'multisocket',
                      'inter_node': 'multinode'}


def at(values, size):
    '''The figure at ``size``; a size the table starts above is an error.'''
    if size not in values:
        raise SanityError(f'no figure at {size} B: the table has sizes '
                          f'{min(values)}-{max(values)} B')

    return values[size]


class OSUPointToPoint(OSUBase):
    '''Two ranks, placed as asked and verified.'''

    #: Where the two ranks run: one socket of a node, one rank on each of two
    #: sockets of a node, or one rank on each of two nodes
    placement = parameter(['same_socket', 'cross_socket', 'inter_node'])

    category = 'pt2pt'
    num_tasks = 2

    @run_after('init')
    def _placement_feature(self):
        if self.placement in _PLACEMENT_FEATURE:
            require_feature(self, _PLACEMENT_FEATURE[self.placement])

        self.num_nodes = 2 if self.placement == 'inter_node' else 1
        self.num_tasks_per_node = 2 // self.num_nodes

    @run_after('setup')
    def _placement_options(self):
        if self.num_nodes == 1 and self.usable_cores() < 2:
            raise SkipTestError(f'{self.current_partition.fullname} has '
                                f'{self.usable_cores()} usable core(s): two '
                                f'ranks on one node would share it')

        options = self.extra('osu_placement', {}).get(self.placement, [])
        if self.num_nodes == 1 and self.cpu_bind == 'default':
            # A socket placement only holds if the ranks are pinned to it
            options = options + self.extra('osu_socket_bind_options', [])

        # Mapping first, then the binding variant's options
        self.launch_options = options + self.launch_options
        self.note(f'placement={self.placement}')

    def osu_steps(self):
        return [(2, self.num_nodes)]

    def check_placement(self, ranks):
        sockets = {'same_socket': 'same',
                   'cross_socket': 'cross'}.get(self.placement)
        single = (self.current_partition.processor.num_sockets or 1) == 1
        return placement.check(ranks, 2, self.num_nodes, sockets, single)


class OSULatency(OSUPointToPoint):
    '''osu_latency: ping-pong latency, half the round trip (us).'''

    PERF_VARS = ('latency_smallest', 'smallest_size', r'latency_\d+B')
    benchmark = 'osu_latency'

    def figures(self, tables):
        [table] = tables.values()
        latency = table.values('Latency')
        smallest = table.sizes()[0]     # 0 B on OSU 5.x, 1 B on 7.x
        figures = {'latency_smallest': latency[smallest],
                   'smallest_size': smallest}
        figures.update({f'latency_{s}B': at(latency, s)
                        for s in self.report_sizes})
        return figures


class OSUBandwidth(OSUPointToPoint):
    '''osu_bw: streaming bandwidth (MB/s) and the size where it peaks.'''

    PERF_VARS = ('bw_peak', 'bw_peak_size')
    benchmark = 'osu_bw'

    def figures(self, tables):
        [table] = tables.values()
        bw = table.values('Bandwidth')
        peak = max(bw, key=bw.get)
        return {'bw_peak': bw[peak], 'bw_peak_size': peak}


class OSUBiBandwidth(OSUBandwidth):
    '''osu_bibw: both ranks send at once; the sum of both directions.'''

    benchmark = 'osu_bibw'


class OSUCollective(OSUBase):
    '''A collective swept over ranks per node on ``num_nodes`` nodes.'''

    #: Nodes the collective spans (more than one needs +multinode and
    #: extras['max_nodes'] at least as large)
    num_nodes = parameter([1, 2, 4])

    #: Ranks per node to sweep; ``None``: powers of two below the node's
    #: usable cores (cores less core_spec), then those cores
    ranks_per_node = variable(typ.List[int], type(None), value=None)

    category = 'collective'
    report_sizes = [8, 65536, 1048576]
    MAX_SIZE_KEY, DEFAULT_MAX_SIZE = 'osu_collective_max_size', 2**20

    @run_after('init')
    def _nodes_feature(self):
        if self.num_nodes > 1:
            require_feature(self, 'multinode')

    @run_after('setup')
    def _rank_sweep(self):
        if self.num_nodes > self.extra('max_nodes', 1):
            raise SkipTestError(f'{self.num_nodes} nodes asked, the partition '
                                f'allows {self.extra("max_nodes", 1)} '
                                f'(extras["max_nodes"])')

        cores = self.usable_cores()
        sweep = self.ranks_per_node or (
            [2**i for i in range(cores.bit_length()) if 2**i < cores] +
            [cores])
        # One rank per node exercises only the network: keep it off one node
        self.sweep = sorted({n for n in sweep if n > 1 or self.num_nodes > 1})
        if not self.sweep:
            raise SkipTestError(f'{self.current_partition.fullname} has '
                                f'{cores} usable core(s): no collective to '
                                f'run')

        self.num_tasks_per_node = max(self.sweep)
        self.num_tasks = self.num_nodes * self.num_tasks_per_node
        self.note(f'ranks_per_node={",".join(map(str, self.sweep))}')

    def osu_steps(self):
        return [(n * self.num_nodes, self.num_nodes) for n in self.sweep]

    def check_placement(self, ranks):
        return placement.check(ranks, self.num_tasks, self.num_nodes)

    def figures(self, tables):
        figures = {}
        for ranks, table in sorted(tables.items()):
            latency = table.values('Latency')
            figures.update({f'latency_{s}B_{ranks}ranks': at(latency, s)
                            for s in self.report_sizes})

        return figures


class OSUAlltoall(OSUCollective):
    '''osu_alltoall: average all-to-all latency (us) per size and ranks.'''

    PERF_VARS = (r'latency_\d+B_\d+ranks',)
    benchmark = 'osu_alltoall'


class OSUAllreduce(OSUCollective):
    '''osu_allreduce: average allreduce latency (us) per size and ranks.'''

    PERF_VARS = (r'latency_\d+B_\d+ranks',)
    benchmark = 'osu_allreduce'

    def validation_note(self, version):
        note = super().validation_note(version)
        if self.validation and version.startswith('7.'):
            # 7.2's source builds the expected buffer but never compares it
            note += ' (OSU 7.x osu_allreduce -c does not compare results)'

        return note
