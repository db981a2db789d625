'''python -m iogap.profile new <system>: write a site's profile from its
Slurm (iogap.profile.generate); with no arguments, print the tables of
docs/profile.md.'''

import argparse
import os
import socket
import sys

from iogap.errors import IogapError
from iogap.profile import generate, hostinfo, schema


def new(argv):
    '''``python -m iogap.profile new``: its options, then
    :func:`iogap.profile.generate.write`.'''
    parser = argparse.ArgumentParser(
        prog='python -m iogap.profile new',
        description='Write systems/<system>.py and its Spack overlay from '
                    'the Slurm cluster this login node belongs to.')
    parser.add_argument('system', help='the system\'s name (a file name)')
    parser.add_argument('--scratch', help='where the checks will write '
                        '(default: $SCRATCH/iogap, else /var/tmp/iogap-'
                        '$USER)')
    parser.add_argument('--partitions', help='comma-separated partitions '
                        '(default: every partition that is up)')
    parser.add_argument('--hostnames', nargs='+', help='regular '
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
    args = parser.parse_args(argv)
    if args.no_spack:
        args.spack_root = None
    default = os.path.join(os.environ['SCRATCH'], 'iogap') \
        if os.environ.get('SCRATCH') else hostinfo.default_scratch_root()
    args.scratch = os.path.abspath(args.scratch or default)
    args.hostnames = args.hostnames or [generate.hostname_pattern(
        socket.gethostname())]
    try:
        generate.write(args)
    except IogapError as err:
        sys.exit(f'iogap.profile: {err}')


if sys.argv[1:2] == ['new']:
    new(sys.argv[2:])
elif sys.argv[1:]:
    sys.exit('usage: python -m iogap.profile [new <system> [options]]')
else:
    print(schema.markdown(), end='')
