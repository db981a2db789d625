'''OSU point-to-point: latency and bandwidth of two ranks on one socket,
on two sockets of a node (EPCC's NUMA effect) or on two nodes (the study's
inter-node figure), placed by extras['osu_placement'] and checked.'''

from reframe.core.builtins import parameter, variable
from reframe.core.exceptions import SanityError

from iogap.core import Figures, JobSteps, family, variant
from iogap.osu import control
from iogap.osu.base import OSUBase
from iogap.osu.figures import (
    BW_PEAK,
    BW_PEAK_SIZE,
    LATENCY_AT,
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
    two nodes, each repetition runs it first between two ranks on one node
    of the job, then across the nodes (:mod:`iogap.osu.control`): the
    figures are the repetitions' medians, and ``latency_smallest_paired``
    the geometric mean of their inter-node over intra-node ratios.'''

    benchmark = 'osu_latency'
    figures = Figures(LATENCY_SMALLEST, SMALLEST_SIZE, LATENCY_AT,
                      LATENCY_PAIRED)

    #: Message sizes (bytes) whose latency is reported, if <= max_size
    report_sizes = [8, 1024, 65536, 1048576]
    #: Repetitions of a paired case; ``None`` takes extras['repetitions']
    repetitions = variable(int, type(None), value=None)

    def configure(self):
        super().configure()
        self.repetitions = self.repetitions or self.extra('repetitions')
        part = self.part
        params = {'placement': self.placement, 'core_spec': self.core_spec}
        why = control.unavailable(params, part)
        if why:
            self.inapplicable = {LATENCY_PAIRED.name(): why}
        #: ``[(run, rep)]``: the measured runs, controls among them
        self.paired_runs = control.runs(params, part, self.repetitions)

    @property
    def paired(self):
        return LATENCY_PAIRED.name() not in self.inapplicable

    def runs(self):
        if not self.paired:
            return super().runs()
        return ['probe'] + (['validate'] if self.validation else []) + [
            run for run, _ in self.paired_runs]

    def intra_node_launch(self):
        '''The launcher with two ranks on one node of the job, placed
        and pinned as the same-socket case is.'''
        where = self.extra('osu_placement')
        options = where['intra_node'] + where.get('same_socket', [])
        if self.cpu_bind == 'default':
            options = options + self.extra('osu_socket_bind_options')
        parts = {**self.job_sections.launcher, 'placement': options}
        return ' '.join([*self.job.launcher.command(self.job),
                         *[o for name in parts for o in parts[name]]])

    def measure_steps(self, launch):
        if not self.paired:
            return super().measure_steps(launch)
        intra = self.intra_node_launch()
        # Where the control's ranks run: after the job's own probe, apart
        self.job_sections['probe'].extend([
            JobSteps.label(run='probe'),
            self.task_placement.probe_command(intra)])
        command = ' '.join([self.executable, *self.executable_opts])
        for run, rep in self.paired_runs[:-1]:
            self.job_sections.step(
                f'{intra if run == "control" else launch} {command}',
                run=run, rep=rep)
        run, rep = self.paired_runs[-1]
        self.job_sections.step(run=run, rep=rep)

    def what(self, step):
        if step['run'] in ('control', 'probe'):
            return f'{self.benchmark} ({step["run"]} run, 2 ranks on 1 node)'
        return super().what(step)

    def check_placement(self, text, found):
        # The job's probe, before any step; the control's, a step of its own
        head = text.split('\niogap-step:', 1)[0]
        summary = super().check_placement(head, found)
        for step in found:
            if step['run'] == 'probe':
                summary += '; control ' + self.task_placement.check_ranks(
                    self.task_placement.ranks(step.text), 2, 1, 'same')
        return summary

    def figures_of(self, table):
        latency = table.values('Latency')
        smallest = min((s for s in latency if s <= SMALL),
                       key=lambda s: (latency[s], s))
        figures = {LATENCY_SMALLEST.name(): latency[smallest],
                   SMALLEST_SIZE.name(): smallest}
        figures.update({LATENCY_AT.name(size=s): at(latency, s)
                        for s in self.report_sizes if s <= self.max_size})
        return figures

    def measured_figures(self, found, tables):
        if not self.paired:
            return super().measured_figures(found, tables)
        runs = {}
        for step, table in zip(found, tables):
            if step['run'] != 'validate':
                runs.setdefault(step['run'], {})[step['rep']] = \
                    self.figures_of(table)
        return control.figures(runs['measure'], runs['control'])


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
