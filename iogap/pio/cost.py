'''IOR's and mdtest's cost model (:mod:`iogap.plan.cost`).'''

from iogap.core import size_bytes
from iogap.pio.base import node_sweep, ppn_sweep
from iogap.pio.pair import contrasts
from iogap.pio.figures import BW

BANDWIDTH = BW.name(phase='write')
#: The family whose cases move metadata, not bytes
MDTEST = 'MDTestBench'
#: The profile setting that sizes each family's transfer (re-baselining)
SIZE = {'IORBench': 'ior_block_size', 'IORCollective': 'ior_block_size',
        'IORFrequencySweep': 'ior_block_size', 'IORAffinity': 'ior_block_size',
        'IORPair': 'ior_block_size',
        'MDTestBench': 'mdtest_files_per_proc'}


def _shape(case):
    '''``(nodes, processes per node)`` of an IOR case.'''
    p, x = case.params, case.part.extras
    if case.family == 'IORCollective':
        return (x['ior_collective_nodes'] or max(node_sweep(case.part)),
                x['ior_collective_ppn'] or max(
                    ppn_sweep(case.part, p.get('core_spec', 0))))
    if case.family == 'IORAffinity':
        return 1, x['affinity_tasks']
    if case.family == 'IORPair':
        return contrasts(case.part)[p['pair']][3]
    return p['num_nodes'], p['procs_per_node']


def geometry(case):
    '''``(nodes, tasks, bytes written, bytes moved)``.'''
    p, x = case.params, case.part.extras
    reps = x['repetitions']
    if case.family == MDTEST:
        nodes, tasks = p['num_nodes'], p['num_nodes'] * p['procs_per_node']
        data = tasks * x['mdtest_files_per_proc'] * x['mdtest_file_bytes']
        return nodes, tasks, data * reps, data * reps * 2
    nodes, ppn = _shape(case)
    data = nodes * ppn * size_bytes(x['ior_block_size'])
    if case.family == 'IORPair':
        # two sides: each repetition's write and reads, one verification
        reads = contrasts(case.part)[p['pair']][2]
        return nodes, nodes * ppn, 2 * data * reps, \
            2 * data * (reps * (1 + reads) + 1)
    # the writes, a verification and three read passes
    return nodes, nodes * ppn, data * reps, data * (reps + 4)


def estimate(case):
    '''An mdtest case's ``(wall seconds, how)`` at the partition's
    ``plan_mdtest_rate``; ``None`` for IOR's (their bytes' bandwidth).'''
    if case.family != MDTEST:
        return None
    x = case.part.extras
    ops = x['mdtest_files_per_proc'] * 4 * x['repetitions']
    return x['plan_start_seconds'] + ops / x['plan_mdtest_rate'], \
        'estimate: metadata ops'
