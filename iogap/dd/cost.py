'''What a dd case costs before it runs (the planner's model of it, found
by :mod:`iogap.plan.cost`): one stream on one node, and beside its I/O the
memory copy every repetition runs as its control.'''

from iogap.core import size_bytes
from iogap.dd.control import control_count
from iogap.dd.figures import BW, MEMORY_BW

#: The figure whose absolute references give a case's bandwidth
BANDWIDTH = BW.name(pattern='write')

#: The figure whose absolute references give its control's bandwidth
#: (else the partition's ``plan_memory_bandwidth``)
CONTROL_BANDWIDTH = MEMORY_BW.name()

#: The profile setting that sizes each family's transfer (re-baselining's
#: advice)
SIZE = {'DDSingleStream': 'dd_count'}


def geometry(case):
    '''``(nodes, tasks, bytes written, bytes moved)``: each repetition
    writes its file and reads it once, then three times.'''
    x = case.part.extras
    size = size_bytes(x['dd_block_size']) * x['dd_count']
    reps = x['repetitions']
    return 1, 1, size * reps, size * reps * 4


def control_bytes(case):
    '''Bytes the case's memory copies move in all: one a repetition, of
    the profile's ``dd_control_size`` (at least the file).'''
    x = case.part.extras
    block = size_bytes(x['dd_block_size'])
    return block * control_count(block, x['dd_count'],
                                 x['dd_control_size']) * x['repetitions']
