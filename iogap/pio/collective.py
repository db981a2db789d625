'''IORCollective: one shared file through MPI-IO or HDF5, independent
against collective I/O, and collective with each ROMIO cb_buffer_size of
the partition. The study's 32-node HDF5 writes, 6.3 GB/s without and 7.6
GB/s with core specialization (``#SBATCH -S 4``), are a case of it; core
specialization is the allocation's, so a core-spec case runs right after
its twin without, on the twin's nodes.'''

import reframe.utility.udeps as udeps
from reframe.core.builtins import parameter, variable

from iogap.core import family, size_bytes, size_text, variant
from iogap.errors import IogapError
from iogap.pio import hints
from iogap.pio.base import node_sweep, ppn_sweep
from iogap.pio.ior import IORBase

#: Rounds the largest swept buffer takes per collective call in a cb case
CB_ROUNDS = 2


def cb_transfer(transfer, tasks, aggregators, largest):
    '''A cb case's bytes per task and call: ``transfer`` doubled until an
    aggregator's share of a call is CB_ROUNDS x the ``largest`` buffer.'''
    while tasks * transfer < CB_ROUNDS * largest * aggregators:
        transfer *= 2
    return transfer


def segment_count(total, transfer, what='IORCollective'):
    '''Segments of one ``transfer`` that hold a task's ``total`` bytes, or
    a one-line :class:`IogapError` unless they are a whole number.'''
    if total % transfer:
        raise IogapError(f'{what}: {total} bytes per task are not a whole '
                         f'number of {transfer}-byte segments; make '
                         f'ior_block_size a multiple of {transfer}')
    return total // transfer


def collective_point(part, core_spec):
    '''``(nodes, processes per node)`` of the collective cases.'''
    return (part.extras['ior_collective_nodes'] or max(node_sweep(part)),
            part.extras['ior_collective_ppn'] or
            max(ppn_sweep(part, core_spec)))


def cb_sizes(part):
    '''The collective-buffer variants a partition sweeps.'''
    return [f'cb{s.lower()}' for s in part.extras['ior_cb_buffer_sizes']]


@family
class IORCollective(IORBase):
    '''Shared-file I/O at the partition's collective point (extras
    ['ior_collective_nodes'] x ['ior_collective_ppn'], else the largest
    point of its sweep).'''

    #: Lustre striping of the case's directory (:mod:`iogap.core.striping`)
    striping = variant.striping()
    #: MPI-IO directly, or HDF5 over MPI-IO
    api = parameter(['MPIIO', 'HDF5'])
    #: Independent, collective (``-c``), or with a cb_buffer_size (``cb4m``)
    io = parameter(['independent', 'collective'] + variant.values(cb_sizes))
    # Darshan's view of I/O is studied with IORBench
    darshan = parameter(inherit_params=True, filter_params=lambda p: p[:1])
    #: Collective buffering aggregates one shared file
    layout = variable(str, value='ssf')
    #: Buffered I/O: what collective buffering is tuned for
    mode = variable(str, value='buffered')

    CONSTRAINTS = (
        variant.feature('hdf5', when=lambda p: p['api'] == 'HDF5'),
        lambda p, part: not p['io'].startswith('cb') or
        p['io'] in cb_sizes(part),
    )

    def size_tasks(self):
        if self.core_spec:
            self.depends_on(self.twin(), udeps.by_case)

    def twin(self):
        '''The case without core specialization, its other parameters
        (and ``--repeat``'s number) this one's.'''
        cls = type(self)
        nums = cls.get_variant_nums(**{
            k: (lambda x, v=(0 if k == 'core_spec' else getattr(self, k)):
                x == v) for k in cls.param_space.params})
        return cls.variant_name(nums[0])

    def size_job(self):
        nodes, ppn = collective_point(self.part, self.core_spec)
        self.num_tasks, self.num_tasks_per_node = nodes * ppn, ppn
        self.interleave()
        twin = self.getdep(self.twin()) if self.core_spec else None
        if twin is not None and twin.job.nodelist:
            # back to back on the same nodes: the allocation's variant
            self.job.pin_nodes = list(twin.job.nodelist)
            self.note(f'after {twin.job.jobid} on its nodes')

    def interleave(self):
        '''Each task's bytes as segments of one small transfer T (``-s N
        -b T -t T``), interleaved: a collective call covers ``tasks x T``
        bytes the aggregators merge. A buffer limits only below an
        aggregator's share of a call, so a cb case doubles T until that
        share is CB_ROUNDS times the largest buffer swept.'''
        total = size_bytes(self.block_size or self.extra('ior_block_size'),
                           'IOR block size')
        xfer = size_bytes(self.transfer_size or
                          self.extra('ior_collective_transfer_size'),
                          'IOR transfer size')
        if self.io.startswith('cb'):
            largest = max(size_bytes(s, 'cb_buffer_size') for s in
                          self.extra('ior_cb_buffer_sizes'))
            xfer = cb_transfer(xfer, self.num_tasks, self.cb_nodes() or
                               self.num_tasks // self.num_tasks_per_node,
                               largest)
        self.segments = segment_count(total, xfer)
        self.block_size = self.transfer_size = size_text(xfer)
        self.note(f'segments={self.segments} of {self.block_size} per task')

    def check_run(self):
        text = super().check_run()
        self.striping_run.check(text)
        if self.cb_nodes():
            where = hints.check_aggregators(
                text, self.task_placement.ranks(text), self.cb_nodes())
            self.note(f'aggregators={where}')
        return text

    def shares_equally(self):
        '''Collective buffering moves the data through aggregators.'''
        return self.io == 'independent'

    def cb_nodes(self):
        '''Aggregators asked for, then checked: one per node on a
        collective case over several nodes whose MPI-IO layer prints its
        hints (extras['mpiio_hints_display']); else 0.'''
        nodes = self.num_tasks // self.num_tasks_per_node
        shown = self.extra('mpiio_hints_display')
        return nodes if (shown and nodes > 1 and
                         self.io != 'independent') else 0

    def hints(self):
        found = []
        if self.io.startswith('cb'):
            nbytes = size_bytes(self.io[2:], 'cb_buffer_size')
            found += [f'cb_buffer_size={nbytes}', 'romio_cb_write=enable',
                      'romio_cb_read=enable']
        if self.cb_nodes():
            found += [f'cb_nodes={self.cb_nodes()}', 'romio_cb_write=enable',
                      'romio_cb_read=enable']
        return list(dict.fromkeys(found))

    def api_options(self):
        options = super().api_options()
        if self.io != 'independent':
            options.append('-c')
        if self.hints():
            options.append(f'--{self.api.lower()}.hintsFileName=hints.txt')
        return options

    def plan_steps(self):
        super().plan_steps()
        setup = list(self.striping_run.commands(self.layout))
        if self.hints():
            setup += [
                "printf '%s\\n' " + ' '.join(f'IOR_HINT__MPI__{h}'
                                               for h in self.hints()) +
                ' > hints.txt'
            ]
            self.note('hints are ROMIO\'s; other MPI-IO layers may ignore '
                      'them')
        if self.cb_nodes():
            self.env_vars = {**self.env_vars,
                             **self.extra('mpiio_hints_display')}
        # Set up before every step, the calibration launches included
        self.job_sections['setup'].extend(setup)
