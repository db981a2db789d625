'''A night's budget, and what a set of variants uses of it: on their
partitions, and in a node sweep (the single-node canaries once on each node
of the partitions with ``sweep_nodes``, ``--distribute``, counted against
the budget with the canaries; it measures, never judges: its runs are
named after their nodes, so no judgement reads them).'''

from iogap import inputs
from iogap.errors import IogapError

#: Wall seconds of a judgement (local arithmetic on figures)
JUDGE_SECONDS = 1.0


class Budget:
    '''Node-hours per partition (``'*'``: in all) and serial wall seconds.'''

    def __init__(self, node_hours=None, wall=None):
        self.node_hours, self.wall = dict(node_hours or {}), wall
        if not self.node_hours and wall is None:
            raise IogapError('a night budget needs node-hours or a wall time '
                             '(--node-hours, --wall, IOGAP_NIGHT_NODE_HOURS, '
                             'IOGAP_NIGHT_WALL)')
        # nan never fits and 0 divides: no plan could be made of them
        for said, value in self._limits(self.node_hours.items()):
            if not 0 < value < float('inf'):
                raise IogapError(f'a night budget of {said}: give a number '
                                 f'above 0')

    @classmethod
    def parse(cls, node_hours=None, wall=None, full=(None, None)):
        '''From ``knl=100,haswell=80`` and ``20m`` (or ``40%`` of
        ``full``, its node-hours and wall seconds).'''
        try:
            return cls.of(inputs.node_hours(node_hours) if node_hours
                          else {}, inputs.duration(wall) if wall else None,
                          full)
        except ValueError as err:
            raise IogapError(f'night budget: {err}') from None

    @classmethod
    def of(cls, node_hours, wall, full):
        '''From checked values; a share ``('%', x)`` is of ``full``.'''
        def whole(value, of):
            if not isinstance(value, tuple):
                return value
            if of is None:
                raise IogapError('night budget: a share of the full night '
                                 '(%) needs its cost: iogap plan')
            return value[1] * of
        return cls({k: whole(v, full[0]) for k, v in node_hours.items()},
                   whole(wall, full[1]))

    def scaled(self, share):
        return Budget({k: v * share for k, v in self.node_hours.items()},
                      None if self.wall is None else self.wall * share)

    def load(self, usage):
        '''The largest share of a limit ``usage`` takes (1 = full).'''
        shares = [usage.get(k, 0) / v if v else float('inf') for k, v in
                  self.node_hours.items() if k != '*']
        if '*' in self.node_hours:
            total = sum(v for k, v in usage.items() if k != 'wall')
            shares.append(total / self.node_hours['*'])
        if self.wall is not None:
            shares.append(usage.get('wall', 0) / self.wall)
        return max(shares, default=0)

    def _limits(self, hours):
        '''``[(limit as said, value)]`` of ``hours`` items and the wall.'''
        wall = [] if self.wall is None else [
            (f'{self.wall:g} s of wall time', self.wall)]
        return [(f'{v:g} node-hours' + ('' if k == '*' else f' on {k}'), v)
                for k, v in hours] + wall

    def describe(self):
        return ', '.join(s for s, _ in
                         self._limits(sorted(self.node_hours.items())))


def usage(selects, variants, costs):
    '''``{partition: node-hours, 'wall': seconds}`` of ``selects``.'''
    used = {'wall': 0.0}
    for sel in selects:
        keys = variants.get(sel)
        if keys is None:    # a judgement: wall seconds only
            used['wall'] += JUDGE_SECONDS
        for key in keys or ():
            used[key[1]] = used.get(key[1], 0) + costs[key].node_hours
            used['wall'] += costs[key].seconds
    return used


def add(a, b):
    '''Two usages (``{partition: node-hours, 'wall': seconds}``) summed.'''
    return {k: a.get(k, 0) + b.get(k, 0) for k in set(a) | set(b)}


def rounded(used):
    '''A usage as a plan records it.'''
    return {'node_hours': {k: round(v, 3) for k, v in sorted(used.items())
                           if k != 'wall'},
            'wall_seconds': round(used['wall'], 1)}


def nodes(case):
    '''Nodes a sweep of ``case``'s partition covers, or ``None``.'''
    return case.part.extras.get('sweep_nodes')


def _swept(selects, variants, cases, costs):
    '''``(variant, key)`` of the swept single-node cases of ``selects``.'''
    for sel in selects:
        for key in variants.get(sel, []):
            if costs[key].nodes == 1 and nodes(cases[key]):
                yield sel, key


def sweep_usage(selects, variants_, cases, costs):
    '''``{partition: node-hours, 'wall': seconds}`` of sweeping.'''
    used = {'wall': 0.0}
    for _, key in _swept(selects, variants_, cases, costs):
        count, cost = nodes(cases[key]), costs[key]
        used[key[1]] = used.get(key[1], 0) + count * cost.node_hours
        used['wall'] += count * cost.seconds
    return used


def sweep_summary(selects, plan):
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
