'''Slowdowns injected for real through cgroup v1: blkio throttling of the
scratch device, a CPU quota.'''

import os
import subprocess
import sys
import time

CGROUP = '/sys/fs/cgroup'
NAME = f'iogap-bench-{os.getpid()}'


def unavailable(knobs=(('blkio', 'blkio.throttle.write_bps_device'),
                       ('cpu', 'cpu.cfs_quota_us'))):
    '''``{controller: why it cannot be used}`` for those missing here.'''
    return {c: f'{os.path.join(CGROUP, c, k)} is not writable here (cgroup '
               f'v1 {c} needed)' for c, k in knobs
            if not os.access(os.path.join(CGROUP, c, k), os.W_OK)}


def make(controller, limits):
    '''The bench's cgroup of one controller, with ``limits`` written.'''
    path = os.path.join(CGROUP, controller, NAME)
    os.makedirs(path, exist_ok=True)
    for knob, value in limits.items():
        with open(os.path.join(path, knob), 'w') as fp:
            fp.write(str(value))
    return path


#: The blkio throttle's slice (the kernel's throtl_slice, HZ/10): a
#: throttled step's duration is quantized to it (caps of 180 and 190 MB/s
#: gave the same 1.379 s for 256 MiB), and no fixed correction removes that
SLICE = 0.1

#: A throttled step lasts at least this long, so its slice error is at
#: most ``SLICE / MIN_STEP`` (2 %)
MIN_STEP = 5.0


class ShortStep(ValueError):
    '''A throttled step too short for its slice.'''


def throttle_rate(target, step_bytes):
    '''The blkio cap under which a step of ``step_bytes`` runs at about
    ``target`` bytes/s: the target itself, the step refused
    (:class:`ShortStep`) when it would last under :data:`MIN_STEP`. Its
    duration is still quantized by the slice (by up to ``SLICE`` / its
    duration): :func:`on_slices` removes that.'''
    seconds = step_bytes / target
    if seconds < MIN_STEP:
        raise ShortStep(
            f'a {step_bytes / 2**20:.0f} MiB step at {target / 1e6:.0f} MB/s '
            f'lasts {seconds:.2f} s: the blkio slice ({SLICE} s) quantizes '
            f'it by up to {SLICE / seconds:.0%}; make it last at least '
            f'{MIN_STEP:.0f} s (a larger step or a lower cap)')
    return target


def on_slices(target, seconds, offset=0.0, unit=2**20):
    '''``(step bytes, cap)``: a step of about ``seconds`` that runs at
    ``target`` bytes/s under the cap, its quantization removed. Measured
    on zram (bench/caprate.py), a throttled step lasts a whole number of
    slices plus ``offset`` (``0.1 * floor(bytes / cap / 0.1) - 0.007`` s,
    0.009 s SD): so the step is ``k`` slices plus ``offset`` long, its
    bytes (whole ``unit``) are the target rate times that, and the cap sets
    it mid-slice, half a slice from either edge.'''
    k = round((seconds - offset) / SLICE)
    duration = k * SLICE + offset
    if duration < MIN_STEP:
        raise ShortStep(f'a step of {duration:.2f} s: at least {MIN_STEP} s')
    size = round(target * duration / unit) * unit
    return size, size / ((k + 0.5) * SLICE)


def device(root):
    '''``major:minor`` of the device ``root`` lives on.'''
    dev = os.stat(root).st_dev
    return f'{os.major(dev)}:{os.minor(dev)}'


def slowdown(rates, cpu, root):
    '''Cgroups that cap the scratch device at ``rates`` (``{'write'|'read':
    bytes/s}``) and the CPU at ``1 - cpu`` of one CPU (a 10 ms period, the
    shortest whose quota can be under 1 ms short of it: the quota bites
    within a short step); none for what is not asked.'''
    groups = []
    if rates:
        dev = device(root)
        groups.append(make('blkio', {
            f'blkio.throttle.{way}_bps_device': f'{dev} {int(rate)}'
            for way, rate in rates.items()}))
    if cpu:
        groups.append(make('cpu', {
            'cpu.cfs_period_us': 10000,
            'cpu.cfs_quota_us': int(10000 * (1 - cpu))}))
    return groups


def enter(groups):
    '''Move the calling process into ``groups`` (a ``preexec_fn``).'''
    for group in groups:
        with open(os.path.join(group, 'cgroup.procs'), 'w') as fp:
            fp.write(str(os.getpid()))


def reframe_in(groups, root, scratch, out, tag, *args):
    '''``reframe -C reframe_config.py *args -r`` from checkout ``root``,
    inside ``groups``, with ``scratch`` as its scratch root, writing under
    ``out/tag``; says how long it took.'''
    env = dict(os.environ, IOGAP_OUTPUT=os.path.join(out, tag),
               IOGAP_SCRATCH=scratch, RFM_COLORIZE='n')
    start = time.time()
    subprocess.run([os.path.join(root, '.venv', 'bin', 'reframe'), '-C',
                    'reframe_config.py', *args, '-r'], cwd=root, env=env,
                   preexec_fn=lambda: enter(groups),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print(f'{tag}: {time.time() - start:.0f} s', file=sys.stderr)


def remove(groups):
    for group in groups:
        try:
            os.rmdir(group)
        except OSError as err:    # a process left behind: said, not fatal
            print(f'cgroup {group} not removed: {err}')
