'''The study's best practices as variants, written once for every family,
which declares each by its function here: a case runs only where the
partition allows it (:data:`CONSTRAINTS`); :class:`Placement` applies it.'''

import re
import types

from reframe.core.builtins import parameter
from reframe.core.exceptions import SanityError

from iogap.core import placement
from iogap.core.darshan import FIGURES as DARSHAN_FIGURES
from iogap.errors import IogapError
from iogap.site import profile


def feature(name, when=None):
    '''A constraint: the partition has feature ``name`` (where ``when``).'''
    return lambda params, part: (when is not None and not when(params)) or \
        name in part.features


def core_specs(part):
    '''Cores per node a partition can reserve: 0 and, with +corespec, more.'''
    return ([0, part.extras['core_spec_cores']] if 'corespec' in part.features
            else [0])


def clocks(part):
    return part.extras['cpu_freqs_khz'] if 'cpufreq' in part.features else []


def core_spec():
    '''Cores per node reserved for system daemons (``--core-spec``).'''
    return parameter(profile.values(core_specs) or [0])


def cpu_bind():
    '''Process affinity: the launcher's default, or tasks bound to cores.'''
    return parameter(['default', 'cores'])


def memory():
    '''Where user buffers live: default, DRAM or MCDRAM (``numactl -m``).'''
    return parameter(['default', 'dram', 'mcdram'])


def cpu_freq():
    '''CPU clock in kHz (``srun --cpu-freq``), of any partition's sweep.'''
    return parameter(profile.values(clocks))


def darshan():
    '''Run the measured steps under darshan-runtime (``on``), or bare.'''
    return parameter(['off', 'on'])


def striping():
    '''Lustre striping of the test directory (:mod:`iogap.core.striping`).'''
    return parameter(['default', 'tuned'])


#: Each variant's constraints, by the name of its parameter
CONSTRAINTS = {
    'core_spec': (lambda p, part: p['core_spec'] in core_specs(part),),
    'cpu_bind': (feature('cpubind', when=lambda p: p['cpu_bind'] == 'cores'),),
    'memory': (feature('mcdram', when=lambda p: p['memory'] != 'default'),),
    'cpu_freq': (lambda p, part: p['cpu_freq'] in clocks(part),),
    # What Darshan sees does not depend on binding: one case is enough
    'darshan': (feature('darshan', when=lambda p: p['darshan'] == 'on'),
                lambda p, part: p['darshan'] == 'off' or
                p.get('cpu_bind', 'default') == 'default'),
    'striping': (feature('lustre', when=lambda p: p['striping'] == 'tuned'),),
}


class Placement:
    '''Where a case's tasks run, as its variants ask: applied and checked.'''

    def __init__(self, test):
        self.test = test
        self.core_spec = getattr(test, 'core_spec', 0)
        self.cpu_bind = getattr(test, 'cpu_bind', 'default')
        self.memory = getattr(test, 'memory', 'default')
        self.cpu_freq = getattr(test, 'cpu_freq', None)

    def extra(self, key):
        return self.test.current_partition.extras[key]

    def cpus_per_task(self):
        proc = self.test.current_partition.processor
        return self.test.cores_per_task * (proc.num_cpus_per_core or 1)

    def apply(self, job):
        '''Set-up: the job's resources, options and launcher parts.'''
        test = self.test
        if self.core_spec:
            test.extra_resources = {**test.extra_resources,
                                    'core_spec': {'cores': self.core_spec}}
        if self.cpu_bind == 'cores':
            options = (self.extra('cpu_bind_options')
                       if test.bind_options is None else test.bind_options)
            test.num_cpus_per_task = self.cpus_per_task()
            test.job.num_cpus_per_task = test.num_cpus_per_task
            job.launcher['binding'] += options
        # NUMA nodes per memory kind exist only on flat-mode nodes
        if self.memory != 'default':
            test.job.options += self.extra('memory_access')
        if self.cpu_freq is not None:
            job.launcher['cpu_freq'] = [f'--cpu-freq={self.cpu_freq}']

    def probe(self, launch=None, ranks=True):
        '''The probe lines: the job's CPUs, then (``ranks``) each task's.'''
        return [placement.JOB_CPUS, *([self.probe_command(launch)]
                                      if ranks else [])]

    def probe_command(self, launch=None):
        '''The probe, launched by ``launch`` (the main step's launcher).'''
        return placement.probe_step(launch or self.test.launch_prefix(),
                                    self.test.own_tools)

    #: Each task's rank, node, CPUs and sockets the probe printed
    ranks = staticmethod(placement.parse)

    def check_ranks(self, ranks, tasks, nodes, sockets=None):
        '''Sanity: :func:`iogap.core.placement.check` of ``ranks``.'''
        single = (self.test.current_partition.processor.num_sockets or 1) == 1
        return placement.check(ranks, tasks, nodes, sockets, single)

    def memory_wrapper(self):
        '''``numactl -m N`` for a memory variant, else nothing.'''
        if self.memory == 'default':
            return []
        return ['numactl', '-m', str(self.extra('numa_nodes')[self.memory])]

    def check(self, text, tasks, nodes, sockets=None):
        '''Sanity: ranks, binding, reserved cores, clock; summary and CPUs.'''
        ranks = placement.parse(text)
        masks = check_binding(self.cpu_bind, [r['cpus'] for r in ranks],
                              self.cpus_per_task(),
                              self.test.current_partition.processor.num_cpus,
                              self.test.job.launcher.options)
        summary = self.check_ranks(ranks, tasks, nodes, sockets)
        self.check_core_spec(placement.job_cpus(text))
        if self.cpu_freq is not None:
            self.test.note(placement.check_clock(ranks, self.cpu_freq))
        return summary, masks

    def check_core_spec(self, job_cpus):
        '''Sanity: the job's own CPUs leave the reserved cores out.'''
        if not self.core_spec:
            return
        proc = self.test.current_partition.processor
        limit = (proc.num_cpus or 0) - self.core_spec * (
            proc.num_cpus_per_core or 1)
        if job_cpus is None or placement.cpu_count(job_cpus) > limit:
            raise SanityError(f'asked for --core-spec={self.core_spec} but '
                              f'the job may run on CPUs {job_cpus} (at most '
                              f'{limit} expected): no core was reserved')


