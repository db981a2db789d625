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
and measure what the wrapper and the tool's start-up add to each step, so
a tool's figure is held to a bound as tight as the harness can time
(:mod:`iogap.core.plausible`).
'''

import os
import re
import shlex

from iogap.core import plausible, traced

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
_TRACE = re.compile(r'^iogap-rank-io:((?: \d+:\d+:\d+)+)\s*$', re.M)


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
    def traces(self):
        '''Each rank's trace of its bytes (``iogap-rank-io``): ``[(seconds
        since the first sample before the bytes were read, bytes since the
        tool started, seconds after)]``, the last at the tool's exit.'''
        return [[(int(t) / 1e6, int(b), (int(t) + int(d)) / 1e6)
                 for t, b, d in (point.split(':') for point in line.split())]
                for line in _TRACE.findall(self.text)]

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


def label(**labels):
    '''The shell line that labels the output after it, untimed (a probe's,
    told apart from the job's own).'''
    words = ' '.join(f'{k}={v}' for k, v in labels.items())
    return f'echo {shlex.quote("iogap-step: " + words)}'


def run(command, **labels):
    '''The shell line that runs ``command`` as a labelled, timed step
    (values may be shell variables, e.g. ``rep='$rep'``).'''
    words = ' '.join(f'{k}={v}' for k, v in labels.items())
    return f'iogap_run {words} -- {command}'


def ranked(command, tools='.', trace=None):
    '''``command`` as each rank runs it: timed in the rank, by the wrapper
    among the project's own tools in ``tools``; with ``trace`` (bytes), its
    bytes traced as they move, a sample kept every ``trace`` bytes.'''
    wrapper = shlex.quote(tools + "/" + os.path.basename(RANKED))
    traced = f' --trace {int(trace)}' if trace else ''
    return f'{wrapper}{traced} {command}'


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


class JobSteps:
    '''The labelled steps of a job's output, each held to the harness: the
    one component a family's sanity reads its tool runs through.

    ``JobSteps(text)`` cuts the output at the step labels; with
    ``tool_seconds`` (a step -> the seconds its tool reported), the
    ``calibrate`` steps measure the harness's start-up (:attr:`overhead`)
    and leave the others. :meth:`held` holds a tool's claimed time to the
    harness's clock and to the trace of its bytes; :meth:`on_disk` a
    write's bytes to the files it left; :meth:`within` an uncalibrated
    tool's time to its step.'''

    #: Calibration launches per job (start-up moves no data)
    CALIBRATIONS = plausible.CALIBRATIONS

    #: Bytes a rank may move outside its data at either end of a traced
    #: iteration (a tool's summary, Darshan's log)
    TRACE_MARGIN = traced.TRACE_MARGIN

    def __init__(self, text, tool_seconds=None, preamble=False):
        found = parse(text, preamble)
        self.overhead = None
        if tool_seconds is not None:
            self.overhead, found = plausible.calibration(found, tool_seconds)
        self.steps = found

    def __iter__(self):
        return iter(self.steps)

    def __len__(self):
        return len(self.steps)

    def by(self, label):
        '''``{value: step}`` of the steps by their label ``label``.'''
        return {s[label]: s for s in self.steps}

    def held(self, step, claimed, nbytes, block, what, launched=False,
             last_only=False, margin=traced.TRACE_MARGIN):
        '''Sanity: ``claimed`` seconds (each iteration's, moving
        ``nbytes``; per rank ``block`` bytes as its trace counts them) are
        no shorter than the trace shows and agree with the harness's clock
        less its start-up. ``launched``: an MPI tool, whose ranks busy-poll
        (its CPU time bounds nothing) and which does work outside its own
        timer (a wider tolerance).'''
        plausible.check_step(
            claimed, step, what, self.overhead, nbytes, block, last_only,
            plausible.LAUNCHED_TOLERANCE if launched else plausible.TOLERANCE,
            in_shell=not launched, margin=margin)

    @staticmethod
    def on_disk(step, expected, what, slack=0):
        '''Sanity: a write step left ``expected`` bytes (up to ``slack``
        more, for a format's metadata).'''
        plausible.check_disk(step, expected, what, slack)

    @staticmethod
    def within(step, claimed, nbytes, what):
        '''Sanity: an uncalibrated tool's time fits in its step.'''
        plausible.check_clock(claimed, step.seconds, what,
                              plausible.Overhead([0.0]), nbytes, lower=False)

    @staticmethod
    def trace_quantum(nbytes):
        '''Bytes between a trace's samples for a step of ``nbytes``.'''
        return traced.trace_quantum(nbytes)

    @staticmethod
    def label(**labels):
        '''The shell line that labels the output after it, untimed.'''
        return label(**labels)

    @staticmethod
    def device(text):
        '''The scratch device the job found (see :func:`device_of`).'''
        return device_of(text)

    @staticmethod
    def skip_reason(text):
        '''Why the job did not measure (``iogap-skip:``), or ``None``.'''
        return skip_reason(text)
