'''OSU's cost model (:mod:`iogap.plan.cost`): a fixed time per run.'''

from iogap.osu import control

#: The partition's extras the estimate takes, as the budget page says them
SAID = {'plan_osu_seconds': 'each measured OSU run (a paired case runs '
                            'two a repetition)'}


def geometry(case):
    '''``(nodes, tasks, bytes written, bytes moved)``: a node per rank
    where the ranks are placed on nodes of their own.'''
    p = case.params
    nodes = p.get('num_nodes') or (2 if p.get('placement') == 'inter_node'
                                   else 1)
    return nodes, nodes, 0, 0


def estimate(case):
    '''``(wall seconds, how)``: ``plan_osu_seconds`` per measured run
    (a paired case runs two a repetition).'''
    x = case.part.extras
    runs = len(control.runs(case.params, case.part, x['repetitions'])) \
        if case.family in ('OSULatency', 'OSUAlltoall') else 1
    return x['plan_osu_seconds'] * runs, f'estimate: OSU fixed x {runs} run(s)'
