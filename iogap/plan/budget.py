'''A night's budget: node-hours per partition or in all, and wall time
(the jobs one after another); and what a set of variants uses of it.'''

import re

from iogap.errors import IogapError

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

    @classmethod
    def parse(cls, node_hours=None, wall=None):
        '''From ``200`` or ``knl=100,haswell=80`` and ``20m``, ``1h``,
        ``90s`` (the pipeline's variables take the same forms).'''
        hours = {}
        for item in filter(None, (node_hours or '').split(',')):
            part, _, value = item.rpartition('=')
            try:
                hours[part or '*'] = float(value)
            except ValueError:
                raise IogapError(f'node-hours {item!r}: give a number, or '
                                 f'partition=number') from None
        secs = None
        if wall:
            m = re.fullmatch(r'(\d+(?:\.\d+)?)([smh]?)', wall.strip())
            if not m:
                raise IogapError(f'wall time {wall!r}: give e.g. 90s, 20m, 2h')
            secs = float(m.group(1)) * {'': 1, 's': 1, 'm': 60,
                                        'h': 3600}[m.group(2)]
        return cls(hours, secs)

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
