'''OSU point-to-point: latency and bandwidth of two ranks on one socket,
on two sockets of a node (EPCC's NUMA effect) or on two nodes (the study's
inter-node figure), placed by extras['osu_placement'] and checked.'''

from reframe.core.builtins import parameter
from reframe.core.exceptions import SanityError

from iogap.core import Figures, family, variant
from iogap.osu import control
from iogap.osu.base import OSUBase
from iogap.osu.figures import (
    BW_PEAK,
    BW_PEAK_SIZE,
    LATENCY_AT,
    LATENCY_GROWTH,
    LATENCY_PAIRED,
    LATENCY_SMALLEST,
    SMALLEST_SIZE,
)

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
        variant.feature('multisocket', when=lambda p: p['placement'] ==
                'cross_socket'),
        variant.feature('multinode',
                        when=lambda p: p['placement'] == 'inter_node'),
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


@family
class OSULatency(OSUPointToPoint):
    '''osu_latency: ping-pong latency, half the round trip (us). Across
    two nodes or two sockets, each repetition runs it first between two
    ranks on one node or socket of the job, then as placed
    (:mod:`iogap.osu.control`): the figures are the repetitions' medians,
    and ``latency_smallest_paired`` the geometric mean of their ratios.'''

    benchmark = 'osu_latency'
    figures = Figures(LATENCY_SMALLEST, SMALLEST_SIZE, LATENCY_AT,
                      LATENCY_GROWTH, LATENCY_PAIRED)
    PAIRED = (LATENCY_PAIRED,)

    #: Message sizes (bytes) whose latency is reported, if <= max_size
    report_sizes = [8, 1024, 65536, 1048576]

    def control_launch(self):
        '''Two ranks on one node, or one socket, placed and pinned as
        the same-socket case is.'''
        where = self.extra('osu_placement')
        options = where.get('same_socket', [])
        if self.placement == 'inter_node':
            options = where['intra_node'] + options
        if self.cpu_bind == 'default':
            options = options + self.extra('osu_socket_bind_options')
        return self.launcher_with(placement=options)

    def control_ranks(self):
        return 2, 1, 'same'

    def combine(self, measured, control_runs):
        return control.figures(measured, control_runs, self.pairing)

    def figures_of(self, table):
        latency = table.values('Latency')
        smallest = min((s for s in latency if s <= SMALL),
                       key=lambda s: (latency[s], s))
        figures = {LATENCY_SMALLEST.name(): latency[smallest],
                   SMALLEST_SIZE.name(): smallest}
        for s in self.report_sizes:
            if s <= self.max_size:
                figures[LATENCY_AT.name(size=s)] = at(latency, s)
                if s > SMALL:
                    figures[LATENCY_GROWTH.name(size=s)] = \
                        at(latency, s) / latency[smallest]
        return figures


@family
class OSUBandwidth(OSUPointToPoint):
    '''osu_bw: streaming bandwidth (MB/s) and the size where it peaks.'''

    benchmark = 'osu_bw'
    figures = Figures(BW_PEAK, BW_PEAK_SIZE)

    def figures_of(self, table):
        bw = table.values('Bandwidth')
        peak = max(bw, key=bw.get)
        return {BW_PEAK.name(): bw[peak], BW_PEAK_SIZE.name(): peak}


@family
class OSUBiBandwidth(OSUBandwidth):
    '''osu_bibw: both ranks send at once; the sum of both directions.'''

    benchmark = 'osu_bibw'
