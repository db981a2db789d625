'''The plan the command's options ask for: the profile loaded (before any
family is imported: the families take their values from it), its cases,
judgements, costs and history, the night's budget and the plan itself;
``python -m iogap.plan`` and docs/budget.md both make it here.'''

import os
import re

from iogap import inputs, profile
from iogap.errors import IogapError

ROOT = profile.ROOT


def load(system, db, within=None, left_out=None):
    '''The profile's cases (those whose check matches the regular
    expression ``within``, if given), judgements, costs and the nights
    each case ran on; the judgements spanning partitions that lack a side
    are added to ``left_out``.'''
    profile.load(['--system', system] if system else [], os.environ)
    # Tonight's selection names variants by number, as the run numbers them
    profile.parametrize(profile.current())
    from iogap.judge import references
    from iogap.plan import cases, cost
    name = profile.current()['name']
    if system and system.split(':')[0] != name:
        raise IogapError(f'no profile for system {system!r}: give one of '
                         f'{", ".join(sorted(profile.system_names()))}')
    if system and ':' in system:
        raise IogapError(f'--system {system}: a plan spans every partition '
                         f'of its system: give --system '
                         f'{system.split(":")[0]}, and a budget per '
                         f'partition (--node-hours '
                         f'{system.split(":")[1]}=N,...)')
    references.load(name, profile.parts())
    found = cases.measured()
    if within:
        found = {k: c for k, c in found.items()
                 if re.search(within, c.family)}
    db = db or os.environ.get('IOGAP_RESULTS_DB') or \
        os.path.join(ROOT, 'output', 'results.db')
    db = _history(db)
    return name, found, cases.judgements(found, left_out), \
        cost.costs(found, db, name), cost.nights_ran(db, name)


def _history(db):
    '''The results database the plan reads, or ``None`` for a new
    history; one that cannot be read is refused, not taken for none.'''
    if db == os.devnull or not os.path.lexists(db):
        return None
    from iogap import resultsdb
    try:
        resultsdb.check(db)
    except resultsdb.ResultsDBError as err:
        if 'writable' not in str(err):    # the plan only reads it
            raise IogapError(str(err).replace('the run stops before '
                                              'writing to it', 'no plan '
                                              'is made of it')) from None
    return db


def budget(args, costs):
    '''The night's budget; ``40%`` is that share of the full night.'''
    from iogap.plan.budget import tonight
    return tonight(args.node_hours, args.wall, costs)


def plan(args, left_out=None):
    from iogap.plan.night import Plan, night_index
    name, found, judgements, costs, ran = load(args.system, args.db,
                                               args.within, left_out)
    canaries = args.canaries or inputs.env(os.environ, 'IOGAP_CANARIES',
                                           inputs.regex)
    sweeps = getattr(args, 'sweep', False) or inputs.env(
        os.environ, 'IOGAP_NIGHT_SWEEP', inputs.node_state)
    made = Plan(found, judgements, costs, budget(args, costs), canaries,
                ran, sweeps=bool(sweeps))
    index = args.night if args.night is not None else night_index(args.date)
    return name, made, index
