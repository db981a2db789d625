'''fio's cost model (:mod:`iogap.plan.cost`): a file read for a time.'''

from iogap.core import size_bytes

#: The profile setting that sizes each family's transfer (re-baselining)
SIZE = {'FioThreads': 'fio_file_size'}


def geometry(case):
    '''``(nodes, tasks, bytes written, bytes moved)``: its file, laid
    out once.'''
    size = size_bytes(case.part.extras['fio_file_size'])
    return 1, 1, size, size


def estimate(case):
    '''``(wall seconds, how)``: start-up and fio's own runtime, both
    sides of each repetition.'''
    x = case.part.extras
    return x['plan_start_seconds'] + 2 * x['repetitions'] * \
        x['fio_runtime'], 'estimate: fio runtime'
