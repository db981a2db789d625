'''The plan ``iogap plan``'s options ask for, and the lines saying it;
what every case costs, and what a run cost.'''

import json
import os
import re
import sys

from iogap import inputs
from iogap.errors import IogapError
from iogap.history import resultsdb
from iogap.history.runguard import replace_file
from iogap.history.runreport import measured, read_report
from iogap.judge import references
from iogap.plan import cost, jobs
from iogap.plan import inventory as cases
from iogap.plan.budget import Budget
from iogap.plan.nightplan import Plan, night_index
from iogap.site import profile


def load(system, db, within=None, left_out=None):
    '''The profile's cases (those matching ``within``), judgements, costs
    and the nights each ran on; the profile is loaded first, as the
    families take their values from it.'''
    profile.load(['--system', system] if system else [], os.environ)
    # tonight's selection names variants by number, as the run numbers them
    profile.parametrize(profile.current())
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
    db = _history(db or os.environ.get('IOGAP_RESULTS_DB') or
                  os.path.join(profile.ROOT, 'output', 'results.db'))
    return name, found, cases.judgements(found, left_out), \
        cost.costs(found, db, name), cost.nights_ran(db, name)


def _history(db):
    '''The database the plan reads, or None; an unreadable one is refused.'''
    if db == os.devnull or not os.path.lexists(db):
        return None
    try:
        resultsdb.check(db)
    except resultsdb.ResultsDBError as err:
        if 'writable' not in str(err):    # the plan only reads it
            raise IogapError(str(err).replace('the run stops before '
                                              'writing to it', 'no plan '
                                              'is made of it')) from None
    return db


def budget(args, costs):
    '''The night's budget: the options, else the pipeline's variables,
    else each partition's ``night_node_hours`` (``40%``: that share of the
    full night).'''
    hours = args.node_hours or inputs.env(
        os.environ, 'IOGAP_NIGHT_NODE_HOURS', inputs.node_hours)
    wall = args.wall or inputs.env(os.environ, 'IOGAP_NIGHT_WALL',
                                   inputs.duration)
    system = profile.current()
    if not hours and not wall:
        hours = {p['name']: p['extras']['night_node_hours']
                 for p in system['partitions']
                 if p['extras'].get('night_node_hours')}
    # an unknown partition is refused: the one meant would have no limit
    names = {p['name'] for p in system['partitions']} | set(
        profile.omitted())
    for part in sorted(set(hours or {}) - names - {'*'}):
        raise IogapError(f'the night budget names partition {part!r}, which '
                         f'{system["name"]} does not have: give one of '
                         f'{", ".join(sorted(names))}')
    full = cost.totals(costs).values()
    return Budget.of(hours or {}, wall, (sum(r[1] for r in full),
                                         sum(r[2] for r in full)))


def plan(args, left_out=None):
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


def print_night(args):
    '''Print the reframe options of tonight's plan, and on stderr what it
    holds (``--jobs``: its jobs, and what waits; ``--json``: the plan).'''
    left_out = []
    name, made, index = plan(args, left_out)
    summary = made.summary(index)
    if args.jobs:
        summary['jobs'] = jobs.split(made, summary['selects'])
        summary['not_tonight'] = jobs.waiting(
            made, summary['selects'], index, made.ahead(index), left_out)
    if args.json:
        if args.rotation:
            summary['rotation'] = made.record(index)
        try:
            replace_file(args.json, json.dumps(summary, indent=1))
        except OSError as err:
            raise IogapError(f'--json {args.json}: cannot write it '
                             f'({err.strerror}): give a file in a writable '
                             f'directory') from None
    print(' '.join(f'-n {s}' for s in summary['selects']))
    sweep = ''.join(f', a sweep of {len(s["variants"])} variant(s) over '
                    f'{s["nodes"]} nodes of {p}'
                    for p, s in summary['sweep'].items()) or (
        ', nothing to sweep (no partition with sweep_nodes runs a '
        'single-node canary)' if made.sweeps else '')
    print(f'iogap-plan: {name} night {index}: '
          f'{len(summary["selects"])} variants, '
          f'{len(made.canaries)} canaries{sweep}, rotation of '
          f'{made.length} night(s), every case run within '
          f'{summary["covered_within"]}, {summary["node_hours"]} '
          f'node-hours, {summary["wall_seconds"]:.0f} s serial '
          f'(budget {made.budget.describe()})', file=sys.stderr)
    for job in summary.get('jobs', []):
        print(f'iogap-plan: job {job["name"]}: {len(job["selects"])} '
              f'variants ({job["judgements"]} judgements), '
              f'{job["node_hours"]} node-hours, {job["wall_seconds"]:.0f} '
              f's serial', file=sys.stderr)
    for line in summary.get('not_tonight', []):
        print(f'iogap-plan: {line}', file=sys.stderr)


def cost_table(name, costs, every=False):
    lines = [f'# {name}: the cost of every case (expected, per night)', '',
             '| partition | cases | node-hours | wall (serial) | written |',
             '|---|---|---|---|---|']
    for part, (n, nh, secs, written) in sorted(cost.totals(costs).items()):
        lines.append(f'| {part} | {n} | {nh:.1f} | {secs / 3600:.1f} h | '
                     f'{written / 1e12:.2f} TB |')
    measured = sum(c.how.startswith('measured') for c in costs.values())
    lines += ['', f'{measured} of {len(costs)} case(s) measured in the '
              f'results database, the others estimated from their geometry']
    if every:
        lines += ['', '| case | partition | nodes | wall s | node-hours | '
                  'written | how |', '|---|---|---|---|---|---|---|']
        for key, c in sorted(costs.items()):
            lines.append(f'| {c.case.unique} | {c.case.partition} | '
                         f'{c.nodes} | {c.seconds:.0f} | {c.node_hours:.3f} '
                         f'| {c.written / 1e9:.2f} GB | {c.how} |')
    return '\n'.join(lines)


def ran(path):
    '''What the run report ``path`` cost, measured, and the plan it ran.'''
    report = read_report(path)
    info = report['session_info']
    lines = [f'{path}: session {info.get("uuid")}, '
             f'{info.get("time_elapsed", 0):.0f} s',
             '| partition | jobs | node-hours | job seconds |',
             '|---|---|---|---|']
    for part, (count, hours, secs) in sorted(measured(report).items()):
        lines.append(f'| {part} | {count} | {hours:.3f} | {secs:.0f} |')
    if 'plan_digest' in info:
        lines.append(f'plan: night {info.get("plan_night")} of a rotation '
                     f'of {info.get("plan_rotation")}, digest '
                     f'{info["plan_digest"]}')
    else:
        lines.append('plan: none (the whole selection ran)')
    return '\n'.join(lines)
