'''Labelled steps: how every family tells its tool runs apart in a job's
output, and how the harness's own clock and byte count come back.

A step is run by ``iogap_run`` (core/job.sh), which prints a label before
it and the seconds it took after it; a write step may be followed by the
bytes it left on disk::

    iogap-step: op=write rep=1
    ...the tool's own output...
    iogap-time: seconds=0.412733
    iogap-io: device_read=0 device_written=268435456 fetched=0
    iogap-bytes: length=268435456 allocated=268435456 resident=0

``iogap-io`` says what the step moved: bytes read and written by the
scratch root's block device (found once per job by ``iogap_device``, which
prints ``iogap-device: vda 254:0 disk`` or ``iogap-device: none 0:27
tmpfs``) and bytes the step's own processes fetched from storage; ``na``
where unknown. The parser cuts the output at the labels, so a missing or
failed run can never pass for another one.

The harness's clock is monotonic; steps labelled ``calibrate`` move no data
and measure what the wrapper and the tool's start-up add to each step
(:class:`Overhead`), so a tool's figure is held to a bound as tight as the
harness can time.
'''

import os
import re
import shlex

from reframe.core.exceptions import SanityError

#: The shell library every job sources
JOB_SH = os.path.join(os.path.dirname(__file__), 'job.sh')

#: The wrapper every rank of a launched step runs its tool in
RANKED = os.path.join(os.path.dirname(__file__), 'ranked.sh')

_LABEL = re.compile(r'^iogap-step:((?: [\w.-]+=\S+)+)\s*$')
#: A step's time, with what waiting for a CPU and the step's own CPU took
_LOAD = r'(?: waited=([0-9.]+|na) cpu=([0-9.]+))?\s*$'
_TIME = re.compile(r'^iogap-time: seconds=([0-9.]+)' + _LOAD, re.M)
_BYTES = re.compile(r'^iogap-bytes: length=(\d+) allocated=(\d+)'
                    r'(?: resident=(\d+|unknown))?\s*$', re.M)
_IO = re.compile(r'^iogap-io: device_read=(\d+|na) device_written=(\d+|na) '
                 r'fetched=(\d+|na)\s*$', re.M)
_DEVICE = re.compile(r'^iogap-device: (\S+) (\d+:\d+) (\S+)\s*$', re.M)
_RANK_TIME = re.compile(r'^iogap-rank-time: seconds=([0-9.]+)' + _LOAD, re.M)
_SKIP = re.compile(r'^iogap-skip: (.*)$', re.M)


class Step:
    '''One labelled step: its labels, its text, and what the harness saw.'''

    def __init__(self, labels):
        self.labels, self.lines = labels, []

    @property
    def text(self):
        return ''.join(self.lines)

    @property
    def seconds(self):
        '''The harness's time of the step: for a launched step the least
        any rank took (each rank's time holds the whole I/O phase, between
        the tool's barriers), else the step's own.'''
        ranks = _RANK_TIME.findall(self.text)
        if ranks:
            return min(float(r[0]) for r in ranks)
        m = _TIME.search(self.text)
        return float(m.group(1)) if m else None

    @property
    def waited(self):
        '''Seconds of the step during which some task of the host waited
        for a CPU (the most any rank saw), or ``None`` where unknown.'''
        found = _RANK_TIME.findall(self.text) or _TIME.findall(self.text)
        if not found or any(w in ('', 'na') for _, w, _ in found):
            return None
        return max(float(w) for _, w, _ in found)

    @property
    def cpu(self):
        '''CPU seconds the step's own processes used (a tool run in the
        step's shell), or ``None``.'''
        m = _TIME.search(self.text)
        return float(m.group(3)) if m and m.group(3) else None

    @property
    def disk(self):
        '''``(length, allocated)`` bytes after the step, or ``None``.'''
        m = _BYTES.search(self.text)
        return (int(m.group(1)), int(m.group(2))) if m else None

    @property
    def resident(self):
        '''Bytes of the step's files in the page cache after it, or
        ``None`` when unknown.'''
        m = _BYTES.search(self.text)
        return int(m.group(3)) if m and m.group(3) and \
            m.group(3).isdigit() else None

    @property
    def io(self):
        '''``{'device_read', 'device_written', 'fetched'}``: bytes the step
        moved (``None`` where unknown), or ``None`` without the line.'''
        m = _IO.search(self.text)
        if m is None:
            return None
        return {k: int(v) if v.isdigit() else None for k, v in
                zip(('device_read', 'device_written', 'fetched'), m.groups())}

    def __getitem__(self, key):
        return self.labels[key]


def begin(**labels):
    '''The shell line that labels and starts timing ReFrame's main step.'''
    return 'iogap_begin ' + ' '.join(f'{k}={v}' for k, v in labels.items())


def end():
    '''The shell line that ends the main step's timing.'''
    return 'iogap_end'


def run(command, **labels):
    '''The shell line that runs ``command`` as a labelled, timed step
    (values may be shell variables, e.g. ``rep='$rep'``).'''
    words = ' '.join(f'{k}={v}' for k, v in labels.items())
    return f'iogap_run {words} -- {command}'


def ranked(command, tools='.'):
    '''``command`` as each rank runs it: timed in the rank, by the wrapper
    among the project's own tools in ``tools``.'''
    return f'{shlex.quote(tools + "/" + os.path.basename(RANKED))} {command}'


def source(tools='.'):
    '''The shell line that loads the helpers into a job script, from
    ``tools``, the directory of the project's own tools (``.``: copied
    into the stage directory, where the job runs).'''
    return f'. {shlex.quote(tools + "/" + os.path.basename(JOB_SH))}'


