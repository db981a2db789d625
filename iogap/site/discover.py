'''What a Slurm cluster says of itself. For a new site's profile, from a
login node: scontrol, and one ``srun -N1`` step per partition for the node
itself, core specialization and ``--cpu-freq`` tried for real (a failed
command stops it in one line). Before any job of a run: the controller
answers, the partitions the run selected (``--system <system>:<partition>``)
are Slurm's, none of their nodes is down, and the profile says of them what
Slurm does.'''

import re
import shlex
import subprocess

from iogap import inputs
from iogap.errors import IogapError, ProfileError
from iogap.site import profile

#: Asked on the node, each section under its own header
NODE_PROBE = r'''
d=$1; while [ ! -d "$d" ]; do d=$(dirname "$d"); done
echo "== lscpu"; lscpu
echo "== uid"; id -u
echo "== fs"; findmnt -n -o FSTYPE,SOURCE,TARGET -T "$d"
echo "== lfs"; command -v lfs >/dev/null && lfs df "$d" 2>&1 | tail -3
echo "== dropcaches"; [ -w /proc/sys/vm/drop_caches ] && echo yes || echo no
echo "== clocks"
f=/sys/devices/system/cpu/cpu0/cpufreq
cat $f/scaling_available_frequencies 2>/dev/null ||
    cat $f/cpuinfo_min_freq $f/cpuinfo_max_freq 2>/dev/null | paste -sd' ' -
echo "== governors"; cat $f/scaling_available_governors 2>/dev/null
echo "== mpirun"; mpirun --version 2>/dev/null | head -1; command -v mpirun
echo "== dd"; dd --version 2>/dev/null | head -1; command -v dd
echo "== h5pcc"; h5pcc -showconfig 2>/dev/null |
    grep -E "HDF5 Version|Parallel HDF5"; command -v h5pcc
echo "== numactl"; command -v numactl
true
'''

_KV = re.compile(r'(\w+)=(.*?)(?= \w+=|$)')


def run(cmd, timeout=300):
    '''stdout of ``cmd`` (a list), or one line saying what failed.'''
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise ProfileError(f'{shlex.join(cmd)}: {err}') from None
    if proc.returncode != 0:
        said = (proc.stderr.strip() or proc.stdout.strip() or
                f'exit code {proc.returncode}').splitlines()[-1]
        raise ProfileError(f'{shlex.join(cmd)} failed: {said}')
    return proc.stdout


def records(text):
    '''``scontrol -o show ...``: one ``{key: value}`` per line.'''
    return [{k: v.strip() for k, v in _KV.findall(line.strip())}
            for line in text.splitlines() if line.strip()]


def config(text):
    '''``scontrol show config``: ``{key: value}``.'''
    pairs = (line.split('=', 1) for line in text.splitlines()
             if ' = ' in line)
    return {k.strip(): v.strip() for k, v in pairs}


def sections(text):
    '''The node probe's output: ``{section: [lines]}``.'''
    found, current = {}, None
    for line in text.splitlines():
        if line.startswith('== '):
            current = found.setdefault(line[3:].strip(), [])
        elif current is not None and line.strip():
            current.append(line.strip())
    return found


