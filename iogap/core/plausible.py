'''Is a tool's figure plausible? Its timing held to the harness's clock,
both ways within the resolution calibration measures, and to the trace of
its bytes (:mod:`iogap.core.traced`); a write's bytes to those on disk.'''

from reframe.core.exceptions import SanityError

from iogap.core.traced import TRACE_MARGIN, check_traced, rate

#: How much more than the harness saw a tool's figure may claim
TOLERANCE = 1.5
#: The same, launched: IOR removes files and verifies outside its timer
#: (measured: 0.079 s for three 128 MiB writes, 0.235 s over start-up)
LAUNCHED_TOLERANCE = 4.0
#: A launch's start-up varies by this share of itself between launches
LAUNCH_JITTER = 0.25
#: The resolution of a process's CPU time (USER_HZ ticks)
CPU_TICK = 0.01
#: Calibration runs per job: the least and most start-up cost they show
CALIBRATIONS = 5


class Overhead:
    '''What the harness adds to a tool's time (steps moving no data show
    it); its spread, 10 ms at least (a loaded node), is the resolution.'''

    def __init__(self, seconds):
        self.min, self.max = min(seconds), max(seconds)
        # A few calibrations understate a launch's variation: mpirun's
        # 0.31-0.40 s varied by a quarter between launches of one job
        self.resolution = max(self.max - self.min, 0.010,
                              LAUNCH_JITTER * self.min)

    def __str__(self):
        return f'{self.min:.6f}-{self.max:.6f} s'


def calibration(found, tool_seconds):
    '''``(Overhead, other steps)``: the start-up ``calibrate`` steps show.'''
    calib = [s for s in found if 'calibrate' in s.labels]
    if not calib or any(s.seconds is None for s in calib):
        raise SanityError('the harness recorded no calibration of its step '
                          'wrapper: no figure can be checked against its '
                          'clock')
    costs = [max(s.seconds - tool_seconds(s), 0.0) for s in calib]
    return Overhead(costs), [s for s in found if 'calibrate' not in s.labels]


def check_clock(claimed, wall, what, overhead, nbytes, waited=None,
                cpu=None, lower=True, tolerance=TOLERANCE):
    '''Sanity: a tool's time fits the step, its rate at most ``tolerance``
    times the step's less start-up and CPU wait, and its ``cpu`` time.'''
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
            f'{what}: the tool reports {rate(nbytes, claimed)} ({claimed:.6f}'
            f' s for {nbytes} bytes) but the harness saw '
            f'{rate(nbytes, seen)} ({wall:.6f} s step, {overhead} of '
            f'start-up{load}): its figure is not plausible')


def check_step(claimed, step, what, overhead, nbytes, block,
               last_only=False, tolerance=TOLERANCE, in_shell=True,
               margin=TRACE_MARGIN):
    '''Sanity: ``claimed`` seconds per iteration held to trace and clock.'''
    traces = [t for t in step.traces if t]
    held = bool(traces) and check_traced(claimed, traces, block, what,
                                         nbytes, last_only, margin)
    check_clock(sum(claimed), step.seconds, what, overhead,
                nbytes * len(claimed), step.waited,
                step.cpu if in_shell and not traces else None,
                lower=not held, tolerance=tolerance)


def check_disk(step, expected, what, slack=0):
    '''Sanity: a write left its bytes on disk (``slack`` more at most).'''
    disk = step.disk
    if disk is None:
        raise SanityError(f'{what}: the harness recorded no file size')
    # Not allocation: compressing file systems store zeros in nothing
    length, allocated = disk
    if not expected <= length <= expected + slack:
        raise SanityError(f'{what}: {expected} bytes were written but the '
                          f'files hold {length} bytes ({allocated} '
                          f'allocated)')
