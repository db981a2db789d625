'''A night's plan as pipeline jobs, for a budget per partition: each
partition's share of the night in a job of its own (``--system
<system>:<partition>``), and the judgements whose sides span partitions,
with those sides, in one job that holds them all (``--system <system>``).

A variant (``Check@N``) runs on every partition that generates it, and a
case runs once a night. So a variant a cross-partition judgement reads
goes to that judgement's job, with every other judgement that reads it,
and leaves the partitions' jobs; every other variant runs in the job of
each partition it is generated on (there on that partition alone), the
judgements of one partition beside their cases. The jobs together run
exactly the night's plan, so its budget holds; each job's share of it is
recorded with the job.
'''

from iogap.plan.budget import usage


def touches(plan):
    '''``{Check@N: {partition, ...}}``: where each variant runs and where
    each judgement's sides do.'''
    found = {sel: {key[1] for key in keys}
             for sel, keys in plan.variants.items()}
    for j in plan.judgements:
        found[j.select] = {part for _, part in j.sides}
    return found


def _held_together(plan, chosen, where):
    '''The variants of ``chosen`` that must run in the cross job: the
    judgements spanning partitions, their sides, and every judgement
    reading one of those sides (with its own sides), until none is left.'''
    planned = [j.select for j in plan.judgements if j.select in chosen]
    held = set()
    for sel in planned:
        if len(where[sel]) > 1:
            held |= set(plan.needs[sel])
    grown = True
    while grown:
        grown = False
        for sel in planned:
            if sel not in held and held & set(plan.needs[sel]):
                held |= set(plan.needs[sel])
                grown = True
    return held


def _job(plan, name, partition, selects):
    '''One job's record; ``partition`` ``None`` runs on every partition
    its variants are generated on.'''
    variants = {s: [k for k in plan.variants[s]
                    if partition is None or k[1] == partition]
                for s in selects if s in plan.variants}
    used = usage(selects, variants, plan.costs)
    return {'name': name, 'partition': partition, 'selects': selects,
            'judgements': sum(s not in plan.variants for s in selects),
            'node_hours': {k: round(v, 3) for k, v in sorted(used.items())
                           if k != 'wall'},
            'wall_seconds': round(used['wall'], 1)}


def split(plan, selects):
    '''The jobs of a night that runs ``selects``: one per partition with
    something to run, then the cross-partition job if there is one
    (named after the partitions it runs on, ``haswell+knl``).'''
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
    '''One line for each judgement spanning partitions that does not run
    tonight (night ``index``), saying why: the night the rotation plans it
    for (``nights_ahead``, tonight's first), or the side this run does not
    generate (``left_out``: ``[(Check@N, name, [(case, partition)])]``,
    from :func:`iogap.plan.inventory.judgements`).'''
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
