'''The node sweep: the single-node canaries once on each node of the
partitions with ``sweep_nodes`` (``--distribute``), counted against the
budget with the canaries. It measures, never judges: its runs are named
after their nodes, so no judgement reads them.'''


def nodes(case):
    '''Nodes a sweep of ``case``'s partition covers, or ``None``.'''
    return case.part.extras.get('sweep_nodes')


def _swept(selects, variants, cases, costs):
    '''``(variant, key)`` of the swept single-node cases of ``selects``.'''
    for sel in selects:
        for key in variants.get(sel, []):
            if costs[key].nodes == 1 and nodes(cases[key]):
                yield sel, key


def usage(selects, variants_, cases, costs):
    '''``{partition: node-hours, 'wall': seconds}`` of sweeping.'''
    used = {'wall': 0.0}
    for _, key in _swept(selects, variants_, cases, costs):
        count, cost = nodes(cases[key]), costs[key]
        used[key[1]] = used.get(key[1], 0) + count * cost.node_hours
        used['wall'] += count * cost.seconds
    return used


def summary(selects, plan):
    '''``{partition: {variants, nodes, node_hours, wall_seconds}}``.'''
    found = {}
    for sel, key in _swept(selects, plan.variants, plan.cases, plan.costs):
        count, cost = nodes(plan.cases[key]), plan.costs[key]
        row = found.setdefault(key[1], {'variants': [], 'nodes': count,
                                        'node_hours': 0, 'wall_seconds': 0})
        row['variants'] = sorted({*row['variants'], sel})
        row['node_hours'] += count * cost.node_hours
        row['wall_seconds'] += count * cost.seconds
    return {part: dict(row, node_hours=round(row['node_hours'], 3),
                       wall_seconds=round(row['wall_seconds'], 1))
            for part, row in sorted(found.items())}
