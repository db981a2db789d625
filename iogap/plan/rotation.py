'''The rotation: the groups of variants that run together, packed into
the fewest nights that hold what the canaries leave.'''

from iogap.errors import IogapError
from iogap.plan.budget import usage


def groups(variants, judgements, needs, canaries):
    '''Sets of variants that run together, less the canaries.'''
    canary = set(canaries)
    parent = {s: s for s in variants}
    parent.update({j.select: j.select for j in judgements})

    def root(s):
        while parent[s] != s:
            parent[s] = s = parent[parent[s]]
        return s
    for j in judgements:
        if j.select in canary:
            continue
        # a canary runs every night: it ties no two judgements together
        for s in needs[j.select]:
            if s not in canary:
                parent[root(s)] = root(j.select)
    groups = {}
    for s in parent:
        if s not in canary:
            groups.setdefault(root(s), []).append(s)
    return sorted(sorted(g) for g in groups.values())


def rotate(groups, base, variants, costs, budget):
    '''``(length, nights)`` of the groups beside the canaries' ``base``.'''
    room = budget.load(base)
    if room > 1:
        raise IogapError(f'the canaries alone take {room:.0%} of the '
                         f'budget ({budget.describe()})')
    sized = sorted(((usage(g, variants, costs), g) for g in groups),
                   key=lambda u: (-budget.load(u[0]), u[1]))
    for used, group in sized:
        if budget.load(add(used, base)) > 1:
            raise IogapError(
                f'{group[0]} and the {len(group) - 1} variant(s) it must '
                f'run with need {budget.load(used):.0%} of the budget '
                f'({budget.describe()}), the canaries {room:.0%}: '
                f'raise the budget')
    total = {}
    for used, _ in sized:
        total = add(total, used)
    # no fewer nights than the rotation's load over what is left
    spare = 1 - room
    length = max(1, int(budget.load(total) / spare)) if spare > 0 else 1
    # a night each always fits (each group fits beside the canaries)
    while length <= max(len(sized), 1):
        nights = _pack(sized, length, budget, base)
        if nights is not None:
            return length, nights
        length += 1
    raise IogapError(f'no rotation of {len(sized)} group(s) fits the budget '
                     f'({budget.describe()})')


def add(a, b):
    '''Two usages (``{partition: node-hours, 'wall': seconds}``) summed.'''
    return {k: a.get(k, 0) + b.get(k, 0) for k in set(a) | set(b)}


def _pack(sized, length, budget, base):
    '''Groups into ``length`` nights, or ``None`` if one does not fit.'''
    nights = [([], dict(base)) for _ in range(length)]
    for used, group in sized:
        fits = [(budget.load(add(load, used)), i) for i, (_, load) in
                enumerate(nights) if budget.load(add(load, used)) <= 1]
        if not fits:
            return None
        _, i = min(fits)    # the least loaded night
        nights[i][0].extend(group)
        nights[i] = (nights[i][0], add(nights[i][1], used))
    return [sorted(n) for n, _ in nights]
