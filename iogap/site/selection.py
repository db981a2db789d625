'''Which system file a run loads: ``--system`` (or ``RFM_SYSTEM``), else the
one whose ``HOSTNAMES`` claim this host, else the generic profile, unless
the host runs a Slurm that no profile claims.'''

import glob
import os
import re
import socket
import sys

from iogap.errors import ProfileError
from iogap.site.source import ROOT, hostnames

SYSTEMS_DIR = os.path.join(ROOT, 'systems')

#: The profile that matches any host, tried last, and its system's name
#: (ReFrame has a builtin system called 'generic')
GENERIC, GENERIC_SYSTEM = 'generic', 'anyhost'

#: Where a Slurm keeps its configuration when SLURM_CONF does not say
SLURM_CONFS = ('/etc/slurm/slurm.conf', '/etc/slurm-llnl/slurm.conf')


def system_files():
    '''``{system file stem: path}`` of every profile (``_*`` are not).'''
    return {os.path.splitext(os.path.basename(p))[0]: p
            for p in sorted(glob.glob(os.path.join(SYSTEMS_DIR, '*.py')))
            if not os.path.basename(p).startswith('_')}


def system_names():
    '''The systems the profiles define.'''
    return [GENERIC_SYSTEM if stem == GENERIC else stem
            for stem in system_files()]


def claimed(files, hostname):
    '''``{stem: path}`` of the profiles whose HOSTNAMES match ``hostname``;
    one whose HOSTNAMES cannot be read claims none, and says so.'''
    found = {}
    for stem, path in files.items():
        try:
            if stem != GENERIC and any(re.match(p, hostname)
                                       for p in hostnames(path)):
                found[stem] = path
        except ProfileError as err:
            print(f'iogap: {err}; {stem} claims no host until it is mended',
                  file=sys.stderr)
    return found


def system_args(argv):
    '''The values of ``--system`` in ``argv``, in order.'''
    for i, arg in enumerate(argv):
        if arg == '--system' and i + 1 < len(argv):
            yield argv[i + 1]
        elif arg.startswith('--system='):
            yield arg.split('=', 1)[1]


def requested_system(argv, environ):
    '''The system named by ``--system`` (last one wins) or RFM_SYSTEM.'''
    name = [environ.get('RFM_SYSTEM'), *system_args(argv)][-1]
    return name.split(':')[0] if name else None


def slurm_conf(environ):
    '''The Slurm configuration this host uses, or ``None``.'''
    return next((path for path in (environ.get('SLURM_CONF'), *SLURM_CONFS)
                 if path and os.path.isfile(path)), None)


def _patterns(files):
    def said(path):
        try:
            return ', '.join(hostnames(path)) or 'none'
        except ProfileError:
            return 'unreadable (see above)'
    return '; '.join(f'{stem}: {said(path)}'
                     for stem, path in files.items() if stem != GENERIC)


def select(argv, environ, hostname=None):
    '''The system file to load, ``(stem, path)``; a host two profiles claim,
    or a Slurm host none claims, is refused in one line.'''
    files = system_files()
    wanted = requested_system(argv, environ)
    if wanted == GENERIC:
        # ReFrame would run its builtin system, which no check knows
        raise ProfileError(f'--system {GENERIC} is ReFrame\'s builtin '
                           f'system, not a profile: give --system '
                           f'{GENERIC_SYSTEM} for the generic profile '
                           f'(systems/{GENERIC}.py)')
    if wanted == GENERIC_SYSTEM:
        wanted = GENERIC
    if wanted:
        # An unknown name: ReFrame reports it itself, in one line
        return (wanted, files[wanted]) if wanted in files else \
            (GENERIC, files[GENERIC])

    hostname = hostname or socket.gethostname()
    claims = claimed(files, hostname)
    if len(claims) > 1:
        raise ProfileError(f'host {hostname} matches the HOSTNAMES of '
                           f'{len(claims)} profiles ({_patterns(claims)}): '
                           f'narrow the patterns, or pass --system')
    if claims:
        return claims.popitem()
    conf = slurm_conf(environ)
    if conf:
        raise ProfileError(f'host {hostname} runs Slurm ({conf}) but no '
                           f'profile\'s HOSTNAMES match it '
                           f'({_patterns(files)}): add a pattern, write a '
                           f'profile (iogap profile new <system>), or pass '
                           f'--system {GENERIC_SYSTEM} for the generic one')
    return GENERIC, files[GENERIC]
