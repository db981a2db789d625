'''dd's cost model (:mod:`iogap.plan.cost`): one stream on one node, and
the memory copy each repetition runs as its control.'''

from iogap.core import size_bytes
from iogap.dd.control import control_count
from iogap.dd.figures import BW, MEMORY_BW

BANDWIDTH = BW.name(pattern='write')
CONTROL_BANDWIDTH = MEMORY_BW.name()
#: The profile setting that sizes each family's transfer (re-baselining)
SIZE = {'DDSingleStream': 'dd_count'}


def geometry(case):
    '''``(nodes, tasks, bytes written, bytes moved)``: each repetition
    writes its file and reads it once, then three times.'''
    x = case.part.extras
    size = size_bytes(x['dd_block_size']) * x['dd_count']
    reps = x['repetitions']
    return 1, 1, size * reps, size * reps * 4


def control_bytes(case):
    '''Bytes the case's memory copies move in all, one a repetition.'''
    x = case.part.extras
    block = size_bytes(x['dd_block_size'])
    return block * control_count(block, x['dd_count'],
                                 x['dd_control_size']) * x['repetitions']
