'''A night within a budget: night ``k`` runs the canaries, then the groups
(a judgement with all its sides) that waited longest; with no history,
rotation row ``k mod length``. The same history gives the same plan, and
the group that waited longest always fits, so a cut night or a changed
cost delays nothing for good: every group runs within as many nights as
there are groups.'''

import datetime
import hashlib
import json

from iogap.errors import IogapError
from iogap.judge import references
from iogap.plan import canaries
from iogap.plan.budget import (  # noqa: F401
    JUDGE_SECONDS, Budget, add, rounded, sweep_summary, sweep_usage, usage)


class Plan:
    '''Canaries (node sweep too, with ``sweeps``) and rotation: the groups
    of variants that run together, packed into the fewest nights that hold
    what the canaries leave.'''

    def __init__(self, cases, judgements, costs, budget, declared=None,
                 ran=None, sweeps=False):
        self.cases, self.costs, self.budget = cases, costs, budget
        #: ``{history key: {night, ...}}``: when each case ran before
        self.ran, self.sweeps = ran or {}, sweeps
        self.variants = {}
        for key, case in sorted(cases.items()):
            self.variants.setdefault(case.select, []).append(key)
        self.judgements = judgements
        self.needs = {j.select: sorted({j.select} | {cases[k].select
                                                      for k in j.sides})
                      for j in judgements}
        self.canaries, self.canary_reason = canaries.declared(
            self, declared) if declared else canaries.derived(
            self, references.current())
        self.swept = sweep_usage(self.canaries, self.variants, cases,
                                 costs) if sweeps else {}
        #: What the canaries use every night, their sweep included
        self.base = self.every_night(self.canaries)
        self.slots = self._groups()
        self.group_usage = [usage(g, self.variants, costs)
                            for g in self.slots]
        #: The groups, the largest share of the budget first
        self.largest = sorted(range(len(self.slots)), key=lambda g: (
            -budget.load(self.group_usage[g]), self.slots[g]))
        self.sized_order = {g: n for n, g in enumerate(self.largest)}
        self.length, self.rotation = self._rotate()
        self.slot_of = [next(r for r, row in enumerate(self.rotation)
                             if g[0] in row) for g in self.slots]

    def _groups(self):
        '''Sets of variants that run together, less the canaries.'''
        canary = set(self.canaries)
        parent = {s: s for s in self.variants}
        parent.update({j.select: j.select for j in self.judgements})

        def root(s):
            while parent[s] != s:
                parent[s] = s = parent[parent[s]]
            return s
        for j in self.judgements:
            if j.select in canary:
                continue
            # a canary runs every night: it ties no two judgements together
            for s in self.needs[j.select]:
                if s not in canary:
                    parent[root(s)] = root(j.select)
        groups = {}
        for s in parent:
            if s not in canary:
                groups.setdefault(root(s), []).append(s)
        return sorted(sorted(g) for g in groups.values())

    def _rotate(self):
        '''``(length, nights)`` of the groups beside the canaries.'''
        budget, room = self.budget, self.budget.load(self.base)
        if room > 1:
            raise IogapError(f'the canaries alone take {room:.0%} of the '
                             f'budget ({budget.describe()})')
        total = {}
        for g in self.largest:
            used, group = self.group_usage[g], self.slots[g]
            if budget.load(add(used, self.base)) > 1:
                raise IogapError(
                    f'{group[0]} and the {len(group) - 1} variant(s) it must '
                    f'run with need {budget.load(used):.0%} of the budget '
                    f'({budget.describe()}), the canaries {room:.0%}: '
                    f'raise the budget')
            total = add(total, used)
        # no fewer nights than the rotation's load over what is left; a
        # night each always fits (each group fits beside the canaries)
        spare = 1 - room
        least = max(1, int(budget.load(total) / spare)) if spare > 0 else 1
        for length in range(least, max(len(self.slots), 1) + 1):
            nights = self._pack(length)
            if nights is not None:
                return length, nights
        raise IogapError(f'no rotation of {len(self.slots)} group(s) fits '
                         f'the budget ({budget.describe()})')

    def _pack(self, length):
        '''The groups into ``length`` nights, each to the least loaded, or
        ``None`` if one does not fit.'''
        nights, used = [[] for _ in range(length)], [self.base] * length
        for g in self.largest:
            loads = [self.budget.load(add(u, self.group_usage[g]))
                     for u in used]
            i = min(range(length), key=lambda n: (loads[n], n))
            if loads[i] > 1:
                return None
            nights[i] += self.slots[g]
            used[i] = add(used[i], self.group_usage[g])
        return [sorted(n) for n in nights]

    def every_night(self, chosen):
        '''The usage of ``chosen`` as canaries: with their sweep.'''
        used = usage(chosen, self.variants, self.costs)
        if self.sweeps:
            used = add(used, sweep_usage(
                chosen, self.variants, self.cases, self.costs))
        return used

    def night(self, index):
        '''The variants of night ``index``.'''
        return self._fill(index, self._last_ran(index))

    def _last_ran(self, index):
        '''``{group: last night before index all its cases ran}``.'''
        last = {}
        for num, group in enumerate(self.slots):
            ran = [{n for n in self.ran.get(self.cases[key].history_key, ())
                    if n < index}
                   for sel in group for key in self.variants.get(sel, [])]
            if ran and (every := set.intersection(*ran)):
                last[num] = max(every)
        return last

    def _fill(self, index, last):
        if not last:
            return sorted(set(self.canaries) |
                          set(self.rotation[index % self.length]))
        order = sorted(range(len(self.slots)), key=lambda g: (
            last.get(g, float('-inf')),
            (self.slot_of[g] - index) % self.length, self.sized_order[g]))
        chosen, used = list(self.canaries), dict(self.base)
        for g in order:
            more = add(used, self.group_usage[g])
            if self.budget.load(more) <= 1:
                chosen.extend(self.slots[g])
                used = more
        return sorted(set(chosen))

    def ahead(self, index):
        '''Nights from ``index`` until every group ran, at today's costs.'''
        last, waiting = self._last_ran(index), set(range(len(self.slots)))
        nights = []
        while waiting:
            if len(nights) > len(self.slots):
                raise AssertionError('the group that waited longest did '
                                     'not fit')
            planned = self._fill(index + len(nights), last)
            for g, group in enumerate(self.slots):
                if set(group) <= set(planned):
                    last[g] = index + len(nights)
                    waiting.discard(g)
            nights.append(planned)
        return nights or [self.night(index)]

    def record(self, index):
        '''What a plan is checked by: nights, needs, usages, limits.'''
        return {'nights': self.ahead(index),
                'needs': self.needs,
                'usage': {s: usage([s], self.variants, self.costs)
                          for s in self.variants},
                'sweep_usage': self.swept,
                'limits': {'node_hours': self.budget.node_hours,
                           'wall': self.budget.wall}}

    def summary(self, index):
        selects = self.night(index)
        used = usage(selects, self.variants, self.costs)
        if self.sweeps:     # the canaries again, on every node
            used = add(used, self.swept)
        text = json.dumps(selects)
        return {
            'night': index, 'rotation_length': self.length,
            # every case has run by then, whatever ran before tonight
            'covered_within': len(self.ahead(index)),
            'budget': self.budget.describe(),
            'canaries': list(self.canaries),
            'selects': selects,
            **rounded(used),
            'digest': hashlib.sha256(text.encode()).hexdigest()[:12],
            'sweep': sweep_summary(self.canaries, self) if self.sweeps
            else {},
        }


def night_index(date=None):
    '''Days since 1970-01-01 of ``date`` (default: today, UTC).'''
    day = date or datetime.datetime.now(datetime.timezone.utc).date()
    return (day - datetime.date(1970, 1, 1)).days
