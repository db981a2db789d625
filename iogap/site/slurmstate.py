'''Before any job of a run on Slurm: the controller answers, the partitions
the run selected (``--system <system>:<partition>``) are Slurm's, none of
their nodes is down, and the profile says of them what Slurm does.'''

import re
import subprocess

from iogap import inputs
from iogap.errors import IogapError
from iogap.site import profile

#: Node states (sinfo %T, less a trailing flag) in which jobs can run
_USABLE = ('idle', 'allocated', 'mixed', 'completing', 'reserved', 'planned')
#: A partition option of ``access`` (``-p a,b``, ``--partition=a``)
_PARTITION = re.compile(r'^(?:-p\s*|--partition[=\s])(\S+)$')


def _ask(*cmd):
    '''A Slurm client's run, or one line saying it could not start.'''
    try:
        return subprocess.run(cmd, capture_output=True, text=True,
                              timeout=30)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise IogapError(f'{cmd[0]} failed: {err}') from None


def check_slurm():
    '''Stop when the controller does not answer: each submission would wait
    for it in turn.'''
    try:
        proc = _ask('scontrol', 'ping')
        status, out = proc.returncode, proc.stdout + proc.stderr
    except IogapError as err:
        status, out = 1, str(err)
    answer = [line for line in out.splitlines() if line.strip().strip('*')]
    if status or not answer or 'UP' not in answer[0]:
        said = answer[0].strip() if answer else 'no reply'
        raise IogapError(f'the Slurm controller does not answer ({said}): '
                         f'no job can be submitted')


def selected(system, argv):
    '''The profile partitions this run selected (all without ``:part``).'''
    chosen = {a.split(':', 1)[1] for a in inputs.given(argv, '--system')
              if ':' in a}
    return [part for part in system['partitions']
            if not chosen or part['name'] in chosen]


def named(part):
    '''The Slurm partitions a profile partition's ``access`` names.'''
    return [n for opt in part.get('access', [])
            if (m := _PARTITION.match(opt.strip()))
            for n in m.group(1).split(',')]


def slurm_partitions(system, argv):
    '''The Slurm partitions of the :func:`selected` ones.'''
    return sorted({n for part in selected(system, argv) for n in named(part)})


def check_nodes(partitions):
    '''Stop when a Slurm partition of the run has no node, or a node of one
    is down, drained or not responding, naming it: its jobs would wait for
    it or die on it; then check the loaded profile against Slurm.'''
    out = _ask('sinfo', '-h', '-N', '-p', ','.join(partitions), '-o',
               '%N|%R|%T|%E|%c').stdout if partitions else ''
    bad, cpus = {}, {}
    for line in out.splitlines():
        node, part, state, reason, ncpus = (line.split('|') + [''] * 4)[:5]
        cpus[part] = min(cpus.get(part, 1 << 30), int(ncpus or 1 << 30))
        if state.rstrip('*~#!%$@^-').lower() not in _USABLE or \
                state.endswith('*'):
            why = f' ({reason})' if reason and reason != 'none' else ''
            bad.setdefault(node, [state.lower(), why, []])[2].append(part)
    for name in (p for p in partitions if p not in cpus):
        have = ', '.join(_ask('sinfo', '-h', '-o', '%R').stdout.split())
        raise _wrong(lambda p, n=name: n in named(p), f'access: Slurm has no '
                     f'partition {name!r} with nodes (sinfo: {have or "none"}'
                     f')', f'-p {name}', 'access')
    if bad:
        said = '; '.join(f'node {n} of partition {", ".join(parts)} is '
                         f'{state}{why}' for n, (state, why, parts) in
                         sorted(bad.items()))
        raise IogapError(f'{said}: its jobs cannot run (scontrol update '
                         f'nodename=<node> state=resume, once it is back)')
    system = profile.current() or {'partitions': []}
    for part, name in [(p, n) for p in system['partitions']
                       for n in named(p) if n in cpus]:
        if part['processor']['num_cpus'] > cpus[name]:
            raise _wrong(lambda p, q=part: p is q, f'processor.num_cpus: '
                         f'{part["processor"]["num_cpus"]}, but the nodes '
                         f'of Slurm partition {name} have {cpus[name]} '
                         f'(sinfo %c)', 'num_cpus')
    mpi = {p['extras'].get('mpi_type') for p in system['partitions']
           if p.get('launcher') == 'srun'} - {None}
    plugins = set(re.findall(r'^\s*(\w+)\s*$|\b(pmix_v\d+)\b', _ask(
        'srun', '--mpi=list').stdout, re.M)) if mpi else ()
    plugins = {n for pair in plugins for n in pair if n}
    for want in sorted(mpi - plugins):
        raise _wrong(lambda p, w=want: p['extras'].get('mpi_type') == w,
                     f'extras.mpi_type: srun has no MPI plugin {want!r} '
                     f'(srun --mpi=list: {", ".join(sorted(plugins))})',
                     'mpi_type')


def _wrong(which, message, *keys):
    '''The loaded profile's mistake in the first partition ``which``
    takes: one line naming its file, partition and key.'''
    system = profile.current()
    part = next(p for p in system['partitions'] if which(p))
    return profile.mistake(f'system {system["name"]}, partition '
                           f'{part["name"]}: {message}', *keys)