def within_slurm(proc, nodes):
    '''``proc`` (from lscpu) cut to the CPUs Slurm gives a job on the least
    of ``nodes``: a node in a cpuset or a container sees the host's CPUs.'''
    try:
        least = min(nodes, key=lambda n: int(n['CPUTot']))
        cpus, sockets = int(least['CPUTot']), int(least['Sockets'])
        threads = int(least['ThreadsPerCore'])
    except (KeyError, ValueError):
        return proc
    if not nodes or cpus >= proc['num_cpus']:
        return proc
    # sockets x CPUs a socket make num_cpus, as the profile's check asks
    sockets = sockets if sockets and cpus % sockets == 0 else 1
    threads = threads if (cpus // sockets) % max(threads, 1) == 0 else 1
    return dict(proc, num_cpus=cpus, num_cpus_per_core=threads,
                num_sockets=sockets, num_cpus_per_socket=cpus // sockets)


def lscpu(lines):
    '''A ReFrame ``processor`` entry from ``lscpu`` lines.'''
    info = dict(line.split(':', 1) for line in lines if ':' in line)
    info = {k.strip(): v.strip() for k, v in info.items()}
    try:
        sockets = int(info['Socket(s)'])
        cores = int(info['Core(s) per socket']) * sockets
        threads = int(info['Thread(s) per core'])
    except (KeyError, ValueError) as err:
        raise ProfileError(f'lscpu on the node gave no {err}') from None
    return {'arch': info.get('Architecture', ''), 'num_cpus': cores * threads,
            'num_cpus_per_core': threads, 'num_sockets': sockets,
            'num_cpus_per_socket': cores * threads // sockets,
            'model': info.get('Model name', '')}


def mpi_plugins(listing):
    '''The MPI plugins ``srun --mpi=list`` names.'''
    found = re.findall(r'^\s*(\w+)\s*$|\b(pmix_v\d+)\b', listing, re.M)
    return {name for pair in found for name in pair if name}


def mpi_type(listing):
    '''srun's MPI plugin for the tools: PMIx, else PMI-2, else none.'''
    return next((want for want in ('pmix', 'pmi2')
                 if want in mpi_plugins(listing)), None)


class Cluster:
    '''The cluster as Slurm describes it, asked through ``srun`` steps.'''

    def __init__(self):
        self.config = config(run(['scontrol', 'show', 'config']))
        self.nodes = records(run(['scontrol', '-o', 'show', 'node']))
        self.partitions = [p for p in records(run(
            ['scontrol', '-o', 'show', 'partition']))
            if p.get('State') == 'UP']
        self.mpi = mpi_type(run(['srun', '--mpi=list']))

    def chosen(self, wanted):
        '''The partitions named in ``wanted`` (comma-separated), each up, else
        every one that is up; a wrong name is refused before any step runs.'''
        up = [p['PartitionName'] for p in self.partitions]
        wrong = [n for n in wanted.split(',') if n not in up] if wanted else []
        if wrong:
            raise ProfileError(f'--partitions {wanted}: '
                               f'{", ".join(map(repr, wrong))} is not a '
                               f'partition that is up in this Slurm (up: '
                               f'{", ".join(up) or "none"}); name those to '
                               f'probe')
        return wanted.split(',') if wanted else up

    def allows(self, key):
        return self.config.get(key, '').lower() in ('yes', '1')

    def nodes_of(self, partition):
        return [n for n in self.nodes
                if partition in n.get('Partitions', '').split(',')]

    def features_of(self, partition):
        '''Node features every node of the partition has.'''
        sets = [set(n.get('AvailableFeatures', '').split(','))
                - {'(null)', ''} for n in self.nodes_of(partition)]
        return sorted(set.intersection(*sets)) if sets else []

    def step(self, partition, *command, options=(), timeout=300, minutes=5):
        '''stdout of a one-task step on one node of ``partition``.'''
        mpi = [f'--mpi={self.mpi or "none"}']
        return run(['srun', '-p', partition, '-N1', '-n1', '-t',
                    str(minutes), '--exclusive', *mpi, *options, *command],
                   timeout=timeout)

    def probe(self, partition, scratch):
        return sections(self.step(partition, 'bash', '-c', NODE_PROBE,
                                  'probe', scratch))

    def core_spec_works(self, partition):
        '''A job may reserve a core: allowed, and a step asking for it runs.'''
        if not self.allows('AllowSpecResourcesUsage'):
            return False
        try:
            self.step(partition, 'true', options=['--core-spec=1'])
            return True
        except ProfileError:
            return False

    def clock_applied(self, partition, khz):
        '''The clock a ``--cpu-freq`` step ran at, in kHz, or ``None``.'''
        try:
            out = self.step(partition, 'bash', '-c',
                            'cat /sys/devices/system/cpu/cpu$(cut -d" " '
                            '-f39 /proc/self/stat)/cpufreq/scaling_cur_freq',
                            options=[f'--cpu-freq={khz}'])
            return int(out.split()[0])
        except (ProfileError, ValueError, IndexError):
            return None


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
    plugins = mpi_plugins(_ask('srun', '--mpi=list').stdout) if mpi else set()
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
