'''What a dd case costs before it runs (the planner's model of it, found
by :mod:`iogap.plan.cost`): one stream on one node.'''

from iogap.core.variants import size_bytes
from iogap.dd.figures import BW

#: The figure whose absolute references give a case's bandwidth
BANDWIDTH = BW.name(pattern='write')


def geometry(case):
    '''``(nodes, tasks, bytes written, bytes moved)``: each repetition
    writes its file and reads it once, then three times.'''
    x = case.part.extras
    size = size_bytes(x['dd_block_size']) * x['dd_count']
    reps = x['repetitions']
    return 1, 1, size * reps, size * reps * 4
