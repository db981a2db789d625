'''The canaries, the variants a plan runs every night: the judgements the
audit finds able to catch a regression within the false-alarm budget,
best first, while they fit :data:`SHARE` of the budget, unless a site
names them (``--canaries``, ``IOGAP_CANARIES``).'''

import re

from iogap.errors import IogapError
from iogap.judge import audit, readings

#: Share of the budget the canaries may take; the rest is the rotation's
SHARE = 0.5


def names(ref):
    '''``[(detects, entry key)]`` of the entries that catch a regression
    within the false-alarm budget, unwaived, best first.'''
    if ref is None:
        return []
    limit = audit.budget(ref)['judgement']
    found = []
    for row in ref.audit or audit.rows(ref):
        if row.detects is None or row.rate > limit or \
                row.entry.get('waiver') or not row.cases:
            continue
        key = row.entry['name'] if row.kind != 'absolute' else id(row.entry)
        found.append((row.detects, key))
    return sorted(found, key=lambda d: (d[0], str(d[1])))


def derived(plan, ref):
    '''``(variants, reason)`` of the canaries the audit ranks.'''
    targets, by_entry = readings.absolute_targets(ref), {}
    for j in plan.judgements:   # absolute entries by id, others by name
        for k in [id(e) for e in targets[j.variant][3].values()] \
                if j.check == 'AbsoluteCheck' else [j.name]:
            by_entry.setdefault(k, []).append(j)
    chosen, cap, seen = [], plan.budget.scaled(SHARE), set()
    for _, key in names(ref):
        for j in by_entry.get(key, []):
            if j.select in seen:
                continue
            trial = sorted(set(chosen) | set(plan.needs[j.select]))
            if cap.load(plan.every_night(trial)) <= 1:
                chosen, _ = trial, seen.add(j.select)
    return chosen, ('judgements the audit finds able to catch a '
                    'regression within the false-alarm budget, best '
                    f'detection first, within {SHARE:.0%} of the budget')


def declared(plan, pattern):
    '''Canaries matching a regular expression over ``Check@N``.'''
    pattern, chosen = re.compile(pattern), set()
    for sel in [*plan.variants, *plan.needs]:
        if pattern.fullmatch(sel):
            chosen.update(plan.needs.get(sel, [sel]))
    if not chosen:
        raise IogapError(f'canaries {pattern.pattern!r} match no variant of '
                         f'this profile (Check@N, as -n takes them)')
    return sorted(chosen), f'declared: {pattern.pattern}'
