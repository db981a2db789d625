'''iogap: the suite's command. ReFrame runs the checks
(reframe -C reframe_config.py -r); iogap runs what surrounds them: the
night, its verdict and page, the plan, a site's profile, the audit of the
references, re-baselining and the Spack stack.

Exit status, the same for every command: 0 done or GREEN, 1 RED or
failed, 2 a usage error, 3 NOT JUDGED or UNDER-JUDGED, 4 a missing or
unreadable input (one line says which), 5 a source that cannot be
reached. --system, --output and --db mean the same wherever a command
takes them.
'''

import argparse
import os
import socket
import sys

from iogap import inputs
from iogap.errors import EXIT, IogapError, Unreachable
from iogap.history import load
from iogap.judge import acrossnights
from iogap.judge.audit import tables as audit
from iogap.night import (
    baseline,
    driver,
    onboard,
    pipeline,
    rebaseline,
    sweeprun,
)
from iogap.plan import making
from iogap.report import write_page
from iogap.site import generate, hostinfo
from iogap.site.spack import stack


def arg(*flags, **options):
    '''An argument as ``add_argument`` takes it.'''
    return flags, options


DB = arg('--db', help='the results database (default: IOGAP_RESULTS_DB, '
         'else <output>/results.db)')


# -- night --------------------------------------------------------------

def _night(args):
    for flag, var in (('system', 'IOGAP_SYSTEM'), ('output', 'IOGAP_OUTPUT'),
                      ('db', 'IOGAP_RESULTS_DB')):
        if getattr(args, flag):
            os.environ[var] = getattr(args, flag)
    if args.action == 'pipeline':
        return pipeline.main(os.environ)
    if args.action == 'sweep':
        return sweeprun.main(os.environ, driver.print_summary)
    return driver.suite()


def _verdict(args):
    for path in filter(None, (args.report, args.stdout)):
        inputs.existing_file(path)
    return driver.recheck(args.report, args.stdout)


def _changepoints(args):
    db = args.database or args.db or os.environ.get('IOGAP_RESULTS_DB')
    if not db:
        raise load.InputError('give the results database (--db)')
    inputs.existing_file(db)
    lines, steps, _ = acrossnights.judge(db, args.session)
    print('\n'.join(lines))
    return EXIT['red'] if steps else EXIT['unjudged'] \
        if lines[-1].endswith('not judged') else EXIT['ok']


# -- report, plan -------------------------------------------------------

def _report(args):
    if not (args.reports or args.db or args.study_example):
        raise _Usage('give a run report, --db PATH or --study-example')
    path, count = write_page(args.reports, args.db, args.output,
                             args.study_example)
    print(f'iogap report: wrote {path} ({count} figures)')
    return EXIT['ok']


def _plan(args):
    if args.what == 'ran':
        if not args.report:
            raise _Usage('ran needs a run report: iogap plan ran '
                         'output/reports/run-report-<n>.json')
        print(making.ran(args.report))
    elif args.what == 'cost':
        name, _, _, costs, _ = making.load(args.system, args.db, args.within)
        print(making.cost_table(name, costs, args.cases))
    else:
        making.print_night(args)
    return EXIT['ok']


# -- profile ------------------------------------------------------------

def _positive(text):
    try:
        value = float(text)
    except ValueError:
        value = 0
    if not value > 0:
        raise argparse.ArgumentTypeError(f'{text!r} is not a positive '
                                         f'number of node-hours')
    return value


def _profile(args):
    args.spack_root = None if args.no_spack else \
        args.spack_root or os.environ.get('IOGAP_SPACK_ROOT')
    default = os.path.join(os.environ['SCRATCH'], 'iogap') \
        if os.environ.get('SCRATCH') else hostinfo.default_scratch_root()
    args.scratch = os.path.abspath(args.scratch or default)
    args.hostnames = args.hostnames or [generate.hostname_pattern(
        socket.gethostname())]
    if args.action == 'new':
        generate.write(args)
        print('iogap profile: the first baseline, its cost printed before '
              'it starts (see --help):', file=sys.stderr)
        print(f'iogap profile onboard {args.system} --budget <node-hours>')
    else:
        onboard.onboard(args)
    return EXIT['ok']


