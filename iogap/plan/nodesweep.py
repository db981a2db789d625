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


def variants(selects, plan):
    '''``{partition: [Check@N, ...]}`` a sweep of ``selects`` runs.'''
    found = {}
    for sel, key in _swept(selects, plan.variants, plan.cases, plan.costs):
        found.setdefault(key[1], set()).add(sel)
    return {part: sorted(sels) for part, sels in sorted(found.items())}


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
    for part, sels in variants(selects, plan).items():
        used = usage(sels, {s: [k for k in plan.variants[s] if k[1] == part]
                            for s in sels}, plan.cases, plan.costs)
        some = next(k for s in sels for k in plan.variants[s]
                    if k[1] == part)
        found[part] = {'variants': sels, 'nodes': nodes(plan.cases[some]),
                       'node_hours': round(used.get(part, 0), 3),
                       'wall_seconds': round(used['wall'], 1)}
    return found