def parse(text, preamble=False):
    '''``[Step]``: each label and the output up to the next one. What
    precedes the first label is left out, or with ``preamble`` comes first
    with empty labels.'''
    found = [Step({})] if preamble else []
    for line in text.splitlines(keepends=True):
        if m := _LABEL.match(line):
            found.append(Step(dict(kv.split('=', 1)
                                   for kv in m.group(1).split())))
        elif found:
            found[-1].lines.append(line)

    return found


def device(path='"$IOGAP_DIR"'):
    '''The shell line that finds the block device under ``path`` for
    every later step's ``iogap-io`` line.'''
    return f'iogap_device {path}'


def device_of(text):
    '''``(name, major:minor, kind)`` of the scratch device a job found
    (kind: disk, partition, loop, dm), ``('none', major:minor, fs type)``
    where it has none, or ``None`` when the job did not look.'''
    m = _DEVICE.search(text)
    return m.groups() if m else None


def skip_reason(text):
    '''The reason a job gave for not measuring (``iogap-skip:``), if any.'''
    m = _SKIP.search(text)
    return m.group(1).strip() if m else None


#: How much more than the harness saw a tool's figure may claim: a tool
#: claiming twice the bandwidth the harness measured fails
TOLERANCE = 1.5

#: How far an honest IOR's claim may exceed what the harness saw: IOR
#: removes its file before each write iteration and checks what it read
#: outside its own timer, work that grows with the bytes and that no
#: calibration (which moves none) can take off. Measured at the generic
#: size: 0.079 s claimed for three 128 MiB writes in a step 0.235 s longer
#: than the start-up.
LAUNCHED_TOLERANCE = 4.0

#: A launch's start-up varies by this share of itself between launches
LAUNCH_JITTER = 0.25

#: The resolution of a process's CPU time (USER_HZ ticks)
CPU_TICK = 0.01

#: Calibration runs per job: the least and most start-up cost they show
CALIBRATIONS = 5


class Overhead:
    '''What the harness's clock adds to a tool's own timing: the step
    wrapper and the tool's start and exit (and, launched, MPI's start-up),
    measured by steps that move no data. Their spread, at least 10 ms (a
    loaded node's scheduling delay), is the harness's resolution.'''

    def __init__(self, seconds):
        self.min, self.max = min(seconds), max(seconds)
        # A few calibrations understate how much a launch varies: on this
        # machine kind mpirun's 0.31-0.40 s varied by a quarter between
        # launches of one job
        self.resolution = max(self.max - self.min, 0.010,
                              LAUNCH_JITTER * self.min)

    def __str__(self):
        return f'{self.min:.6f}-{self.max:.6f} s'


def calibration(found, tool_seconds):
    '''``(Overhead, measured steps)``: the calibration steps of ``found``
    (labelled ``calibrate``) as an :class:`Overhead`, each less the time the
    tool itself reported (``tool_seconds(step)``), and the other steps.'''
    calib = [s for s in found if 'calibrate' in s.labels]
    if not calib or any(s.seconds is None for s in calib):
        raise SanityError('the harness recorded no calibration of its step '
                          'wrapper: no figure can be checked against its '
                          'clock')

    costs = [max(s.seconds - tool_seconds(s), 0.0) for s in calib]
    return Overhead(costs), [s for s in found if 'calibrate' not in s.labels]


def _rate(nbytes, seconds):
    return f'{nbytes / seconds / 1e6:.6g} MB/s' if seconds > 0 else \
        'an infinite rate'


def check_clock(claimed, wall, what, overhead, nbytes, waited=None,
                cpu=None, lower=True, tolerance=TOLERANCE):
    '''Sanity: a tool's own timing must agree with the harness's monotonic
    clock, both ways, within the harness's resolution (so the bound holds
    for short steps too). The tool cannot have taken longer than the step.
    Nor can it claim a rate more than ``tolerance`` times what the
    harness saw: the step less the start-up (``overhead``) and less the
    time some task waited for a CPU (``waited``; unknown counts as none),
    so that a loaded host's scheduling delay is never taken for a lie.
    A tool run in the step's own shell is also held to its ``cpu``
    seconds, which no wait for a CPU inflates. Without a calibration of
    the tool's start-up (``lower=False``), only the upper bound holds.'''
    if wall is None:
        raise SanityError(f'{what}: the harness recorded no time for the step')
    longest = wall + overhead.resolution
    shortest = (wall - overhead.max - (waited or 0.0) -
                overhead.resolution) / tolerance if lower else 0.0
    if cpu is not None:
        # Its own start-up's CPU is in the step, and ticks are 10 ms
        shortest = max(shortest, cpu - CPU_TICK - overhead.max -
                       overhead.resolution)
    if claimed > longest or claimed < shortest:
        seen = max(wall - overhead.max - (waited or 0.0), 0.0)
        load = '' if waited is None else f', {waited:.6f} s waiting for a CPU'
        load += '' if cpu is None else f', {cpu:.2f} s of CPU'
        raise SanityError(
            f'{what}: the tool reports {_rate(nbytes, claimed)} ({claimed:.6f}'
            f' s for {nbytes} bytes) but the harness saw '
            f'{_rate(nbytes, seen)} ({wall:.6f} s step, {overhead} of '
            f'start-up{load}): its figure is not plausible')


def check_disk(step, expected, what, slack=0):
    '''Sanity: the bytes on disk after a write step are those written (and
    at most ``slack`` more, for formats with metadata).'''
    disk = step.disk
    if disk is None:
        raise SanityError(f'{what}: the harness recorded no file size')

    # Allocation is not checked: compressing file systems store zeros in
    # next to nothing
    length, allocated = disk
    if not expected <= length <= expected + slack:
        raise SanityError(f'{what}: {expected} bytes were written but the '
                          f'files hold {length} bytes ({allocated} '
                          f'allocated)')
