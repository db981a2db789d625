'''The canaries: the variants a plan runs every night.

Derived from the judgements, not declared: the audit
(:mod:`iogap.judge.audit`) gives each its false-alarm rate and the
smallest regression it catches 9 nights in 10. The judgements that catch
one, within the false-alarm budget and with no waiver, are the stable
figures the nightly's bands and change points rely on: best detection
first, they are canaries (with their sides) while their cost, their node
sweep included, stays within :data:`SHARE` of the budget. A site may
name them instead (``--canaries``, ``IOGAP_CANARIES``).
'''

import re

from iogap.errors import IogapError
from iogap.judge import audit

#: Share of the budget the canaries may take; the rest is the rotation's
SHARE = 0.5


def names(ref):
    '''Reference entries (ratios and fits by name, absolute entries by
    id) that detect a regression within the false-alarm budget, best
    detection first: ``[(detects, key)]``.'''
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


def derived(plan, by_entry, ref):
    '''``(variants, reason)``: the judgements of ``by_entry`` (``{entry
    key: [Judgement]}``) the audit ranks, best first, with their sides,
    while ``plan.every_night`` of them fits ``SHARE`` of the budget.'''
    chosen, cap = [], plan.budget.scaled(SHARE)
    seen = set()
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
    '''Canaries named by a regular expression over ``Check@N``
    (``IOGAP_CANARIES``): a judgement brings its sides.'''
    pattern, chosen = re.compile(pattern), set()
    for sel in [*plan.variants, *plan.needs]:
        if pattern.fullmatch(sel):
            chosen.update(plan.needs.get(sel, [sel]))
    if not chosen:
        raise IogapError(f'canaries {pattern.pattern!r} match no variant of '
                         f'this profile (Check@N, as -n takes them)')
    return sorted(chosen), f'declared: {pattern.pattern}'
