'''A night's plan as pipeline jobs: one per partition, and a cross job for
the judgements spanning partitions with their sides (a case runs once a
night, so those sides leave the partitions' jobs). Together the jobs run
exactly the plan, so its budget holds.'''

from iogap.plan.budget import rounded, usage


def touches(plan):
    '''``{Check@N: {partition}}`` where a variant or judgement's sides run.'''
    found = {sel: {key[1] for key in keys}
             for sel, keys in plan.variants.items()}
    for j in plan.judgements:
        found[j.select] = {part for _, part in j.sides}
    return found


def _held_together(plan, chosen, where):
    '''The variants of ``chosen`` for the cross job: the judgements
    spanning partitions with their sides, closed over shared sides.'''
    planned = [j.select for j in plan.judgements if j.select in chosen]
    held = set().union(*(plan.needs[s] for s in planned
                         if len(where[s]) > 1))
    while more := [s for s in planned
                   if s not in held and held & set(plan.needs[s])]:
        held = held.union(*(plan.needs[s] for s in more))
    return held


def _job(plan, name, partition, selects):
    '''One job's record (``partition`` ``None``: every partition).'''
    variants = {s: [k for k in plan.variants[s]
                    if partition is None or k[1] == partition]
                for s in selects if s in plan.variants}
    used = usage(selects, variants, plan.costs)
    return {'name': name, 'partition': partition, 'selects': selects,
            'judgements': sum(s not in plan.variants for s in selects),
            **rounded(used)}


def split(plan, selects):
    '''The jobs of a night: per partition, then the cross job, if any.'''
    where, chosen = touches(plan), set(selects)
    held = _held_together(plan, chosen, where)
    rest = chosen - held
    jobs = [_job(plan, part, part, sorted(s for s in rest if part in where[s]))
            for part in sorted({p for s in rest for p in where[s]})]
    if held:
        parts = sorted({p for s in held for p in where[s]})
        jobs.append(_job(plan, '+'.join(parts), None, sorted(held)))
    return jobs


def waiting(plan, selects, index, nights_ahead, left_out):
    '''A line for each judgement spanning partitions not run on night
    ``index``: when it will, or the side it lacks (``left_out``).'''
    where, chosen, lines = touches(plan), set(selects), []
    for j in plan.judgements:
        if len(where[j.select]) > 1 and j.select not in chosen:
            later = next((n for n, night in enumerate(nights_ahead)
                          if j.select in night), None)
            lines.append(
                f'{j.select} ({j.name}) spans '
                f'{"+".join(sorted(where[j.select]))}: not tonight; the '
                + (f'rotation plans it for night {index + later}' if later
                   else 'rotation plans it once what waited longer has run'))
    for select, name, missing in left_out:
        sides = ', '.join(f'{case} on {part}' for case, part in missing)
        lines.append(f'{select} ({name}): never planned: it reads {sides}, '
                     f'which this run does not generate (a partition left '
                     f'out, a feature this host lacks, or outside --within)')
    return lines
