'''dd's output: its summary line, and every step of a stream held whole,
plausible by its trace and clock, and on disk after a write.'''

import re

from reframe.core.exceptions import SanityError

from iogap.core import JobSteps, size_bytes

#: dd's summary: the bytes it copied and the seconds it took
_RECORD = re.compile(r'^(\d+) bytes\b.*\bcopied, ([0-9.]+(?:e[-+]?\d+)?) s\b',
                     re.M)


def block_bytes(size):
    '''Bytes in a dd size such as ``1M``; a bad size is a clear error.'''
    return size_bytes(size, 'dd block size', 'dd')


def dd_record(step):
    '''``(bytes, seconds)`` from dd's summary in a step, or ``None``.'''
    m = _RECORD.search(step.text)
    return (int(m.group(1)), float(m.group(2))) if m else None


def check_steps(text, file_bytes, expected, memory_bytes=None):
    '''``(steps, overhead)``: the ``expected`` dd steps of a job's output,
    each moving ``file_bytes`` (a memory copy ``memory_bytes`` if given),
    checked; ``overhead`` is the calibrated start-up.'''
    found = JobSteps(text, lambda s: (dd_record(s) or (0, 0.0))[1])
    if len(found) != expected:
        raise SanityError(f'expected {expected} dd runs, found {len(found)}')
    for step in found:
        what = f'dd {step["op"]} (repetition {step["rep"]})'
        record = dd_record(step)
        nbytes = memory_bytes if step['op'] == 'memory' and memory_bytes \
            else file_bytes
        if record is None:
            raise SanityError(f'{what} printed no summary')
        if record[0] != nbytes:
            raise SanityError(f'{what} moved {record[0]} bytes, expected '
                              f'{nbytes}')
        if record[1] <= 0:
            raise SanityError(f'{what} reported {record[1]} s: too fast to '
                              f'time')
        # A trace counts what dd reads and what it writes
        found.held(step, [record[1]], nbytes, 2 * nbytes, what)
        if step['op'] == 'write':
            found.on_disk(step, file_bytes, what)
    return list(found), found.overhead
