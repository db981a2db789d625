'''A tool's claimed time per iteration held to the harness's trace of its
bytes (iotrace.py): no shorter than the stretch in which its bytes surely
moved, and its bytes must show in the trace at all.'''

from reframe.core.exceptions import SanityError

#: Bytes a rank may move outside its data (a tool's summary, a wrapper's,
#: Darshan's log): a traced stretch keeps this far from either end
TRACE_MARGIN = 256 * 2**10
#: Samples a trace keeps over the bytes it expects, at most
TRACE_SAMPLES = 50
#: How far a tool's time may fall short of a traced stretch: the ranks'
#: timers against the tracer's (seconds), and a share for the sampling
TRACE_SLACK, TRACE_TOLERANCE = 0.0002, 1.1


def rate(nbytes, seconds):
    return f'{nbytes / seconds / 1e6:.6g} MB/s' if seconds > 0 else \
        'an infinite rate'


def trace_quantum(nbytes):
    return max(nbytes // TRACE_SAMPLES, 4096)


def traced_stretch(trace, block, back, margin=TRACE_MARGIN):
    '''``(seconds, bytes)`` of a rank's trace surely inside iteration ``back``
    before the last: the tool's time of it cannot be shorter.'''
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
    '''``(index, claimed, bytes due, most moved, longest stretch or None)``
    per iteration (``last_only``: unequal ranks, as aggregators).'''
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
    '''Sanity: claimed times fit the traces; ``False``: too small to trace.'''
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
