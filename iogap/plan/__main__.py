'''python -m iogap.plan cost|night|doc [--system S] ...: what a night
costs, and the night that fits a budget (``night`` prints the reframe
options that select it; ``--json`` writes the plan for the run report);
``ran REPORT``: what a night that ran cost, measured.'''

import json
import sys

from iogap import inputs
from iogap.errors import IogapError
from iogap.plan.making import budget, load, plan  # noqa: F401 (the CLI's API)
from iogap.runguard import replace_file

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
        try:
            replace_file(args.json, json.dumps(summary, indent=1))
        except OSError as err:
            raise IogapError(f'--json {args.json}: cannot write it '
                             f'({err.strerror}): give a file in a writable '
                             f'directory') from None
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
    parser = inputs.Parser(prog='python -m iogap.plan')
    parser.add_argument('what', choices=['cost', 'night', 'doc', 'ran'])
    parser.add_argument('report', nargs='?', help='ran: a run report')
    parser.add_argument('--system')
    parser.add_argument('--db', help='results database (default: '
                        'IOGAP_RESULTS_DB, else output/results.db)')
    parser.add_argument('--within', type=inputs.option(inputs.regex),
                        help='only the checks matching this '
                        'regular expression (and judgements of them)')
    parser.add_argument('--canaries', type=inputs.option(inputs.regex),
                        help='Check@N regular expression '
                        '(default: derived from the judgements\' audit)')
    parser.add_argument('--cases', action='store_true',
                        help='cost: every case, not only the totals')
    parser.add_argument('--node-hours', type=inputs.option(inputs.node_hours),
                        help='200, 40%% (of the full night), or '
                        'knl=100,haswell=80')
    parser.add_argument('--wall', type=inputs.option(inputs.duration),
                        help='wall time a night, e.g. 20m, or 40%%')
    parser.add_argument('--night', type=inputs.option(
        lambda text: inputs.count(text, least=0)), help='night index')
    parser.add_argument('--date', type=inputs.option(inputs.date),
                        help='YYYY-MM-DD (default: today, UTC)')
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
            if not args.report:
                raise IogapError('ran needs a run report: python -m '
                                 'iogap.plan ran output/reports/run-report-'
                                 '<n>.json')
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
