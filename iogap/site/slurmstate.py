'''Before any job of a run on Slurm: the controller answers and no node of
the partitions the run selected (``--system <system>:<partition>``) is down.'''

import subprocess

from iogap.errors import IogapError
from iogap.site.selection import system_args

#: Node states (sinfo %T, less a trailing flag) in which jobs can run
_USABLE = ('idle', 'allocated', 'mixed', 'completing', 'reserved', 'planned')


def check_slurm():
    '''Stop when the controller does not answer: each submission would wait
    for it in turn.'''
    try:
        proc = subprocess.run(['scontrol', 'ping'], capture_output=True,
                              text=True, timeout=30)
        answer = [line for line in (proc.stdout + proc.stderr).splitlines()
                  if line.strip().strip('*')]
        up = proc.returncode == 0 and answer and 'UP' in answer[0]
    except (OSError, subprocess.TimeoutExpired) as err:
        up, answer = False, [str(err)]
    if not up:
        said = answer[0].strip() if answer else 'no reply'
        raise IogapError(f'the Slurm controller does not answer ({said}): '
                         f'no job can be submitted')


def selected(system, argv):
    '''The profile partitions this run selected (all without ``:part``).'''
    chosen = {a.split(':', 1)[1] for a in system_args(argv) if ':' in a}
    return [part for part in system['partitions']
            if not chosen or part['name'] in chosen]


def slurm_partitions(system, argv):
    '''The Slurm partitions (``-p NAME``) of the :func:`selected` ones.'''
    return sorted({opt[3:].strip() for part in selected(system, argv)
                   for opt in part.get('access', []) if opt.startswith('-p ')})


def check_nodes(partitions):
    '''Stop when a node of the Slurm ``partitions`` is down, drained or not
    responding, naming it: its jobs would wait for it or die on it.'''
    if not partitions:
        return
    try:
        proc = subprocess.run(['sinfo', '-h', '-N', '-p', ','.join(partitions),
                               '-o', '%N|%P|%T|%E'], capture_output=True,
                              text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise IogapError(f'sinfo failed: {err}') from None

    bad = {}
    for line in proc.stdout.splitlines():
        node, part, state, reason = (line.split('|') + ['', '', ''])[:4]
        if state.rstrip('*~#!%$@^-').lower() not in _USABLE or \
                state.endswith('*'):
            why = f' ({reason})' if reason and reason != 'none' else ''
            bad.setdefault(node, [state.lower(), why, []])[2].append(part)
    if bad:
        said = '; '.join(f'node {n} of partition {", ".join(parts)} is '
                         f'{state}{why}' for n, (state, why, parts) in
                         sorted(bad.items()))
        raise IogapError(f'{said}: its jobs cannot run (scontrol update '
                         f'nodename=<node> state=resume, once it is back)')
