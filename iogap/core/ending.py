'''How a job ends: its default time limit, how it ended in words, with
the first error line of its output, and the output as sanity reads it.'''

import os
import re
import signal

import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.exceptions import SanityError, SkipTestError

from iogap.core import steps

#: The slowest rate of a working scratch file system (bytes/s), and a
#: job's time beyond its I/O (s): start-up, probes, eviction, I/O lock
FLOOR_RATE, FIXED_SECONDS = 20e6, 180


def time_limit(moved_bytes):
    '''A job's default time limit (s): a hung tool fails within minutes.'''
    return int(FIXED_SECONDS + moved_bytes / FLOOR_RATE)


#: Scheduler states of a job that did not end by itself
ABNORMAL = {'CANCELLED': 'was cancelled', 'TIMEOUT': 'hit its time limit',
            'NODE_FAIL': 'lost its node', 'OUT_OF_MEMORY': 'ran out of memory',
            'PREEMPTED': 'was preempted', 'DEADLINE': 'missed its deadline'}


def ended_by_scheduler(job):
    '''How the scheduler ended ``job``, in words, or ``None``.'''
    state = (getattr(job, 'state', None) or '').split()[0:1]
    what = ABNORMAL.get(state[0]) if state else None
    if what and getattr(job, 'lost_nodes', None):
        what = f'lost its node(s) {job.lost_nodes}'
    return f'the job {what} (Slurm state {state[0]})' if what else None


def exit_status(code):
    '''How a job or step ended, in words: ``killed by SIGKILL`` etc.'''
    if code is None:
        return 'ended with no exit status (killed, or lost by the scheduler)'
    try:
        if code < 0:
            return f'was killed by {signal.Signals(-code).name}'
        if code > 128:
            # The shell's status for a child a signal killed
            return (f'exited with code {code}, the status of a process '
                    f'killed by {signal.Signals(code - 128).name}')
    except ValueError:
        pass
    return f'failed with exit code {code}'


#: Lines a healthy job prints (records, notes): never why it failed
PROGRESS = re.compile(r'^iogap-[\w-]+: |^iogap: (waiting for the I/O lock|'
                      r'created scratch root|the wall clock moved by)')


def first_error(text, tool):
    '''The first line of ``text`` reading as an error, not :data:`PROGRESS`.'''
    error = re.compile(rf'^({re.escape(tool)}|iogap):|: line \d+: |'
                       r'\b(error|Error|ERROR|failed|denied|Killed|'
                       r'No such file|not found|No space|Invalid argument|'
                       r'CANCELLED|TIME LIMIT)\b')
    for line in map(str.strip, text.splitlines()):
        if error.search(line) and not PROGRESS.search(line):
            return line
    return 'no error message in the job\'s output'


class JobEnding(rfm.RegressionTestPlugin):
    '''The job's output, and whether it ended well enough to measure.'''

    def read(self, stream):
        '''The text of the job's ``stdout``, ``stderr`` or a stage file.'''
        name = {'stdout': self.stdout, 'stderr': self.stderr}.get(stream,
                                                                   stream)
        path = os.path.join(self.stagedir, sn.evaluate(name))
        try:
            with open(path, errors='replace') as fp:
                return fp.read()
        except FileNotFoundError:
            return ''

    def measured_output(self, tool):
        '''Sanity: the job's stdout, unless it skipped or failed.'''
        text = self.read('stdout')
        reason = steps.skip_reason(text)
        if reason:
            raise SkipTestError(reason)
        self.assert_exit_ok(tool)
        return text

    def how_it_ended(self):
        '''How the job ended, in words; ``None`` when it exited 0 itself.'''
        ended = ended_by_scheduler(self.job)
        if ended or self.job.exitcode == 0:
            return ended
        return exit_status(self.job.exitcode)

    def assert_exit_ok(self, tool):
        '''Sanity: the job exited 0, else how it ended and its first error.'''
        # Tools run as labelled steps print their errors on stdout
        text = self.read('stderr') + self.read('stdout')
        ended = ended_by_scheduler(self.job)
        if ended:
            raise SanityError(f'{ended}: {first_error(text, tool)}')
        code = self.job.exitcode
        if code != 0:
            raise SanityError(f'{tool} {exit_status(code)}: '
                              f'{first_error(text, tool)}')
