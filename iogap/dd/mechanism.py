'''What each dd step did to the page cache and the scratch device, seen
directly: its ``iogap-io`` line (bytes the device read and wrote, bytes dd
fetched) and a write's ``iogap-bytes`` (bytes left in the page cache), as
shares of the file, each the median of the repetitions.'''

import statistics

from reframe.core.exceptions import SanityError

from iogap.core import Figure

STEPS = ('write', 'read_once', 'read_3x')
DEVICE = Figure('{pattern}_device_{way}_bytes', 'B', better=None,
                pattern=STEPS, way=('read', 'written'))
FETCHED = Figure('{pattern}_fetched_bytes', 'B', better=None, pattern=STEPS)
# Written by the device during the write (a floor: other writers only add
# to it); left in the page cache by the write (all of it if O_DIRECT fell
# back to the cache); fetched by the first read; the least a re-read
# fetched (dd's own count, immune to other processes' I/O)
SHARE = Figure('{what}_share', '%', better=Figure.OBSERVED, what=(
    'write_device', 'write_resident', 'read_once_fetched', 'reread_fetched'))
FIGURES = (DEVICE, FETCHED, SHARE)


def _ops(pattern, reads):
    return {'write': ['write'], 'read_once': ['read1'],
            'read_3x': [f'read{p}' for p in range(1, reads + 1)],
            'reread': [f'read{p}' for p in range(2, reads + 1)]}[pattern]


def _per_rep(found, ops, get, over=statistics.fmean):
    '''Median over repetitions of ``over`` (the mean) of ``get(step)``
    for the steps ``ops``.'''
    reps = {}
    for step in found:
        if step['op'] in ops:
            reps.setdefault(step['rep'], []).append(get(step))
    return statistics.median(over(v) for v in reps.values())


def observe(found, nbytes, device, reads):
    '''``({name: (value, unit)}, {name: reason})``: the figures of the
    steps ``found`` (each moving ``nbytes``), and why a share cannot be
    observed here (``device``: :meth:`iogap.core.JobSteps.device`).'''
    for step in found:
        if step.io is None:
            raise SanityError(f'dd {step["op"]} (repetition {step["rep"]}): '
                              f'the harness recorded no I/O counters')
    shares = ['write_device', 'write_resident'] + \
        ['read_once_fetched'] * bool(reads) + ['reread_fetched'] * (reads > 1)
    why = no_device(device)
    if why:
        return {}, {SHARE.name(what=s): why for s in shares}
    figures = _moved(found, reads)
    return figures, _shares(figures, found, nbytes, reads, shares[2:])


def _moved(found, reads):
    '''The bytes the device read and wrote and dd fetched, per pattern.'''
    figures = {}
    for pattern in (p for p in STEPS if reads or p == 'write'):
        ops = _ops(pattern, reads)
        for way in ('read', 'written'):
            figures[DEVICE.name(pattern=pattern, way=way)] = (_per_rep(
                found, ops, lambda s: s.io[f'device_{way}']), 'B')
        if all(s.io['fetched'] is not None for s in found):
            figures[FETCHED.name(pattern=pattern)] = (_per_rep(
                found, ops, lambda s: s.io['fetched']), 'B')
    return figures


def _shares(figures, found, nbytes, reads, fetched):
    '''Add the write's shares and the reads' ``fetched`` ones to
    ``figures``; return ``{name: reason}`` of those not observable here.'''
    missing = {}

    def share(name, ops, get):
        # The least any re-read fetched: one whose pages another process
        # evicted (a neighbour's drop_caches) does not hide the others
        figures[SHARE.name(what=name)] = (100 * _per_rep(
            found, ops, get, min if name == 'reread_fetched' else
            statistics.fmean) / nbytes, '%')

    share('write_device', ['write'], lambda s: s.io['device_written'])
    writes = [s for s in found if s['op'] == 'write']
    if all(s.resident is not None for s in writes):
        share('write_resident', ['write'], lambda s: s.resident)
    else:
        missing[SHARE.name(what='write_resident')] = \
            'fincore is not installed: the page cache cannot be read'
    for name in fetched:
        if FETCHED.name(pattern='write') in figures:
            share(name, _ops(name.rsplit('_', 1)[0], reads),
                  lambda s: s.io['fetched'])
        else:
            missing[SHARE.name(what=name)] = \
                'the kernel keeps no per-process I/O accounting ' \
                '(/proc/<pid>/io)'
    return missing


def no_device(device):
    '''Why the steps' device counters say nothing here, or ``None``.'''
    if device is None:
        return 'the job did not look for the scratch device'
    name, majmin, kind = device
    if name == 'none':
        return (f'the scratch root is on {kind} (device {majmin}), with no '
                f'block device of its own whose I/O could be counted')
    return None