#: ``profile new``'s arguments, and those ``profile onboard`` adds
NEW = [
    arg('system', help='the system\'s name (a file name)'),
    arg('--scratch', help='where the checks will write (default: '
        '$SCRATCH/iogap, else /var/tmp/iogap-$USER)'),
    arg('--partitions', help='comma-separated partitions (default: every '
        'partition that is up)'),
    arg('--hostnames', nargs='+', type=inputs.option(inputs.regex),
        help='regular expressions of the login nodes (default: from this '
        'host\'s name)'),
    arg('--spack-root', help='a Spack (default: IOGAP_SPACK_ROOT): the '
        'overlay comes from `spack external find` in a job'),
    arg('--no-spack', action='store_true',
        help='write the overlay from the OS\'s tools'),
    *(arg(f'--{key}', help=f'Slurm {key} of every job')
      for key in ('account', 'qos', 'reservation')),
    arg('--force', action='store_true', help='replace an existing profile')]
ONBOARD = [
    arg('--budget', type=_positive, required=True, help='node-hours the '
        'baseline may take (the planner\'s estimate); refused if the '
        'smallest baseline exceeds it'),
    arg('--select', nargs='+', default=list(baseline.SELECT), metavar='REGEX',
        help='the baseline\'s cases, as reframe -n (default: the plain '
        'direct dd and OSU latency)'),
    arg('--dry-run', action='store_true', help='print the cost and the '
        'choice, run nothing, write nothing'),
    arg('--night', action='store_true',
        help='then run the first judged night')]


# -- audit, rebaseline, spack -------------------------------------------

def _audit(args):
    if args.markdown or args.section:
        print(audit.markdown(args.files) if args.markdown else
              audit.section(args.files[0]), end='')
        return EXIT['ok']
    return EXIT['red'] if audit.report(args.files) else EXIT['ok']


def _rebaseline(args):
    rebaseline.rebaseline(args.reports, args.dry_run, args.force, args.patch)
    return EXIT['ok']


def _spack(args):
    if {'-h', '--help'} & set(args.reframe):
        args.parser.print_help()
        return EXIT['ok']
    only = inputs.Parser(prog='iogap spack', add_help=False,
                         allow_abbrev=False)
    only.add_argument('--partition')
    known, rest = only.parse_known_args(args.reframe)
    return stack.run(args.action, rest, known.partition)


