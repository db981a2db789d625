'''Is a tool's figure plausible? Its own timing held to the harness's
clock (both ways, within the resolution the calibration steps measure)
and to the harness's trace of when each rank's bytes moved
(:mod:`iogap.core.traced`), and the bytes a write left on disk to those
it wrote.'''

from reframe.core.exceptions import SanityError

from iogap.core.traced import TRACE_MARGIN, check_traced, rate

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
            f'{what}: the tool reports {rate(nbytes, claimed)} ({claimed:.6f}'
            f' s for {nbytes} bytes) but the harness saw '
            f'{rate(nbytes, seen)} ({wall:.6f} s step, {overhead} of '
            f'start-up{load}): its figure is not plausible')


def check_step(claimed, step, what, overhead, nbytes, block,
               last_only=False, tolerance=TOLERANCE, in_shell=True,
               margin=TRACE_MARGIN):
    '''Sanity: the seconds a tool claims for each iteration of a step
    (``claimed``, each moving ``nbytes``; per rank ``block`` bytes, as the
    trace counts them), held where the step was traced to the traces
    (:func:`check_traced`) and to the harness's clock as an upper bound;
    untraced (a node without python3) or too small to trace, to the clock
    both ways and, for a tool run in the step's shell (``in_shell``), to
    its CPU time. ``margin``: bytes outside the data at each end of an
    iteration (:func:`check_traced`).'''
    traces = [t for t in step.traces if t]
    held = bool(traces) and check_traced(claimed, traces, block, what,
                                         nbytes, last_only, margin)
    check_clock(sum(claimed), step.seconds, what, overhead,
                nbytes * len(claimed), step.waited,
                step.cpu if in_shell and not traces else None,
                lower=not held, tolerance=tolerance)


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
