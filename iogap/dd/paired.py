'''The paired figure: each repetition's I/O bandwidth over the bandwidth
of the memory copy the same repetition ran just before it.

The memory copy shares what the node was doing at that moment (its load,
clock and neighbours); the ratio divides most of that out, so the figure
varies less between nights than the bandwidth alone does.
bench/paired.py measured which summary of the repetitions varies least
between sessions: the geometric mean of the per-repetition ratios varied
as little as their maximum for direct write and less for direct read-once
and cached re-read (18 sessions on a shared 2-core VM, 5 repetitions: CV
36, 27 and 14 % against 36, 39 and 20 %), so it is the one used.
'''

import math

from iogap.errors import IogapError


def ratios(io, memory):
    '''``[io / memory]`` per repetition: ``io`` and ``memory`` map a
    repetition to its bandwidths; a repetition missing from either, or a
    bandwidth that is not positive, is an error.'''
    if set(io) != set(memory) or not io:
        raise IogapError(f'paired figure: the I/O steps ran in repetitions '
                         f'{sorted(io)} and the memory copies in '
                         f'{sorted(memory)}; each needs both')
    bad = [f'{what} {r}: {v}' for what, got in (('I/O', io),
                                                 ('memory', memory))
           for r, v in got.items() if not v > 0]
    if bad:
        raise IogapError(f'paired figure: bandwidths not positive '
                         f'(repetition: MB/s): {", ".join(bad)}')
    return [io[r] / memory[r] for r in sorted(io)]


def geometric_mean(values):
    '''The geometric mean of positive ``values``.'''
    return math.exp(sum(math.log(v) for v in values) / len(values))


def paired(io, memory):
    '''The paired figure: geometric mean of :func:`ratios`.'''
    return geometric_mean(ratios(io, memory))
