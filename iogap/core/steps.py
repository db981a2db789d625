'''Labelled steps: ``iogap_run`` (job.sh) prints a step's label
(``iogap-step: op=write rep=1``), then after the tool's output its time
(``iogap-time:``) and bytes (``iogap-io:``, ``iogap-bytes:``). The output
is cut at the labels, so a missing run never passes for another.'''

import os
import re
import shlex

from iogap.core import plausible, traced

#: The shell library every job sources, and the wrapper of each rank
JOB_SH = os.path.join(os.path.dirname(__file__), 'job.sh')
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
    '''One labelled step: its labels, text and what the harness saw.'''

    def __init__(self, labels):
        self.labels, self.lines = labels, []

    @property
    def text(self):
        return ''.join(self.lines)

    @property
    def seconds(self):
        '''The step's time: launched, the least any rank took.'''
        if ranks := _RANK_TIME.findall(self.text):
            return min(float(r[0]) for r in ranks)
        m = _TIME.search(self.text)
        return float(m.group(1)) if m else None

    @property
    def waited(self):
        '''Seconds some task waited for a CPU in the step, or ``None``.'''
        found = _RANK_TIME.findall(self.text) or _TIME.findall(self.text)
        if not found or any(w in ('', 'na') for _, w, _ in found):
            return None
        return max(float(w) for _, w, _ in found)

    @property
    def traces(self):
        '''Each rank's ``[(seconds before, bytes, seconds after)]`` samples.'''
        return [[(int(t) / 1e6, int(b), (int(t) + int(d)) / 1e6)
                 for t, b, d in (point.split(':') for point in line.split())]
                for line in _TRACE.findall(self.text)]

    @property
    def cpu(self):
        '''CPU seconds the step shell's own processes used, or ``None``.'''
        m = _TIME.search(self.text)
        return float(m.group(3)) if m and m.group(3) else None

    @property
    def disk(self):
        '''``(length, allocated)`` bytes after the step, or ``None``.'''
        m = _BYTES.search(self.text)
        return (int(m.group(1)), int(m.group(2))) if m else None

    @property
    def resident(self):
        '''Bytes of the step's files left in the page cache, or ``None``.'''
        m = _BYTES.search(self.text)
        return int(m.group(3)) if m and m.group(3) and \
            m.group(3).isdigit() else None

    @property
    def io(self):
        '''Bytes read, written and fetched (``None``: unknown), or ``None``.'''
        m = _IO.search(self.text)
        return None if m is None else {
            k: int(v) if v.isdigit() else None for k, v in
            zip(('device_read', 'device_written', 'fetched'), m.groups())}

    def __getitem__(self, key):
        return self.labels[key]


def begin(**labels):
    '''The line that labels and starts timing ReFrame's main step.'''
    return 'iogap_begin ' + ' '.join(f'{k}={v}' for k, v in labels.items())


def end():
    return 'iogap_end'


def label(**labels):
    '''The line that labels the output after it, untimed.'''
    words = ' '.join(f'{k}={v}' for k, v in labels.items())
    return f'echo {shlex.quote("iogap-step: " + words)}'


def run(command, **labels):
    '''The line that runs ``command`` as a labelled, timed step.'''
    words = ' '.join(f'{k}={v}' for k, v in labels.items())
    return f'iogap_run {words} -- {command}'


def ranked(command, tools='.', trace=None):
    '''``command`` timed in each rank, a trace sample every ``trace`` bytes.'''
    wrapper = shlex.quote(tools + "/" + os.path.basename(RANKED))
    traced = f' --trace {int(trace)}' if trace else ''
    return f'{wrapper}{traced} {command}'


def source(tools='.'):
    '''The line that loads job.sh from the own ``tools`` (``.``: stagedir).'''
    return f'. {shlex.quote(tools + "/" + os.path.basename(JOB_SH))}'


def parse(text, preamble=False):
    '''``[Step]``: each label and the output up to the next one.'''
    found = [Step({})] if preamble else []
    for line in text.splitlines(keepends=True):
        if m := _LABEL.match(line):
            found.append(Step(dict(kv.split('=', 1)
                                   for kv in m.group(1).split())))
        elif found:
            found[-1].lines.append(line)
    return found


def device(path='"$IOGAP_DIR"'):
    '''The line that finds ``path``'s block device for ``iogap-io``.'''
    return f'iogap_device {path}'


def device_of(text):
    '''``(name, major:minor, kind)`` of the job's scratch device.'''
    m = _DEVICE.search(text)
    return m.groups() if m else None


def skip_reason(text):
    '''Why the job did not measure (``iogap-skip:``), or ``None``.'''
    m = _SKIP.search(text)
    return m.group(1).strip() if m else None


class JobSteps:
    '''A job's labelled steps, held to the harness; with ``tool_seconds``
    (step -> its tool's time) ``calibrate`` steps measure :attr:`overhead`.'''

    #: Calibrations per job; bytes a rank may move outside its data
    CALIBRATIONS = plausible.CALIBRATIONS
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
        return {s[label]: s for s in self.steps}

    def held(self, step, claimed, nbytes, block, what, launched=False,
             last_only=False, margin=traced.TRACE_MARGIN):
        '''Sanity: ``claimed`` seconds per iteration fit trace and clock
        (``launched``: MPI ranks busy-poll and work outside their timer).'''
        plausible.check_step(
            claimed, step, what, self.overhead, nbytes, block, last_only,
            plausible.LAUNCHED_TOLERANCE if launched else plausible.TOLERANCE,
            in_shell=not launched, margin=margin)

    #: A write left ``expected`` bytes (``slack`` more at most)
    on_disk = staticmethod(plausible.check_disk)

    @staticmethod
    def within(step, claimed, nbytes, what):
        '''Sanity: an uncalibrated tool's time fits in its step.'''
        plausible.check_clock(claimed, step.seconds, what,
                              plausible.Overhead([0.0]), nbytes, lower=False)

    trace_quantum = staticmethod(traced.trace_quantum)
    label = staticmethod(label)
    device = staticmethod(device_of)
    skip_reason = staticmethod(skip_reason)
