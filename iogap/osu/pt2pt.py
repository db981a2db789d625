'''OSU point-to-point: latency and bandwidth of two ranks placed on one
socket, on two sockets of a node (EPCC's NUMA effect) or on two nodes (the
study's inter-node figure). Placements come from the partition's
extras['osu_placement'] and are checked against where the ranks ran.
'''

from reframe.core.builtins import parameter
from reframe.core.exceptions import SanityError

from iogap.core import registry
from iogap.core.variants import feature
from iogap.core.figures import Figures
from iogap.osu.base import OSUBase
from iogap.osu.figures import (BW_PEAK, BW_PEAK_SIZE, LATENCY_AT,
                               LATENCY_SMALLEST, SMALLEST_SIZE)

#: The study's "0-byte latency": the least latency of the sizes up to 8 B
#: (OSU 7.x starts at 1 B, and its first size carries the warm-up)
SMALL = 8


def at(values, size):
    '''The figure at ``size``; a size the table lacks is an error.'''
    if size not in values:
        raise SanityError(f'no figure at {size} B: the table has sizes '
                          f'{min(values)}-{max(values)} B')

    return values[size]


class OSUPointToPoint(OSUBase):
    '''Two ranks, placed as asked and verified.'''

    #: Where the two ranks run: one socket of a node, one rank on each of two
    #: sockets of a node, or one rank on each of two nodes
    placement = parameter(['same_socket', 'cross_socket', 'inter_node'])

    CONSTRAINTS = (
        feature('multisocket', when=lambda p: p['placement'] ==
                'cross_socket'),
        feature('multinode', when=lambda p: p['placement'] == 'inter_node'),
        # Two ranks on one node need two cores
        lambda p, part: p['placement'] == 'inter_node' or
        part.num_cores - p['core_spec'] >= 2,
    )

    category = 'pt2pt'
    num_tasks = 2

    def size_tasks(self):
        self.num_tasks_per_node = 1 if self.placement == 'inter_node' else 2

    def configure(self):
        super().configure()
        options = self.extra('osu_placement').get(self.placement, [])
        if self.placement != 'inter_node' and self.cpu_bind == 'default':
            # A socket placement only holds if the ranks are pinned to it
            options = options + self.extra('osu_socket_bind_options')

        self.job_sections.launcher['placement'] += options
        self.note(f'placement={self.placement}')

    def sockets(self):
        return {'same_socket': 'same',
                'cross_socket': 'cross'}.get(self.placement)


@registry.family
class OSULatency(OSUPointToPoint):
    '''osu_latency: ping-pong latency, half the round trip (us).'''

    benchmark = 'osu_latency'
    figures = Figures(LATENCY_SMALLEST, SMALLEST_SIZE, LATENCY_AT)

    #: Message sizes (bytes) whose latency is reported, if <= max_size
    report_sizes = [8, 1024, 65536, 1048576]

    def figures_of(self, table):
        latency = table.values('Latency')
        smallest = min((s for s in latency if s <= SMALL),
                       key=lambda s: (latency[s], s))
        figures = {LATENCY_SMALLEST.name(): latency[smallest],
                   SMALLEST_SIZE.name(): smallest}
        figures.update({LATENCY_AT.name(size=s): at(latency, s)
                        for s in self.report_sizes if s <= self.max_size})
        return figures


@registry.family
class OSUBandwidth(OSUPointToPoint):
    '''osu_bw: streaming bandwidth (MB/s) and the size where it peaks.'''

    benchmark = 'osu_bw'
    figures = Figures(BW_PEAK, BW_PEAK_SIZE)

    def figures_of(self, table):
        bw = table.values('Bandwidth')
        peak = max(bw, key=bw.get)
        return {BW_PEAK.name(): bw[peak], BW_PEAK_SIZE.name(): peak}


@registry.family
class OSUBiBandwidth(OSUBandwidth):
    '''osu_bibw: both ranks send at once; the sum of both directions.'''

    benchmark = 'osu_bibw'
