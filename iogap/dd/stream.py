'''DDSingleStream: the study's ``dd bs=1M count=10000`` in three I/O modes.
Per repetition dd-stream.sh writes a fresh file, evicts it, and reads it
three times unflushed (read-once: the first; read-3x: the mean). MB/s
(10^6) from dd's bytes and seconds, not its rounded rate, like the study.'''

import statistics

from reframe.core.builtins import parameter, sanity_function, variable
from reframe.core.exceptions import SkipTestError

from iogap.core import Figures, IogapTest, JobSteps, family, variant
from iogap.dd import mechanism
from iogap.dd.control import control_count, paired
from iogap.dd.figures import BW, BW_SPREAD, MEMORY_BW, PAIRED, PASS_BW
from iogap.dd.parse import block_bytes, check_steps, dd_record
from iogap.errors import IogapError

#: (write flags, read flags) per mode: dsync's reads are plain reads
MODE_FLAGS = {
    'buffered': ('', ''),
    'dsync': ('oflag=dsync', ''),
    'direct': ('oflag=direct', 'iflag=direct'),
}


@family
class DDSingleStream(IogapTest):
    '''Single-stream bandwidth in buffered, dsync or direct mode; medians
    over repetitions with min, max and CV (%).'''

    figures = Figures(BW, *BW_SPREAD, PAIRED, PASS_BW, MEMORY_BW,
                      *mechanism.FIGURES, *variant.darshan_figures)

    #: Cores per node reserved for system daemons (:data:`iogap.core.variant`)
    core_spec = variant.core_spec()
    #: The launcher's default placement, or the task bound to cores
    cpu_bind = variant.cpu_bind()
    #: Where dd's buffers live: the node's default, DRAM or MCDRAM
    memory = variant.memory()
    #: The stream under darshan-runtime, or bare
    darshan = variant.darshan()
    #: I/O path: page cache, O_DSYNC writes, or O_DIRECT
    mode = parameter(list(MODE_FLAGS))
    #: dd ``bs=``; ``None`` takes extras['dd_block_size']
    block_size = variable(str, type(None), value=None)
    #: dd ``count=``; ``None`` takes extras['dd_count']
    count = variable(int, type(None), value=None)
    #: Each memory copy's size; ``None`` takes extras['dd_control_size']
    control_size = variable(str, type(None), value=None)
    #: Repetitions; ``None`` takes extras['repetitions']
    repetitions = variable(int, type(None), value=None)
    #: Reads after each write: 3 gives read-once and read-3x, 0 none
    reads = variable(int, value=3)

    def configure(self):
        self.block_size = self.block_size or self.extra('dd_block_size')
        self.count = self.count or self.extra('dd_count')
        self.control_size = self.control_size or self.extra('dd_control_size')
        self.repetitions = self.repetitions or self.extra('repetitions')
        self.time_limit = self.time_limit or self.extra('dd_time_limit')
        if self.mode == 'direct':
            if 'odirect' not in self.current_partition.features:
                raise SkipTestError(self.extra('odirect_reason') or
                                    'the scratch file system lacks O_DIRECT')
            if block_bytes(self.block_size) % 4096:
                raise IogapError(f'direct mode needs a block size that is a '
                                 f'multiple of 4 KiB, got {self.block_size}')
        block = block_bytes(self.block_size)
        self.file_bytes = block * self.count
        self.memory_count = control_count(block, self.count, self.control_size)
        self.memory_bytes = block * self.memory_count
        self.scratch_bytes = self.file_bytes
        self.moved_bytes = (self.file_bytes * self.repetitions *
                            (1 + self.reads))
        # numactl, for a memory variant, wraps the whole stream
        self.executable = ' '.join([*self.task_placement.memory_wrapper(),
                                    f'{self.own_tools}/dd-stream.sh'])
        write, read = MODE_FLAGS[self.mode]
        evict = 'none' if self.mode == 'direct' or not self.reads \
            else self.eviction.method
        self.executable_opts = [
            '--dd', self.tool('dd'), '--file', '"$IOGAP_DIR/dd.dat"',
            '--bs', self.block_size, '--count', str(self.count),
            '--reps', str(self.repetitions), '--reads', str(self.reads),
            '--memory-count', str(self.memory_count),
            '--calibrations', str(JobSteps.CALIBRATIONS),
            '--trace', str(JobSteps.trace_quantum(2 * self.file_bytes)),
            '--evict', evict, *(['--write-flags', write] if write else []),
            *(['--read-flags', read] if read else []),
            *(['--odirect-probe'] if self.mode == 'direct' else []),
            *(['--darshan', self.darshan_run.lib] if self.darshan == 'on'
              else []),
        ]
        self.env_vars['LC_ALL'] = 'C'     # dd's summary in one format
        self.job_sections['probe'].extend(
            self.task_placement.probe(ranks=False))

    def steps(self):
        '''Every dd step, checked: whole, plausible, on disk.'''
        text = self.measured_output('dd')
        found, overhead = check_steps(text, self.file_bytes,
                                      self.repetitions * (2 + self.reads),
                                      self.memory_bytes)
        self.note(f'harness start-up {overhead}')
        return found

    def bandwidths(self, found, op):
        '''``{repetition: MB/s}`` of the steps ``op``.'''
        return {s['rep']: dd_record(s)[0] / dd_record(s)[1] / 1e6
                for s in found if s['op'] == op}

    def check_placement(self, text):
        _, cpus = self.task_placement.check(text, tasks=1, nodes=1)
        self.note(f'cpus={cpus}')

    def check_eviction(self, text):
        if self.mode == 'direct' or not self.reads:
            self.note('evict=none (O_DIRECT bypasses the page cache)'
                      if self.reads else 'write only')
            return
        resident = self.eviction.check(text, {
            f'rep{r}': self.file_bytes
            for r in range(1, self.repetitions + 1)})
        self.note(f'evict={self.eviction.method} (bytes resident after: '
                  f'{resident})')

    def check_mechanisms(self, found, text):
        device = JobSteps.device(text)
        figures, self.inapplicable = mechanism.observe(
            [s for s in found if s['op'] != 'memory'], self.file_bytes,
            device, self.reads)
        self.note(f'device={device[0]}:{device[2]}' if device else
                  'device=unknown')
        return figures

    @sanity_function
    def validate(self):
        found = self.steps()
        text = self.read('stdout')
        self.check_placement(text)
        self.check_eviction(text)
        memory = self.bandwidths(found, 'memory')
        series = {'write': self.bandwidths(found, 'write')}
        passes = [self.bandwidths(found, f'read{p}')
                  for p in range(1, self.reads + 1)]
        if self.reads:
            series['read_once'] = passes[0]
            series['read_3x'] = {r: statistics.fmean(p[r] for p in passes)
                                 for r in passes[0]}
        figures = self.check_mechanisms(found, text)
        figures[MEMORY_BW.name()] = (statistics.median(memory.values()),
                                     'MB/s')
        for pattern, values in series.items():
            figures.update(Figures.of_repetitions(
                BW.name(pattern=pattern), list(values.values()), 'MB/s'))
            figures[PAIRED.name(pattern=pattern)] = (
                paired(values, memory), PAIRED.unit)
        for n, values in enumerate(passes, start=1):
            figures[PASS_BW.name(n=n)] = (statistics.median(values.values()),
                                          'MB/s')
        # What Darshan saw of every dd: the file's bytes, each way
        expected = {}
        for rep in range(1, self.repetitions + 1):
            expected[f'write-{rep}'] = ('POSIX', 0, self.file_bytes, 0)
            for p in range(1, self.reads + 1):
                expected[f'read{p}-{rep}'] = ('POSIX', self.file_bytes, 0, 0)
        figures.update(self.darshan_run.figures(expected))
        return self.report(figures)
