'''A figure paired with a control: each repetition's figure over the
control the same repetition ran beside it, in the same job, summarised
over the repetitions by their geometric mean.

The control shares what the node (or the nodes) did at that moment: load,
clock, neighbours. The ratio divides most of that out, so the paired
figure varies less between nights than the figure alone. Families name
theirs ``<figure>_paired`` (dd: an I/O pattern over a memory copy; OSU:
inter-node over intra-node latency), so that tools find them.
'''

import math

from iogap.errors import IogapError


class Control:
    '''What a family pairs, in the words its errors use: ``Control('I/O
    steps', 'memory copies', ('I/O', 'memory'), 'bandwidths', 'MB/s')``.'''

    def __init__(self, measured, control, short, quantity, unit):
        self.measured, self.control = measured, control
        self.short, self.quantity, self.unit = short, quantity, unit

    def ratios(self, measured, control):
        '''``[measured / control]`` per repetition, in repetition order:
        both map a repetition to its figure; a repetition missing from
        either, or a figure that is not positive, is an error.'''
        if set(measured) != set(control) or not measured:
            raise IogapError(f'paired figure: the {self.measured} ran in '
                             f'repetitions {sorted(measured)} and the '
                             f'{self.control} in {sorted(control)}; each '
                             f'needs both')
        bad = [f'{what} {r}: {v}' for what, got in
               zip(self.short, (measured, control))
               for r, v in got.items() if not v > 0]
        if bad:
            raise IogapError(f'paired figure: {self.quantity} not positive '
                             f'(repetition: {self.unit}): {", ".join(bad)}')
        return [measured[r] / control[r] for r in sorted(measured)]

    def paired(self, measured, control):
        '''The paired figure: the geometric mean of :meth:`ratios`.'''
        return geometric_mean(self.ratios(measured, control))


def geometric_mean(values):
    '''The geometric mean of positive ``values``.'''
    return math.exp(sum(math.log(v) for v in values) / len(values))
