'''What an OSU case costs before it runs (the planner's model of it,
found by :mod:`iogap.plan.cost`): a fixed time per case, no bytes.'''

#: The partition's extras the estimate takes, and whose they are, as
#: docs/budget.md says them
SAID = {'plan_osu_seconds': 'OSU cases'}


def geometry(case):
    '''``(nodes, tasks, bytes written, bytes moved)``: a node per rank
    where the ranks are placed on nodes of their own.'''
    p = case.params
    nodes = p.get('num_nodes') or (2 if p.get('placement') == 'inter_node'
                                   else 1)
    return nodes, nodes, 0, 0


def estimate(case):
    '''``(wall seconds, how)``: the partition's ``plan_osu_seconds``.'''
    return case.part.extras['plan_osu_seconds'], 'estimate: OSU fixed'
