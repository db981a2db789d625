'''A night within a budget: canaries every night, the rest in rotation.

The unit ReFrame selects is a check's variant (``-n Check@N``), which runs
on every partition that generates it; a variant's cost is the sum over
those partitions. A judgement is planned with the variants of all its
sides, so it never loses one.

Canaries (:mod:`iogap.plan.canaries`) run every night, with their node
sweep when one is asked for (:mod:`iogap.plan.nodesweep`). Everything else
is grouped (the judgements sharing a case, with their sides, are one
group) and packed, largest first, into the fewest nights that each fit
what the canaries leave: the rotation.

Night ``k`` (days since 1970-01-01 UTC by default) runs the canaries, then
fills the budget with the groups that have waited longest: by the last
night before ``k`` on which the results database saw all of a group's
cases run (never first), then by their place in the rotation after ``k``,
largest first. Without any history that is rotation row ``k mod length``.
A plan read from the history before the night is the same however often
it is made, and a cost that changes, a night cut short or a case that
did not run delays nothing for good: the group that waited longest always
fits, so every group runs within as many nights as there are groups, and
at steady costs within the rotation's length.
'''

import datetime
import hashlib
import json

from iogap.judge import readings, references
from iogap.plan import canaries, rotation
from iogap.plan import nodesweep as sweep
from iogap.plan.budget import JUDGE_SECONDS, Budget, usage  # noqa: F401


def _entry_keys(judgement, targets):
    if judgement.check == 'AbsoluteCheck':
        return [id(e) for e in targets[judgement.variant][3].values()]
    return [judgement.name]


class Plan:
    '''Canaries and rotation of the loaded profile within ``budget``;
    with ``sweeps``, the canaries' node sweep too.'''

    def __init__(self, cases, judgements, costs, budget, declared=None,
                 ran=None, sweeps=False):
        self.cases, self.costs, self.budget = cases, costs, budget
        #: ``{history key: {night, ...}}``: when each case ran before
        self.ran = ran or {}
        #: Whether the canaries are also swept across their nodes
        self.sweeps = sweeps
        self.variants = {}
        for key, case in sorted(cases.items()):
            self.variants.setdefault(case.select, []).append(key)
        self.judgements = judgements
        self.needs = {j.select: sorted({j.select} | {cases[k].select
                                                      for k in j.sides})
                      for j in judgements}
        targets = readings.absolute_targets(references.current())
        by_entry = {}
        for j in judgements:
            for k in _entry_keys(j, targets):
                by_entry.setdefault(k, []).append(j)
        self.canaries, self.canary_reason = canaries.declared(
            self, declared) if declared else canaries.derived(
            self, by_entry, references.current())
        #: What the canaries use every night, their sweep included
        self.base = self.every_night(self.canaries)
        self.groups = rotation.groups(self.variants, judgements, self.needs,
                                      self.canaries)
        self.length, self.rotation = rotation.rotate(
            self.groups, self.base, self.variants, costs, budget)
        self.slots = self.groups
        self.group_usage = [usage(g, self.variants, self.costs)
                            for g in self.slots]
        largest = sorted(range(len(self.slots)), key=lambda g: (
            -self.budget.load(self.group_usage[g]), self.slots[g]))
        self.sized_order = {g: n for n, g in enumerate(largest)}
        self.slot_of = [next(r for r, row in enumerate(self.rotation)
                             if g[0] in row) for g in self.slots]

    def every_night(self, chosen):
        '''The usage of ``chosen`` as canaries: with their sweep.'''
        used = usage(chosen, self.variants, self.costs)
        if self.sweeps:
            used = rotation.add(used, sweep.usage(
                chosen, self.variants, self.cases, self.costs))
        return used

    def night(self, index):
        '''The variants of night ``index``: canaries, then the groups
        that waited longest, while they fit.'''
        return self._fill(index, self._last_ran(index))

    def _last_ran(self, index):
        '''``{group number: last night before index all its cases ran}``
        (groups that never did are absent).'''
        last = {}
        for num, group in enumerate(self.slots):
            nights = None
            for sel in group:
                for key in self.variants.get(sel, []):
                    ran = {n for n in self.ran.get(
                        self.cases[key].history_key, ()) if n < index}
                    nights = ran if nights is None else nights & ran
            if nights:
                last[num] = max(nights)
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
            more = rotation.add(used, self.group_usage[g])
            if self.budget.load(more) <= 1:
                chosen.extend(self.slots[g])
                used = more
        return sorted(set(chosen))

    def ahead(self, index):
        '''The plans of the nights from ``index`` until every group has
        run, if they run as planned at today's costs.'''
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
        '''The nights from ``index`` until every case has run, what each
        judgement needs, each variant's usage (to check a plan by).'''
        return {'nights': self.ahead(index),
                'needs': self.needs,
                'usage': {s: usage([s], self.variants, self.costs)
                          for s in self.variants},
                'sweep_usage': sweep.usage(self.canaries, self.variants,
                                           self.cases, self.costs)
                if self.sweeps else {},
                'limits': {'node_hours': self.budget.node_hours,
                           'wall': self.budget.wall}}

    def summary(self, index):
        selects = self.night(index)
        used = usage(selects, self.variants, self.costs)
        if self.sweeps:     # the canaries again, on every node
            used = rotation.add(used, sweep.usage(
                self.canaries, self.variants, self.cases, self.costs))
        text = json.dumps(selects)
        return {
            'night': index, 'rotation_length': self.length,
            # every case has run by then, whatever ran before tonight
            'covered_within': len(self.ahead(index)),
            'budget': self.budget.describe(),
            'canaries': [s for s in self.canaries],
            'selects': selects,
            'node_hours': {k: round(v, 3) for k, v in sorted(used.items())
                           if k != 'wall'},
            'wall_seconds': round(used['wall'], 1),
            'digest': hashlib.sha256(text.encode()).hexdigest()[:12],
            'sweep': sweep.summary(self.canaries, self) if self.sweeps
            else {},
        }


def night_index(date=None):
    '''Days since 1970-01-01 of ``date`` (a ``datetime.date``; today,
    UTC).'''
    day = date or datetime.datetime.now(datetime.timezone.utc).date()
    return (day - datetime.date(1970, 1, 1)).days
