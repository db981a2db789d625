'''python -m iogap.plan cost|night|doc [--system S] ...: what a night
costs, and the night that fits a budget (``night`` prints the reframe
options that select it; ``--json`` writes the plan for the run report);
``ran REPORT``: what a night that ran cost, measured.'''

import argparse
import json
import os
import re
import sys

from iogap import profile
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
    if system and system.split(':')[0] not in (name, profile.GENERIC if
                                               name == profile.GENERIC_SYSTEM
                                               else name):
        raise IogapError(f'no profile for system {system!r} (systems/: '
                         f'{", ".join(sorted(profile.system_files()))})')
    references.load(name, profile.parts())
    found = cases.measured()
    if within:
        found = {k: c for k, c in found.items()
                 if re.search(within, c.family)}
    db = db or os.environ.get('IOGAP_RESULTS_DB') or \
        os.path.join(ROOT, 'output', 'results.db')
    db = db if os.path.isfile(db) else None
    return name, found, cases.judgements(found, left_out), \
        cost.costs(found, db, name), cost.nights_ran(db, name)


def budget(args, costs):
    '''The night's budget; ``40%`` is that share of the full night.'''
    from iogap.plan.night import Budget
    hours = args.node_hours or os.environ.get('IOGAP_NIGHT_NODE_HOURS')
    wall = args.wall or os.environ.get('IOGAP_NIGHT_WALL')
    if not hours and not wall:
        # the profile's own: each partition's extras['night_node_hours']
        hours = ','.join(f'{p["name"]}={p["extras"]["night_node_hours"]}'
                         for p in profile.current()['partitions']
                         if p['extras'].get('night_node_hours'))
    from iogap.plan.cost import totals
    full = totals(costs)
    if hours and hours.endswith('%'):
        hours = str(float(hours[:-1]) / 100 *
                    sum(row[1] for row in full.values()))
    if wall and wall.endswith('%'):
        wall = f'{float(wall[:-1]) / 100 * sum(r[2] for r in full.values())}s'
    return Budget.parse(hours, wall)


def plan(args, left_out=None):
    from iogap.plan.night import Plan, night_index
    name, found, judgements, costs, ran = load(args.system, args.db,
                                               args.within, left_out)
    made = Plan(found, judgements, costs, budget(args, costs),
                args.canaries or os.environ.get('IOGAP_CANARIES'), ran,
                sweeps=bool(getattr(args, 'sweep', False) or
                            os.environ.get('IOGAP_NIGHT_SWEEP')))
    index = args.night if args.night is not None else night_index(args.date)
    return name, made, index


def print_night(args):
    '''Print the reframe options that select tonight's plan, and lines
    saying what it holds (with ``--jobs``, each pipeline job and each
    judgement spanning partitions that does not run tonight; ``--json``:
    the plan, for the run report).'''
    from iogap.plan import jobs
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
        with open(args.json, 'w') as fp:
            json.dump(summary, fp, indent=1)
    print(' '.join(f'-n {s}' for s in summary['selects']))
    say_night(name, made, index, summary)


def say_night(name, made, index, summary):
    '''The plan's lines on stderr: the night, its jobs, what waits.'''
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


def _parser():
    parser = argparse.ArgumentParser(prog='python -m iogap.plan')
    parser.add_argument('what', choices=['cost', 'night', 'doc', 'ran'])
    parser.add_argument('report', nargs='?', help='ran: a run report')
    parser.add_argument('--system')
    parser.add_argument('--db', help='results database (default: '
                        'IOGAP_RESULTS_DB, else output/results.db)')
    parser.add_argument('--within', help='only the checks matching this '
                        'regular expression (and judgements of them)')
    parser.add_argument('--canaries', help='Check@N regular expression '
                        '(default: derived from the judgements\' audit)')
    parser.add_argument('--cases', action='store_true',
                        help='cost: every case, not only the totals')
    parser.add_argument('--node-hours', help='200, or knl=100,haswell=80')
    parser.add_argument('--wall', help='wall time a night, e.g. 20m')
    parser.add_argument('--night', type=int, help='night index')
    parser.add_argument('--date', help='YYYY-MM-DD (default: today, UTC)')
    parser.add_argument('--json', help='night: write the plan here')
    parser.add_argument('--rotation', action='store_true', help='--json '
                        'also holds the nights ahead until every case has '
                        'run, and each variant\'s cost')
    parser.add_argument('--sweep', action='store_true', help='night: the '
                        'single-node canaries also on every node of their '
                        'partition (its sweep_nodes; IOGAP_NIGHT_SWEEP)')
    parser.add_argument('--jobs', action='store_true', help='night: the '
                        'plan as pipeline jobs, one per partition and one '
                        'for the judgements spanning partitions')
    return parser


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        if args.what == 'ran':
            if not args.report or not os.path.isfile(args.report):
                raise IogapError(f'ran needs a run report, got '
                                 f'{args.report!r}')
            from iogap.plan import ran
            print(ran.render(args.report))
        elif args.what == 'cost':
            name, _, _, costs, _ = load(args.system, args.db, args.within)
            from iogap.plan.doc import cost_table
            print(cost_table(name, costs, args.cases))
        elif args.what == 'night':
            print_night(args)
        else:
            from iogap.plan import doc
            print(doc.render(args))
    except IogapError as err:
        sys.exit(f'iogap.plan: {err}')


if __name__ == '__main__':
    main()
