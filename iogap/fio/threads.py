'''FioThreads: several threads reading on one core (the study's tip 5.2):
``numjobs`` threads pinned to the first CPU the probe may run on, each
pread-ing (``psync``, O_DIRECT) its own region of one laid-out file for a
fixed time. The finding is a ratio: N threads over one on the same core.'''

from reframe.core.builtins import parameter, sanity_function, variable
from reframe.core.exceptions import SanityError

from iogap.core import (
    Figures,
    IogapTest,
    JobSteps,
    family,
    size_bytes,
    variant,
)
from iogap.errors import IogapError
from iogap.fio import parse
from iogap.fio.figures import BW, CLAT, IOPS

#: The read job's name in fio's output
JOB = 'read'


def thread_counts(part):
    '''Threads per core of a partition's sweep (extras['fio_threads']).'''
    return part.extras['fio_threads'] if 'odirect' in part.features else []


@family
class FioThreads(IogapTest):
    '''Read bandwidth of ``threads`` fio threads sharing one core.'''

    figures = Figures(BW, IOPS, CLAT)
    #: Threads on the one core (the selected system's extras['fio_threads'])
    threads = parameter(variant.values(thread_counts))
    #: Size of the file the threads share; ``None``: extras['fio_file_size']
    file_size = variable(str, type(None), value=None)
    #: Bytes per pread (``bs``); ``None``: extras['fio_block_size']
    block_size = variable(str, type(None), value=None)
    #: Seconds of reading (``runtime``); ``None``: extras['fio_runtime']
    runtime = variable(int, type(None), value=None)

    CONSTRAINTS = (variant.feature('odirect'),
                   lambda p, part: p['threads'] in thread_counts(part))

    def configure(self):
        self.file_size = self.file_size or self.extra('fio_file_size')
        self.block_size = self.block_size or self.extra('fio_block_size')
        self.runtime = self.runtime or self.extra('fio_runtime')
        block = size_bytes(self.block_size, 'fio block size')
        total = size_bytes(self.file_size, 'fio file size')
        if block % 4096:
            raise IogapError(f'O_DIRECT needs a block size that is a '
                             f'multiple of 4 KiB, got {self.block_size}')
        # Each thread its own contiguous region, whole blocks
        self.region = total // self.threads // block * block
        if self.region < block:
            raise IogapError(f'fio file size {self.file_size} leaves less '
                             f'than one {self.block_size} block per thread')
        self.file_bytes = self.region * self.threads
        self.scratch_bytes = self.file_bytes
        self.num_tasks = self.num_tasks_per_node = 1
        self.dd = self.tool('dd')
        self.fio = self.tool('fio')     # last: fio's provider logged
        self.executable = self.fio
        self.plan = {'ioengine': 'psync', 'direct': 1, 'rw': 'read',
                     'numjobs': self.threads, 'bs': self.block_size,
                     'size': self.region, 'offset_increment': self.region,
                     'runtime': self.runtime}
        self.executable_opts = [
            f'--name={JOB}', '--filename="$IOGAP_DIR/fio.dat"', '--thread',
            '--cpus_allowed="$IOGAP_CPU"', '--time_based',
            *(f'--{k}={v}' for k, v in self.plan.items()),
            '--output-format=json', '--output=fio_read.json']

    def plan_steps(self):
        launch = self.launch_prefix()
        layout = (f'{self.fio} --name=layout --filename="$IOGAP_DIR/fio.dat"'
                  f' --size={self.file_bytes} --create_only=1')
        job = self.job_sections
        job['probe'].extend([
            *self.task_placement.probe(ranks=False),
            # Launched like fio: the CPUs its process may use; the first
            # one takes every thread
            f'probe=$({self.task_placement.probe_command(launch)})',
            'echo "$probe"',
            'IOGAP_CPU=$(echo "$probe" | sed -n "s/.* cpus=\\([0-9]*\\).*/'
            '\\1/p" | head -1)'])
        # Before any launch: a scratch without O_DIRECT skips the job
        job['setup'].append(f'iogap_odirect {self.dd} "$IOGAP_DIR/fio.dat" '
                            f'4096')
        lay_out = job.step(layout, step='layout')
        lay_out.after.append('iogap_bytes "$IOGAP_DIR/fio.dat"')
        job.step(step='read')
        job['teardown'].append('rm -f "$IOGAP_DIR/fio.dat"')
        self.keep_files = [*self.keep_files, 'fio_read.json']

    @sanity_function
    def validate(self):
        text = self.measured_output('fio')
        ranks = self.task_placement.ranks(text)
        self.task_placement.check_ranks(ranks, 1, 1)
        cpu = ranks[0]['cpus'].split(',')[0].split('-')[0]
        found = JobSteps(text).by('step')
        JobSteps.on_disk(found['layout'], self.file_bytes, 'fio layout')
        try:
            doc = parse.load(f'{self.stagedir}/fio_read.json')
            jobs = parse.threads(doc, JOB, self.threads,
                                 {**self.plan, 'cpus_allowed': cpu})
        except IogapError as err:
            raise SanityError(str(err)) from None
        got = parse.figures(jobs)
        # fio's start-up is not calibrated: its time must lie in the step
        JobSteps.within(found['read'], got['seconds'], got['bytes'],
                        f'fio read ({self.threads} threads)')
        self.note(f'{self.threads} thread(s) on cpu {cpu}, '
                  f'{got["bytes"]} bytes in {got["seconds"]:.3f} s')
        return self.report({fig.name(): (got[fig.name()], fig.unit)
                            for fig in self.figures})
