'''A figure paired with a control run beside it in the same job: figure /
control divides out what the node did at that moment (load, clock,
neighbours), so ``<figure>_paired`` varies less between nights.'''

import math

from iogap.errors import IogapError


class Control:
    '''What a family pairs, in the words its errors use: ``Control('I/O
    steps', 'memory copies', ('I/O', 'memory'), 'bandwidths', 'MB/s')``.'''

    def __init__(self, measured, control, short, quantity, unit):
        self.measured, self.control = measured, control
        self.short, self.quantity, self.unit = short, quantity, unit

    def ratios(self, measured, control):
        '''``[measured / control]`` per repetition: both, and positive.'''
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
    return math.exp(sum(math.log(v) for v in values) / len(values))
