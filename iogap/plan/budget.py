'''A night's budget: node-hours per partition or in all, and wall time
(the jobs one after another); and what a set of variants uses of it.'''

import os

from iogap import inputs
from iogap.errors import IogapError
from iogap.plan.cost import totals
from iogap.site import profile

#: Wall seconds of a judgement (local arithmetic on figures)
JUDGE_SECONDS = 1.0


class Budget:
    '''Node-hours per partition (``'*'``: all of them) and wall seconds.'''

    def __init__(self, node_hours=None, wall=None):
        self.node_hours, self.wall = dict(node_hours or {}), wall
        if not self.node_hours and wall is None:
            raise IogapError('a night budget needs node-hours or a wall time '
                             '(--node-hours, --wall, IOGAP_NIGHT_NODE_HOURS, '
                             'IOGAP_NIGHT_WALL)')
        # nan never fits and 0 divides: no plan could be made of them
        limits = [(f'{v:g} node-hours' + ('' if k == '*' else f' on {k}'), v)
                  for k, v in self.node_hours.items()]
        limits += [(f'{wall:g} s of wall time', wall)] if wall is not None \
            else []
        for said, value in limits:
            if not 0 < value < float('inf'):
                raise IogapError(f'a night budget of {said}: give a number '
                                 f'above 0')

    @classmethod
    def parse(cls, node_hours=None, wall=None, full=(None, None)):
        '''From ``200``, ``40%`` or ``knl=100,haswell=80`` and ``20m``,
        ``1h``, ``90s`` or ``40%`` (the options and the pipeline's
        variables take the same forms): a share is of ``full``, the full
        night's node-hours and wall seconds.'''
        try:
            return cls.of(inputs.node_hours(node_hours) if node_hours
                          else {}, inputs.duration(wall) if wall else None,
                          full)
        except ValueError as err:
            raise IogapError(f'night budget: {err}') from None

    @classmethod
    def of(cls, node_hours, wall, full):
        '''From values :mod:`iogap.inputs` checked; a share (``('%',
        share)``) is of ``full``, ``(node-hours, wall seconds)``.'''
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

    def describe(self):
        said = [f'{v:g} node-hours' + ('' if k == '*' else f' on {k}')
                for k, v in sorted(self.node_hours.items())]
        if self.wall is not None:
            said.append(f'{self.wall:g} s of wall time')
        return ', '.join(said)


def usage(selects, variants, costs):
    '''``{partition: node-hours, 'wall': seconds}`` of the variants
    ``selects`` (judgements count their wall seconds only).'''
    used = {'wall': 0.0}
    for sel in selects:
        keys = variants.get(sel)
        if keys is None:
            used['wall'] += JUDGE_SECONDS
            continue
        for key in keys:
            cost = costs[key]
            used[key[1]] = used.get(key[1], 0) + cost.node_hours
            used['wall'] += cost.seconds
    return used


def tonight(node_hours, wall, costs):
    '''The night's budget: ``node_hours`` and ``wall`` as the options gave
    them (checked by :mod:`iogap.inputs`), else the pipeline's variables,
    else each partition's ``night_node_hours``; a share (``40%``) is of
    the full night ``costs`` make.'''
    hours = node_hours or inputs.env(os.environ, 'IOGAP_NIGHT_NODE_HOURS',
                                     inputs.node_hours)
    wall = wall or inputs.env(os.environ, 'IOGAP_NIGHT_WALL',
                              inputs.duration)
    if not hours and not wall:
        hours = {p['name']: p['extras']['night_node_hours']
                 for p in profile.current()['partitions']
                 if p['extras'].get('night_node_hours')}
    _known_partitions(hours or {})
    full = totals(costs).values()
    return Budget.of(hours or {}, wall, (sum(r[1] for r in full),
                                         sum(r[2] for r in full)))


def _known_partitions(hours):
    '''Refuse a budget naming a partition the profile lacks: the
    partitions it meant would be planned without limit.'''
    system = profile.current()
    names = {p['name'] for p in system['partitions']} | set(
        profile.omitted())
    for part in sorted(set(hours) - names - {'*'}):
        raise IogapError(f'the night budget names partition {part!r}, which '
                         f'{system["name"]} does not have: give one of '
                         f'{", ".join(sorted(names))}')