#: name: (what it does, its arguments (a dict: its actions, each with its
#: help, description and arguments), what runs it)
COMMANDS = {
    'night': ('run, compare and judge tonight (the nightly pipeline\'s job)', [
        arg('action', nargs='?', default='run',
            choices=['run', 'pipeline', 'sweep'], help='run tonight '
            '(default); plan it as a child pipeline of per-partition jobs; '
            'run its node sweep'),
        arg('--system', help='the system (IOGAP_SYSTEM); a partition goes '
            'in IOGAP_NIGHT_PARTITION'),
        arg('-o', '--output', help='the output directory (IOGAP_OUTPUT)'),
        DB], _night),
    'verdict': ('judge a run again from its files', [
        arg('report', help='the ReFrame run report'),
        arg('--stdout', help="reframe's stdout (skip reasons)")], _verdict),
    'changepoints': ('judge the series of nights of a results database', [
        arg('database', nargs='?', help='as --db'), DB,
        arg('--session', help='tonight (default: the newest)')],
        _changepoints),
    'report': ('draw the morning page of runs and the history', [
        arg('reports', nargs='*', metavar='REPORT',
            help='ReFrame run report(s)'), DB,
        arg('--study-example', action='store_true', help="add a session of "
            "system 'cori' whose values are the study's published figures "
            "(not a run)"),
        arg('-o', '--output', required=True,
            help='directory for index.html and its figures')], _report),
    'plan': ('what a night costs, and the night that fits a budget', [
        arg('what', choices=['cost', 'night', 'ran']),
        arg('report', nargs='?', help='ran: a run report'),
        arg('--system', help='the system (a file in systems/)'), DB,
        arg('--within', type=inputs.option(inputs.regex), help='only the '
            'checks matching this regular expression (and judgements of '
            'them)'),
        arg('--canaries', type=inputs.option(inputs.regex), help='Check@N '
            'regular expression (default: derived from the judgements\' '
            'audit)'),
        arg('--cases', action='store_true',
            help='cost: every case, not only the totals'),
        arg('--node-hours', type=inputs.option(inputs.node_hours),
            help='200, 40%% (of the full night), or knl=100,haswell=80'),
        arg('--wall', type=inputs.option(inputs.duration),
            help='wall time a night, e.g. 20m, or 40%%'),
        arg('--night', type=inputs.option(
            lambda text: inputs.count(text, least=0)), help='night index'),
        arg('--date', type=inputs.option(inputs.date),
            help='YYYY-MM-DD (default: today, UTC)'),
        arg('--json', help='night: write the plan here'),
        arg('--rotation', action='store_true', help='--json also holds the '
            'nights ahead until every case has run, and each variant\'s '
            'cost'),
        arg('--sweep', action='store_true', help='night: the single-node '
            'canaries also on every node of their partition (its '
            'sweep_nodes; IOGAP_NIGHT_SWEEP)'),
        arg('--jobs', action='store_true', help='night: the plan as pipeline '
            'jobs, one per partition and one for the judgements spanning '
            'partitions')], _plan),
    'profile': ('a site\'s profile: write it, or onboard it', {
        'new': ('write systems/<system>.py from this Slurm', 'Write '
                'systems/<system>.py and its Spack overlay from the Slurm '
                'cluster this login node belongs to.', NEW),
        'onboard': ('from nothing to a first baseline within a budget',
                    onboard.__doc__.split('\n\n')[1].replace('\n', ' '),
                    NEW + ONBOARD)}, _profile),
    'audit': ('the false-alarm budget of reference files', [
        arg('files', nargs='+', help='reference/<system>.yaml'),
        arg('--markdown', action='store_true',
            help='print the audit page (docs)'),
        arg('--section', action='store_true', help=argparse.SUPPRESS)],
        _audit),
    'rebaseline': ('propose references from a system\'s own runs', [
        arg('reports', nargs='+', help='ReFrame run reports'),
        arg('--dry-run', action='store_true',
            help='print the diff, write nothing'),
        arg('--force', action='store_true',
            help='also replace entries set by hand'),
        arg('--patch', help='write the diff as a patch here')], _rebaseline),
    'spack': ('build the pinned tool stack, or say where its view is', [
        arg('action', choices=['build', 'view', 'bootstrap']),
        arg('reframe', nargs=argparse.REMAINDER, metavar='OPTIONS',
            help='--partition P: build for this partition only (its extras '
            'name the environment); else the options of the run it builds '
            'for (their --system)')], _spack),
}


class _Usage(Exception):
    '''A command's arguments that argparse alone cannot refuse.'''


def _add(parser, arguments):
    '''``arguments`` to ``parser``; a dict's, to each of its actions.'''
    if isinstance(arguments, dict):
        sub = parser.add_subparsers(dest='action', required=True)
        for name, (what, described, more) in arguments.items():
            _add(sub.add_parser(name, help=what, description=described),
                 more)
    for flags, options in arguments if isinstance(arguments, list) else ():
        parser.add_argument(*flags, **options)


def parser():
    top = inputs.Parser(prog='iogap', description=__doc__.split('\n\n')[0],
                        epilog=__doc__.split('\n\n')[1],
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = top.add_subparsers(dest='command', required=True, metavar='COMMAND',
                             parser_class=inputs.Parser)
    for name, (what, arguments, _) in COMMANDS.items():
        command = sub.add_parser(name, help=what, description=what)
        command.set_defaults(parser=command)
        _add(command, arguments)
    return top


def main(argv=None):
    top = parser()
    args = top.parse_args(argv)
    prog = f'iogap {args.command}'
    try:
        return COMMANDS[args.command][2](args)
    except _Usage as err:
        top.exit(EXIT['usage'], f'{prog}: {err} ({prog} --help for usage)\n')
    except Unreachable as err:
        print(f'{prog}: {err}', file=sys.stderr)
        return EXIT['unreachable']
    except (IogapError, ValueError) as err:
        print(f'{prog}: {err}', file=sys.stderr)
        return EXIT['input']
    except BrokenPipeError:
        return EXIT['ok']
    except OSError as err:
        print(f'{prog}: {err.filename or ""}: {err.strerror}',
              file=sys.stderr)
        return EXIT['input']


if __name__ == '__main__':
    sys.exit(main())