def check_binding(cpu_bind, masks, wanted, total, options):
    '''Sanity: bound tasks ran on their own ``wanted`` CPUs; the masks.'''
    if not masks:
        raise SanityError('the job printed no affinity report')
    total = total or 0
    for task, mask in enumerate(masks):
        used = placement.cpu_count(mask)
        which = f'task {task}' if len(masks) > 1 else 'the task'
        if cpu_bind == 'cores' and used > wanted and total > wanted:
            raise SanityError(
                f'asked to bind each task to {wanted} CPU(s) with '
                f'{" ".join(options)}, but {which} ran on CPUs {mask} '
                f'({used} of {total}): no binding happened')
    if cpu_bind == 'cores' and len(masks) > 1 and \
            len(set(masks)) < len(masks) and total >= len(masks) * wanted:
        raise SanityError(f'bound tasks share CPUs: {" ".join(masks)}')
    return ' '.join(masks)


#: Binary units in any case, as IOR, fio, Lustre and ROMIO read them
BINARY = {'': 1, 'k': 2**10, 'm': 2**20, 'g': 2**30, 't': 2**40}
#: dd's suffixes (GNU coreutils), case as dd reads it
DD_UNITS = {'': 1, 'c': 1, 'w': 2, 'b': 512, 'K': 1024, 'k': 1024,
            'M': 2**20, 'G': 2**30, 'kB': 1000, 'MB': 10**6, 'GB': 10**9}


def size_bytes(text, what='size', units=None):
    '''Bytes in a size such as ``1m`` (dd's units with ``units='dd'``).'''
    units = DD_UNITS if units == 'dd' else units
    match = re.fullmatch(r'(\d+)([A-Za-z]*)', str(text).strip())
    suffix = match and (match.group(2) if units else match.group(2).lower())
    if not match or suffix not in (units or BINARY) or \
            (not units and int(match.group(1)) == 0):
        accepted = 'dd accepts (e.g. 4K, 1M)' if units else '(e.g. 4k, 1m, 1g)'
        raise IogapError(f'{what} {text!r} is not a size {accepted}')
    return int(match.group(1)) * (units or BINARY)[suffix]


def size_text(nbytes):
    '''``nbytes`` in the largest binary unit dividing it (``64k``).'''
    unit = max((u for u, n in BINARY.items() if nbytes % n == 0),
               key=BINARY.get)
    return f'{nbytes // BINARY[unit]}{unit}'


#: What a family declares its variants with: their parameters, feature
#: constraints, partition-shaped values and Darshan's figures
variant = types.SimpleNamespace(
    core_spec=core_spec, cpu_bind=cpu_bind, memory=memory, cpu_freq=cpu_freq,
    darshan=darshan, striping=striping, feature=feature,
    core_specs=core_specs, clocks=clocks, values=profile.values,
    per_node_counts=placement.per_node_counts,
    darshan_figures=DARSHAN_FIGURES)
