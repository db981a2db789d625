'''Before any job of a run on Slurm: the controller answers, and no node
of the partitions the run selected is down; which partitions a run
selects (``--system <system>:<partition>``).'''

import subprocess

from iogap.errors import IogapError


def check_slurm():
    '''Stop before any job when the Slurm controller does not answer: each
    submission would otherwise wait for it in turn.'''
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


#: Node states (sinfo %T, less a trailing flag) in which jobs can run
_USABLE = ('idle', 'allocated', 'mixed', 'completing', 'reserved', 'planned')


def selected(system, argv):
    '''The profile partitions this run selected (``--system name:part``;
    every one without).'''
    chosen = {a.split(':', 1)[1] for a in _system_args(argv) if ':' in a}
    return [part for part in system['partitions']
            if not chosen or part['name'] in chosen]


def slurm_partitions(system, argv):
    '''The Slurm partitions (``-p NAME`` in their access options) of the
    profile partitions this run selected (``--system name:part``).'''
    found = set()
    for part in selected(system, argv):
        for opt in part.get('access', []):
            if opt.startswith('-p '):
                found.add(opt[3:].strip())

    return sorted(found)


def _system_args(argv):
    for i, arg in enumerate(argv):
        if arg == '--system' and i + 1 < len(argv):
            yield argv[i + 1]
        elif arg.startswith('--system='):
            yield arg.split('=', 1)[1]


def check_nodes(partitions):
    '''Stop before any job when a node of the selected Slurm partitions is
    down, drained or not responding, naming it: its jobs would wait for it
    or die on it.'''
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
