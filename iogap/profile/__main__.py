'''python -m iogap.profile new <system>: write a site's profile from its
Slurm (iogap.profile.generate); onboard <system> --budget H: from nothing
to the first baseline within a budget (iogap.profile.onboard); doc, or no
arguments: print the tables of docs/profile.md.'''

import argparse
import os
import socket
import sys

from iogap import inputs
from iogap.errors import IogapError
from iogap.profile import generate, hostinfo, onboard, pricing, schema


def _new_options(parser):
    parser.add_argument('system', help='the system\'s name (a file name)')
    parser.add_argument('--scratch', help='where the checks will write '
                        '(default: $SCRATCH/iogap, else /var/tmp/iogap-'
                        '$USER)')
    parser.add_argument('--partitions', help='comma-separated partitions '
                        '(default: every partition that is up)')
    parser.add_argument('--hostnames', nargs='+', type=inputs.option(
        inputs.regex), help='regular '
                        'expressions of the login nodes (default: from '
                        'this host\'s name)')
    parser.add_argument('--spack-root', default=os.environ.get(
        'IOGAP_SPACK_ROOT'), help='a Spack (default: IOGAP_SPACK_ROOT): '
        'the overlay comes from `spack external find` in a job')
    parser.add_argument('--no-spack', action='store_true',
                        help='write the overlay from the OS\'s tools')
    for key in ('account', 'qos', 'reservation'):
        parser.add_argument(f'--{key}', help=f'Slurm {key} of every job')
    parser.add_argument('--force', action='store_true',
                        help='replace an existing profile')


def _onboard_options(parser):
    parser.add_argument('--budget', type=_positive, required=True,
                        help='node-hours the baseline may take (the '
                        'planner\'s estimate); refused if the smallest '
                        'baseline exceeds it')
    parser.add_argument('--select', nargs='+', default=list(pricing.SELECT),
                        metavar='REGEX', help='the baseline\'s cases, as '
                        'reframe -n (default: the plain direct dd and OSU '
                        'latency)')
    parser.add_argument('--dry-run', action='store_true', help='print the '
                        'cost and the choice, run nothing')
    parser.add_argument('--night', action='store_true', help='then run '
                        'the first judged night')


def _positive(text):
    try:
        value = float(text)
    except ValueError:
        value = 0
    if not value > 0:
        raise argparse.ArgumentTypeError(f'{text!r} is not a positive '
                                         f'number of node-hours')
    return value


def parser():
    top = argparse.ArgumentParser(
        prog='python -m iogap.profile', description='A site\'s profile: '
        'write it from Slurm (new), take it to a first baseline within a '
        'budget (onboard), print the tables of docs/profile.md (doc, the '
        'default).')
    sub = top.add_subparsers(dest='command', metavar='{new,onboard,doc}')
    _new_options(sub.add_parser(
        'new', help='write systems/<system>.py from this Slurm',
        description='Write systems/<system>.py and its Spack overlay from '
                    'the Slurm cluster this login node belongs to.'))
    both = sub.add_parser(
        'onboard', help='from nothing to a first baseline within a budget',
        description=onboard.__doc__.split('\n\n')[1].replace('\n', ' '))
    _new_options(both)
    _onboard_options(both)
    sub.add_parser('doc', help='print the tables of docs/profile.md')
    return top


def main(argv):
    args = parser().parse_args(argv)
    if args.command in (None, 'doc'):
        print(schema.markdown(), end='')
        return
    if args.no_spack:
        args.spack_root = None
    default = os.path.join(os.environ['SCRATCH'], 'iogap') \
        if os.environ.get('SCRATCH') else hostinfo.default_scratch_root()
    args.scratch = os.path.abspath(args.scratch or default)
    args.hostnames = args.hostnames or [generate.hostname_pattern(
        socket.gethostname())]
    try:
        if args.command == 'new':
            generate.write(args)
            print(f'iogap.profile: the first baseline, its cost printed '
                  f'before it starts (see --help):', file=sys.stderr)
            print(f'python -m iogap.profile onboard {args.system} '
                  f'--budget <node-hours>')
        else:
            onboard.onboard(args)
    except IogapError as err:
        sys.exit(f'iogap.profile: {err}')


main(sys.argv[1:])
