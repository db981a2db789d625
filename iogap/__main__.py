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
from iogap.core import figures
from iogap.errors import EXIT, IogapError, Unreachable
from iogap.history import load
from iogap.judge import acrossnights
from iogap.judge.audit import tables as audit
from iogap.night import (
    driver,
    onboard,
    pipeline,
    pricing,
    rebaseline,
    sweeprun,
)
from iogap.plan import doc as plan_doc
from iogap.plan import making, spent
from iogap.report import write_page
from iogap.site import extras, generate, hostinfo
from iogap.site.spack import stack


def _system(parser, what='the system (a file in systems/)'):
    parser.add_argument('--system', help=what)


def _db(parser):
    parser.add_argument('--db', help='the results database (default: '
                        'IOGAP_RESULTS_DB, else <output>/results.db)')


def _output(parser, required=False, what='where it writes'):
    parser.add_argument('-o', '--output', required=required, help=what)


# -- night --------------------------------------------------------------

def _night_args(parser):
    parser.add_argument('action', nargs='?', default='run',
                        choices=['run', 'pipeline', 'sweep'],
                        help='run tonight (default); plan it as a child '
                        'pipeline of per-partition jobs; run its node sweep')
    _system(parser, 'the system (IOGAP_SYSTEM); a partition goes in '
            'IOGAP_NIGHT_PARTITION')
    _output(parser, what='the output directory (IOGAP_OUTPUT)')
    _db(parser)


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


def _verdict_args(parser):
    parser.add_argument('report', help='the ReFrame run report')
    parser.add_argument('--stdout', help="reframe's stdout (skip reasons)")


def _verdict(args):
    for path in filter(None, (args.report, args.stdout)):
        inputs.existing_file(path)
    return driver.recheck(args.report, args.stdout)


def _changepoints_args(parser):
    parser.add_argument('database', nargs='?', help='as --db')
    _db(parser)
    parser.add_argument('--session', help='tonight (default: the newest)')


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

def _report_args(parser):
    parser.add_argument('reports', nargs='*', metavar='REPORT',
                        help='ReFrame run report(s)')
    _db(parser)
    parser.add_argument('--study-example', action='store_true',
                        help="add a session of system 'cori' whose values "
                        "are the study's published figures (not a run)")
    _output(parser, True, 'directory for index.html and its figures')


def _report(args):
    if not (args.reports or args.db or args.study_example):
        raise _Usage('give a run report, --db PATH or --study-example')
    path, count = write_page(args.reports, args.db, args.output,
                             args.study_example)
    print(f'iogap report: wrote {path} ({count} figures)')
    return EXIT['ok']


def _plan_args(parser):
    parser.add_argument('what', choices=['cost', 'night', 'doc', 'ran'])
    parser.add_argument('report', nargs='?', help='ran: a run report')
    _system(parser)
    _db(parser)
    parser.add_argument('--within', type=inputs.option(inputs.regex),
                        help='only the checks matching this regular '
                        'expression (and judgements of them)')
    parser.add_argument('--canaries', type=inputs.option(inputs.regex),
                        help='Check@N regular expression (default: derived '
                        'from the judgements\' audit)')
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


def _plan(args):
    if args.what == 'ran':
        if not args.report:
            raise _Usage('ran needs a run report: iogap plan ran '
                         'output/reports/run-report-<n>.json')
        print(spent.render(args.report))
    elif args.what == 'cost':
        name, _, _, costs, _ = making.load(args.system, args.db, args.within)
        print(plan_doc.cost_table(name, costs, args.cases))
    elif args.what == 'night':
        making.print_night(args)
    else:
        print(plan_doc.render(args))
    return EXIT['ok']


# -- profile ------------------------------------------------------------

def _new_options(parser):
    parser.add_argument('system', help='the system\'s name (a file name)')
    parser.add_argument('--scratch', help='where the checks will write '
                        '(default: $SCRATCH/iogap, else /var/tmp/iogap-'
                        '$USER)')
    parser.add_argument('--partitions', help='comma-separated partitions '
                        '(default: every partition that is up)')
    parser.add_argument('--hostnames', nargs='+', type=inputs.option(
        inputs.regex), help='regular expressions of the login nodes '
        '(default: from this host\'s name)')
    parser.add_argument('--spack-root', default=os.environ.get(
        'IOGAP_SPACK_ROOT'), help='a Spack (default: IOGAP_SPACK_ROOT): '
        'the overlay comes from `spack external find` in a job')
    parser.add_argument('--no-spack', action='store_true',
                        help='write the overlay from the OS\'s tools')
    for key in ('account', 'qos', 'reservation'):
        parser.add_argument(f'--{key}', help=f'Slurm {key} of every job')
    parser.add_argument('--force', action='store_true',
                        help='replace an existing profile')


def _positive(text):
    try:
        value = float(text)
    except ValueError:
        value = 0
    if not value > 0:
        raise argparse.ArgumentTypeError(f'{text!r} is not a positive '
                                         f'number of node-hours')
    return value


