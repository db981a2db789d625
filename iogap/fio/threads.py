'''FioThreads: several threads reading on one core (the study's tip 5.2):
``numjobs`` threads pinned to the first CPU the probe may run on, each
pread-ing (``psync``, O_DIRECT) its own region of one laid-out file for a
fixed time; each repetition runs the same threads over every CPU of the
job too, alternating: ``read_bw_paired`` (one core over spread) is 1 where
one core saturates what the file system (or burst buffer) gives.'''

import statistics

from reframe.core.builtins import parameter, sanity_function, variable
from reframe.core.exceptions import SanityError

from iogap.core import (
    Control,
    Figures,
    IogapTest,
    JobSteps,
    family,
    size_bytes,
    variant,
)
from iogap.errors import IogapError
from iogap.fio import parse
from iogap.fio.figures import BW, BW_PAIRED, BW_SPREAD, CLAT, IOPS

#: The read job's name in fio's output
JOB = 'read'
#: Each repetition's sides: the threads on one CPU, then over all the job's
SIDES = {'one': '"$IOGAP_CPU"', 'spread': '"$IOGAP_CPUS"'}
SPREAD = Control('one-core reads', 'spread reads', ('one core', 'spread'),
                 'bandwidths', 'MB/s')


def thread_counts(part):
    '''Threads per core of a partition's sweep (extras['fio_threads']).'''
    return part.extras['fio_threads'] if 'odirect' in part.features else []


@family
class FioThreads(IogapTest):
    '''Read bandwidth of ``threads`` fio threads sharing one core.'''

    figures = Figures(BW, IOPS, CLAT, BW_SPREAD, BW_PAIRED)
    #: Threads on the one core (the selected system's extras['fio_threads'])
    threads = parameter(variant.values(thread_counts))
    #: Where the file is: the scratch root, or the job's own burst buffer
    #: (extras['burst_buffer'])
    target = parameter(['scratch', 'burst_buffer'])
    #: Repetitions of both sides; ``None`` takes extras['repetitions']
    repetitions = variable(int, type(None), value=None)
    #: Size of the file the threads share; ``None``: extras['fio_file_size']
    file_size = variable(str, type(None), value=None)
    #: Bytes per pread (``bs``); ``None``: extras['fio_block_size']
    block_size = variable(str, type(None), value=None)
    #: Seconds of reading (``runtime``); ``None``: extras['fio_runtime']
    runtime = variable(int, type(None), value=None)

    CONSTRAINTS = (variant.feature('odirect'),
                   lambda p, part: p['threads'] in thread_counts(part),
                   lambda p, part: p['target'] == 'scratch' or
                   bool(part.extras['burst_buffer']))

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
        self.repetitions = self.repetitions or self.extra('repetitions')
        self.file = '"$IOGAP_DIR/fio.dat"'
        if self.target == 'burst_buffer':
            bb = self.extra('burst_buffer')
            self.job.options += bb['directives']
            self.file = f'"${bb["path_env"]}/iogap-fio.dat"'
        self.dd = self.tool('dd')
        self.fio = self.tool('fio')     # last: fio's provider logged
        self.executable = self.fio
        self.plan = {'ioengine': 'psync', 'direct': 1, 'rw': 'read',
                     'numjobs': self.threads, 'bs': self.block_size,
                     'size': self.region, 'offset_increment': self.region,
                     'runtime': self.runtime}

    def fio_options(self, side, rep):
        return [f'--name={JOB}', f'--filename={self.file}', '--thread',
                f'--cpus_allowed={SIDES[side]}', '--time_based',
                *(f'--{k}={v}' for k, v in self.plan.items()),
                '--output-format=json', f'--output=fio_{side}_{rep}.json']

    def plan_steps(self):
        launch = self.launch_prefix()
        layout = (f'{self.fio} --name=layout --filename={self.file}'
                  f' --size={self.file_bytes} --create_only=1')
        job = self.job_sections
        job['probe'].extend([
            *self.task_placement.probe(ranks=False),
            # Launched like fio: the CPUs its process may use; the first
            # one takes every thread, or all of them do
            f'probe=$({self.task_placement.probe_command(launch)})',
            'echo "$probe"',
            'IOGAP_CPUS=$(echo "$probe" | sed -n "s/.* cpus=\\([0-9,-]*\\)'
            ' .*/\\1/p" | head -1)',
            'IOGAP_CPU=${IOGAP_CPUS%%[,-]*}'])
        # Before any launch: a file system without O_DIRECT skips the job
        job['setup'].append(f'iogap_odirect {self.dd} {self.file} 4096')
        lay_out = job.step(layout, step='layout')
        lay_out.after.append(f'iogap_bytes {self.file}')
        reps = self.repetitions
        order = [(side, r) for r in range(1, reps + 1)
                 for side in (('spread', 'one') if (reps - r) % 2 == 0
                              else ('one', 'spread'))]
        for side, rep in order[:-1]:
            job.step(' '.join([launch, self.fio,
                               *self.fio_options(side, rep)]),
                     step='read', side=side, rep=rep)
        self.executable_opts = self.fio_options('one', reps)
        job.step(step='read', side='one', rep=reps)
        job['teardown'].append(f'rm -f {self.file}')
        self.keep_files = [*self.keep_files, 'fio_*.json']

    @sanity_function
    def validate(self):
        text = self.measured_output('fio')
        ranks = self.task_placement.ranks(text)
        self.task_placement.check_ranks(ranks, 1, 1)
        cpus = ranks[0]['cpus']
        cpu = cpus.split(',')[0].split('-')[0]
        found = JobSteps(text).by('step')
        JobSteps.on_disk(found['layout'], self.file_bytes, 'fio layout')
        got = {'one': {}, 'spread': {}}
        for step in JobSteps(text):
            if step.labels.get('step') != 'read':
                continue
            side, rep = step['side'], step['rep']
            try:
                doc = parse.load(f'{self.stagedir}/fio_{side}_{rep}.json')
                jobs = parse.threads(doc, JOB, self.threads, {
                    **self.plan,
                    'cpus_allowed': cpu if side == 'one' else cpus})
            except IogapError as err:
                raise SanityError(str(err)) from None
            got[side][rep] = parse.figures(jobs)
            # fio's start-up is not calibrated: its time must lie in the step
            JobSteps.within(step, got[side][rep]['seconds'],
                            got[side][rep]['bytes'], f'fio read ({side}, '
                            f'{self.threads} threads, repetition {rep})')
        self.note(f'{self.threads} thread(s) on cpu {cpu}, or over {cpus}, '
                  f'{len(got["one"])} repetition(s) each')
        bw = {side: {r: f['read_bw'] for r, f in reps.items()}
              for side, reps in got.items()}
        figures = {fig.name(): (statistics.median(
            f[fig.name()] for f in got['one'].values()), fig.unit)
            for fig in (BW, IOPS, CLAT)}
        figures[BW_SPREAD.name()] = (statistics.median(
            bw['spread'].values()), BW_SPREAD.unit)
        figures[BW_PAIRED.name()] = (SPREAD.paired(bw['one'], bw['spread']),
                                     BW_PAIRED.unit)
        return self.report(figures)
