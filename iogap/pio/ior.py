'''IOR: parallel bandwidth over layouts, APIs, I/O modes and the sweep.
A case writes (``-w -k``), reads back and verifies untimed, evicts, then
reads three times unflushed (``-r -R -C -G``): pass 1 is read-once, the
mean read-3x. Figures are held to the plan, the disk and the clock.'''

import re

from reframe.core.builtins import sanity_function, variable

from iogap.core import Figures, JobSteps, variant
from iogap.pio import parse
from iogap.pio.base import ParallelIOTest
from iogap.pio.figures import BW, BW_SPREAD, IOPS, TIME

#: Read passes: the first is read-once, all three read-3x
READ_PASSES = 3
#: Launches that measure the start-up of a launched IOR (each one transfer
#: per task): fewer than dd's, a launch costs a second on a loaded node
CALIBRATIONS = 3
_TOTAL_TIME = re.compile(r'"totalTime": ([0-9.]+)')


class IORBase(ParallelIOTest):
    '''IOR write, read-once and read-3x of one case; a family gives its
    ``api``, ``layout`` and ``mode``.'''

    TOOL = 'ior'
    #: The steps under darshan-runtime, or bare
    darshan = variant.darshan()
    figures = Figures(BW, IOPS, TIME, BW_SPREAD, *variant.darshan_figures)
    #: Bytes per task (``-b``); ``None`` takes extras['ior_block_size']
    block_size = variable(str, type(None), value=None)
    #: Bytes per call (``-t``); ``None`` takes extras['ior_transfer_size']
    transfer_size = variable(str, type(None), value=None)
    #: Blocks per task (``-s``), interleaved in rank order in a shared file
    segments = variable(int, value=1)
    #: Write iterations (``-i``); ``None`` takes extras['repetitions']
    repetitions = variable(int, type(None), value=None)

    def size_job(self):
        '''Set the job's tasks; the sweep's cases are sized at init.'''

    def configure(self):
        super().configure()
        self.size_job()
        self.block_size = self.block_size or self.extra('ior_block_size')
        self.transfer_size = (self.transfer_size or
                              self.extra('ior_transfer_size'))
        block, _ = parse.check_sizes(
            self.block_size, self.transfer_size, self.mode == 'direct')
        #: Bytes each task moves per pass: its block in every segment
        self.block_bytes = block * parse.check_segments(self.segments)
        self.repetitions = self.repetitions or self.extra('repetitions')
        self.scratch_bytes = self.num_tasks * self.block_bytes
        # The writes, the verification and the read passes
        self.moved_bytes = self.scratch_bytes * (self.repetitions + 1 +
                                                 READ_PASSES)
        self.dd = self.tool('dd')
        self.ior = self.tool('ior')     # last: IOR's provider logged
        self.executable = self.ranked(*self.darshan_run.env('write'), self.ior)
        self.executable_opts = self.ior_options(
            '-w -k', f'-i {self.repetitions}',
            *(['-e'] if self.mode == 'fsync' else []), 'ior_write.json')

    def ranked(self, *command):
        '''``command`` as each rank runs it: timed, and its bytes traced.'''
        return super().ranked(' '.join(command), self.block_bytes)

    def shares_equally(self):
        '''Whether every rank moves its own block (no aggregators).'''
        return True

    def api_options(self):
        return [f'-a {self.api}', *(['-F'] if self.layout == 'fpp' else []),
                *(['--posix.odirect'] if self.mode == 'direct' else [])]

    def ior_options(self, *opts):
        *flags, summary = opts
        return [*self.api_options(), *flags, '-G 4242',
                f'-b {self.block_size} -t {self.transfer_size}',
                *([f'-s {self.segments}'] if self.segments > 1 else []),
                '-o "$IOGAP_DIR/ior.dat"', '-O summaryFormat=JSON',
                f'-O summaryFile={summary}']

    def plan_steps(self):
        super().plan_steps()
        job, launch = self.job_sections, self.launch_prefix()
        calibrate = self.ranked(*self.darshan_run.env('calibrate'), self.ior,
                                *self.api_options(), '-w -G 4242',
                                f'-b {self.transfer_size} -t '
                                f'{self.transfer_size}',
                                '-o "$IOGAP_DIR/calib.dat"',
                                '-O summaryFormat=JSON')
        job.step(f'{launch} {calibrate}',
                 repeat=CALIBRATIONS, step='calibrate').after.append(
                     'rm -f "$IOGAP_DIR"/calib.dat*')
        if self.mode == 'direct':
            # Before any launch: a scratch without O_DIRECT skips the job
            job['setup'].append(f'iogap_odirect {self.dd} '
                                f'"$IOGAP_DIR/ior.dat" 4096')
        write = job.step(step='write')
        write.after.append('iogap_bytes "$IOGAP_DIR"/ior.dat*')
        verify = ' '.join([self.ior, *self.ior_options(
            '-R -C -k', '-i 1', 'verify.json')])
        job.step(f'{launch} {verify}', step='verify')
        read = self.ranked(*self.darshan_run.env('read'), self.ior,
                           *self.ior_options('-r -R -C -k',
                                             f'-i {READ_PASSES}',
                                             'ior_read.json'))
        read = job.step(f'{launch} {read}', step='read')
        evicting = self.mode != 'direct'
        if evicting:
            read.prepare.append(self.eviction.command(
                'points', self.dd, '"$IOGAP_DIR"/ior.dat*'))
        job['teardown'].append('rm -f "$IOGAP_DIR"/ior.dat*')
        self.keep_files = [*self.keep_files, 'ior_*.json']
        self.note('read_once: O_DIRECT, no page cache' if not evicting else
                  f'read_once: {self.eviction.method} eviction on the first '
                  f'node, -C reads another node\'s data on multi-node points')

    def metadata_slack(self, nbytes):
        '''Bytes HDF5 may add to ``nbytes`` of data (its metadata).'''
        return 2**21 + nbytes // 20 if self.api == 'HDF5' else 0

    def check_steps(self, text, docs):
        '''Sanity: IOR's bandwidths against the harness's clock; the bytes
        on disk after the write (HDF5 adds its metadata).'''
        nbytes = self.num_tasks * self.block_bytes
        found = JobSteps(text, lambda s: sum(
            float(t) for t in _TOTAL_TIME.findall(s.text)))
        by_step = found.by('step')
        # HDF5's metadata (a dataset per segment) moves with each
        # iteration's data: the trace keeps that far from its ends too
        margin = JobSteps.TRACE_MARGIN + self.metadata_slack(self.block_bytes)
        for op in ('write', 'read'):
            parse.check_bandwidths(docs[op], op, nbytes, found, by_step[op],
                                   self.block_bytes,
                                   not self.shares_equally(), margin)
        slack = self.metadata_slack(nbytes)
        JobSteps.on_disk(by_step['write'], nbytes, 'IOR write', slack)
        if self.mode != 'direct':
            self.eviction.check(text, {'points': nbytes})

    @sanity_function
    def validate(self):
        text = self.ran()
        tasks, nbytes = self.num_tasks, self.num_tasks * self.block_bytes
        docs = {op: parse.load_summary(f'{self.stagedir}/ior_{op}.json', op)
                for op in ('write', 'read')}
        self.check_steps(text, docs)
        write = parse.phase(docs['write'], 'write', 'write', tasks,
                            self.repetitions, nbytes)
        read = parse.phase(docs['read'], 'read', 'read', tasks, READ_PASSES,
                           nbytes)
        figures = self.darshan_checked(nbytes)
        first = read['first']
        values = {'write': write, 'read_3x': read,
                  'read_once': {'bw': first['bwMiB'], 'iops': first['iops'],
                                'time': first['totalTime']}}
        for phase, found in values.items():
            for fig, key in ((BW, 'bw'), (IOPS, 'iops'), (TIME, 'time')):
                figures[fig.name(phase=phase)] = (found[key], fig.unit)
            for stat in ('min', 'max'):
                if f'bw_{stat}' in found:
                    figures[BW_SPREAD.name(phase=phase, stat=stat)] = (
                        found[f'bw_{stat}'], BW_SPREAD.unit)
        return self.report(figures)

    def darshan_checked(self, nbytes):
        '''Darshan's figures, its bytes checked against IOR's (HDF5 adds
        its metadata; MPI-IO is seen by its own module).'''
        module = 'MPI-IO' if self.api == 'MPIIO' else 'POSIX'
        slack = self.metadata_slack(nbytes)
        reps = self.repetitions
        return self.darshan_run.figures({
            'write': (module, 0, nbytes * reps, slack * reps),
            'read': (module, nbytes * READ_PASSES, 0, slack * READ_PASSES),
        })