def _profile_args(parser):
    sub = parser.add_subparsers(dest='action', metavar='{new,onboard,doc}')
    _new_options(sub.add_parser(
        'new', help='write systems/<system>.py from this Slurm',
        description='Write systems/<system>.py and its Spack overlay from '
                    'the Slurm cluster this login node belongs to.'))
    both = sub.add_parser(
        'onboard', help='from nothing to a first baseline within a budget',
        description=onboard.__doc__.split('\n\n')[1].replace('\n', ' '))
    _new_options(both)
    both.add_argument('--budget', type=_positive, required=True,
                      help='node-hours the baseline may take (the '
                      'planner\'s estimate); refused if the smallest '
                      'baseline exceeds it')
    both.add_argument('--select', nargs='+', default=list(pricing.SELECT),
                      metavar='REGEX', help='the baseline\'s cases, as '
                      'reframe -n (default: the plain direct dd and OSU '
                      'latency)')
    both.add_argument('--dry-run', action='store_true', help='print the '
                      'cost and the choice, run nothing, write nothing')
    both.add_argument('--night', action='store_true', help='then run the '
                      'first judged night')
    sub.add_parser('doc', help='print the tables of the profile keys page')


def _profile(args):
    if args.action in (None, 'doc'):
        print(extras.markdown(), end='')
        return EXIT['ok']
    if args.no_spack:
        args.spack_root = None
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


# -- audit, rebaseline, spack, figures ----------------------------------

def _audit_args(parser):
    parser.add_argument('files', nargs='+', help='reference/<system>.yaml')
    parser.add_argument('--markdown', action='store_true',
                        help='print the audit page (docs)')
    parser.add_argument('--section', action='store_true',
                        help=argparse.SUPPRESS)


def _audit(args):
    if args.markdown or args.section:
        print(audit.markdown(args.files) if args.markdown else
              audit.section(args.files[0]), end='')
        return EXIT['ok']
    return EXIT['red'] if audit.report(args.files) else EXIT['ok']


def _rebaseline_args(parser):
    parser.add_argument('reports', nargs='+', help='ReFrame run reports')
    parser.add_argument('--dry-run', action='store_true',
                        help='print the diff, write nothing')
    parser.add_argument('--force', action='store_true',
                        help='also replace entries set by hand')
    parser.add_argument('--patch', help='write the diff as a patch here')


def _rebaseline(args):
    rebaseline.rebaseline(args.reports, args.dry_run, args.force, args.patch)
    return EXIT['ok']


def _spack_args(parser):
    parser.add_argument('action', choices=['build', 'view', 'bootstrap'])
    parser.add_argument('reframe', nargs=argparse.REMAINDER,
                        metavar='OPTIONS', help='--partition P: build for '
                        'this partition only (its extras name the '
                        'environment); else the options of the run it '
                        'builds for (their --system)')


def _spack(args):
    if {'-h', '--help'} & set(args.reframe):
        args.parser.print_help()
        return EXIT['ok']
    rest, partition = list(args.reframe), None
    for i, arg in enumerate(rest):
        if arg.startswith('--partition='):
            partition = rest.pop(i).split('=', 1)[1]
            break
        if arg == '--partition' and i + 1 < len(rest):
            partition = rest.pop(i + 1)
            rest.pop(i)
            break
    return stack.run(args.action, rest, partition)


def _figures(args):
    print(figures.render(), end='')
    return EXIT['ok']


#: name: (what it does, its arguments, what runs it)
COMMANDS = {
    'night': ('run, compare and judge tonight (the nightly pipeline\'s job)',
              _night_args, _night),
    'verdict': ('judge a run again from its files', _verdict_args,
                _verdict),
    'changepoints': ('judge the series of nights of a results database',
                     _changepoints_args, _changepoints),
    'report': ('draw the morning page of runs and the history',
               _report_args, _report),
    'plan': ('what a night costs, and the night that fits a budget',
             _plan_args, _plan),
    'profile': ('a site\'s profile: write it, onboard it, its keys',
                _profile_args, _profile),
    'audit': ('the false-alarm budget of reference files', _audit_args,
              _audit),
    'rebaseline': ('propose references from a system\'s own runs',
                   _rebaseline_args, _rebaseline),
    'spack': ('build the pinned tool stack, or say where its view is',
              _spack_args, _spack),
    'figures': ('print every figure the families declare (docs)',
                lambda parser: None, _figures),
}


class _Usage(Exception):
    '''A command's arguments that argparse alone cannot refuse.'''


def parser():
    top = inputs.Parser(prog='iogap', description=__doc__.split('\n\n')[0],
                        epilog=__doc__.split('\n\n')[1],
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = top.add_subparsers(dest='command', required=True, metavar='COMMAND',
                             parser_class=inputs.Parser)
    for name, (what, arguments, _) in COMMANDS.items():
        command = sub.add_parser(name, help=what, description=what)
        command.set_defaults(parser=command)
        arguments(command)
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
