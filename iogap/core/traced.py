'''The harness's trace of when a tool's bytes moved (iotrace.py, the
``iogap-rank-io`` lines of each rank), held against the time the tool
claims for each iteration: it cannot be shorter than the stretch in which
its bytes surely moved, and its bytes must show in the trace at all.'''

from reframe.core.exceptions import SanityError

#: Bytes a rank may move outside its data, after it (a tool's summary, a
#: wrapper's, Darshan's log): a traced stretch keeps this far from either
#: end of an iteration's bytes
TRACE_MARGIN = 256 * 2**10

#: Samples a trace keeps over the bytes it expects, at most: its quantum
TRACE_SAMPLES = 50

#: How far a tool's time may fall short of a traced stretch: the ranks'
#: timers against the tracer's (seconds), and a share for the samples'
#: own timing
TRACE_SLACK, TRACE_TOLERANCE = 0.0002, 1.1


def rate(nbytes, seconds):
    '''``nbytes`` over ``seconds`` in words.'''
    return f'{nbytes / seconds / 1e6:.6g} MB/s' if seconds > 0 else \
        'an infinite rate'


def trace_quantum(nbytes):
    '''The bytes between samples a trace of ``nbytes`` keeps.'''
    return max(nbytes // TRACE_SAMPLES, 4096)


def traced_stretch(trace, block, back, margin=TRACE_MARGIN):
    '''``(seconds, bytes)``: a stretch of one rank's trace during which it
    surely moved the data of one iteration, ``back`` iterations before its
    last (0: the last), each ``block`` bytes and the rank's last data. The
    stretch runs from the first sample past the iteration's first bytes to
    the last sample short of its last ones: the tool was inside the
    iteration throughout, so its own time of the iteration cannot be
    shorter. Samples too sparse to show one (a copy over before the first
    sample) give a stretch of 0 s.'''
    end = trace[-1][1]
    lo = end - (back + 1) * block + margin
    hi = end - back * block - margin
    # Past lo by the time it was read; still short of hi when the read began
    first = next((after for _, moved, after in trace if moved > lo), None)
    last = max((before for before, moved, _ in trace if moved < hi),
               default=None)
    if first is None or last is None:    # over before a sample showed it
        return 0.0, hi - lo
    return max(last - first, 0.0), hi - lo


def held_iterations(claimed, traces, block, last_only=False,
                    margin=TRACE_MARGIN):
    '''Each iteration the traces hold (with ``last_only``, ranks moving
    unequal shares as collective I/O's aggregators do, the last only):
    ``(index, claimed seconds, bytes that must have moved by its end, the
    most any trace moved, the longest stretch of a trace that moved them
    or None)``.'''
    # A trace counts from the tool's start: a new process's bytes are 0
    moved = [t[-1][1] for t in traces]
    for i, told in enumerate(claimed):
        back = len(claimed) - 1 - i
        if last_only and back:
            continue
        least = block * (len(claimed) if last_only else back + 1)
        found = [traced_stretch(t, block, back, margin)
                 for t, m in zip(traces, moved) if m >= least]
        yield i, told, least, max(moved), max(found) if found else None


def check_traced(claimed, traces, block, what, nbytes, last_only=False,
                 margin=TRACE_MARGIN):
    '''Sanity: the time a tool claims for each iteration (``claimed``, in
    order) is no shorter than the stretch of any rank's trace (``traces``)
    during which that rank surely moved the iteration's ``block`` bytes,
    and some trace shows those bytes at all (:func:`held_iterations`).
    ``False`` where blocks are too small to trace (the clock's bound must
    then hold from below too).'''
    if block <= 2 * TRACE_MARGIN:
        return False
    for i, told, least, most, stretch in held_iterations(
            claimed, traces, block, last_only):
        step = what if len(claimed) == 1 else f'{what} (iteration {i + 1})'
        if stretch is None:
            raise SanityError(
                f'{step}: {least} bytes (read and written) must have moved '
                f'by its end, but the harness traced at most {most} in any '
                f'of its processes: its figure is not plausible')
        seconds, moved = stretch
        if told < (seconds - TRACE_SLACK) / TRACE_TOLERANCE:
            raise SanityError(
                f'{step}: the tool reports {rate(nbytes, told)} ({told:.6f} '
                f's for {nbytes} bytes) but the harness saw at most '
                f'{rate(nbytes, seconds)} (traced: {moved} of {block} '
                f'bytes moving for {seconds:.6f} s): its figure is not '
                f'plausible')
    return True
