'''The study's best practices as variants, written once for every family.

Core specialization (``--core-spec``, the study's ``#SBATCH -S 4``),
process affinity (``srun --cpu-bind=cores -c N``, ``mpirun --bind-to
core``), user-memory placement (``numactl -m`` on flat-mode nodes) and
fixed CPU clocks; Lustre striping is :mod:`iogap.core.striping`. A variant
that needs a partition feature is only generated where the feature is.
What each task really got is read inside the job
(:mod:`iogap.core.placement`) and checked.
'''

import re

import reframe as rfm
import reframe.utility.typecheck as typ
from reframe.core.builtins import parameter, run_after, variable
from reframe.core.exceptions import SanityError

from iogap import profile
from iogap.core import placement
from iogap.core.cases import feature
from iogap.errors import IogapError


def core_specs(part):
    '''Cores a partition can reserve per node: none, or its
    extras['core_spec_cores'] (the study's 4) where it has +corespec.'''
    if 'corespec' not in part.features:
        return [0]

    return [0, part.extras['core_spec_cores']]


class CoreSpec(rfm.RegressionTestPlugin):
    #: Cores per node reserved for system daemons (``--core-spec``); 0
    #: leaves all to the job
    core_spec = parameter(profile.values(core_specs) or [0])

    CONSTRAINTS = (lambda p, part: p['core_spec'] in core_specs(part),)

    @run_after('setup')
    def _core_spec_resource(self):
        if self.core_spec:
            self.extra_resources = {**self.extra_resources,
                                    'core_spec': {'cores': self.core_spec}}

    def check_core_spec(self, job_cpus):
        '''Sanity: with ``core_spec`` cores reserved, the job's own CPU list
        (``job_cpus``, read in the job) must leave them out.'''
        if not self.core_spec:
            return

        proc = self.current_partition.processor
        limit = (proc.num_cpus or 0) - self.core_spec * (
            proc.num_cpus_per_core or 1)
        if job_cpus is None or placement.cpu_count(job_cpus) > limit:
            raise SanityError(f'asked for --core-spec={self.core_spec} but '
                              f'the job may run on CPUs {job_cpus} (at most '
                              f'{limit} expected): no core was reserved')


class CpuBind(rfm.RegressionTestPlugin):
    #: Process affinity: the launcher's default, or each task bound to cores
    cpu_bind = parameter(['default', 'cores'])

    #: Cores given to each task when binding (``-c`` counts their threads)
    cores_per_task = variable(int, value=1)

    #: Launcher options that bind; ``None`` takes extras['cpu_bind_options']
    bind_options = variable(typ.List[str], type(None), value=None)

    CONSTRAINTS = (feature('cpubind',
                           when=lambda p: p['cpu_bind'] == 'cores'),)

    def cpus_per_task(self):
        threads = self.current_partition.processor.num_cpus_per_core or 1
        return self.cores_per_task * threads

    @run_after('setup')
    def _cpu_bind_options(self):
        if self.cpu_bind == 'cores':
            options = self.bind_options
            if options is None:
                options = self.extra('cpu_bind_options')

            self.num_cpus_per_task = self.cpus_per_task()
            self.job.num_cpus_per_task = self.num_cpus_per_task
            self.job_sections.launcher['binding'] += options

    def check_binding(self, masks):
        '''Sanity: every task asked to bind ran on its own cores only.
        ``masks`` are the tasks' CPU lists; returns them, space-separated.'''
        if not masks:
            raise SanityError('the job printed no affinity report')

        wanted = self.cpus_per_task()
        total = self.current_partition.processor.num_cpus or 0
        for task, mask in enumerate(masks):
            used = placement.cpu_count(mask)
            which = f'task {task}' if len(masks) > 1 else 'the task'
            if self.cpu_bind == 'cores' and used > wanted and total > wanted:
                raise SanityError(
                    f'asked to bind each task to {wanted} CPU(s) with '
                    f'{" ".join(self.job.launcher.options)}, but {which} ran '
                    f'on CPUs {mask} ({used} of {total}): no binding happened'
                )

        if self.cpu_bind == 'cores' and len(masks) > 1 and \
                len(set(masks)) < len(masks) and total >= len(masks) * wanted:
            raise SanityError(f'bound tasks share CPUs: {" ".join(masks)}')

        return ' '.join(masks)


class MemoryPlacement(rfm.RegressionTestPlugin):
    #: Where user buffers live: node default, DDR (``numactl -m`` DRAM node)
    #: or high-bandwidth MCDRAM (flat-mode nodes)
    memory = parameter(['default', 'dram', 'mcdram'])

    CONSTRAINTS = (feature('mcdram', when=lambda p: p['memory'] != 'default'),)

    def memory_wrapper(self):
        '''``numactl -m N`` for a memory variant, else nothing.'''
        if self.memory == 'default':
            return []

        return ['numactl', '-m', str(self.extra('numa_nodes')[self.memory])]

    @run_after('setup')
    def _memory_nodes(self):
        # NUMA nodes per memory kind exist only on flat-mode nodes
        if self.memory != 'default':
            self.job.options += self.extra('memory_access')


def clocks(part):
    '''The CPU clocks (kHz) a partition can be swept over.'''
    return part.extras['cpu_freqs_khz'] if 'cpufreq' in part.features else []


class CpuClock(rfm.RegressionTestPlugin):
    #: CPU clock in kHz (``srun --cpu-freq``): the union of the selected
    #: system's sweeps, each case kept on the partitions that list it
    cpu_freq = parameter(profile.values(clocks))

    CONSTRAINTS = (lambda p, part: p['cpu_freq'] in clocks(part),)

    @run_after('setup')
    def _pin_clock(self):
        self.job_sections.launcher['cpu_freq'] = [
            f'--cpu-freq={self.cpu_freq}']

    def check_clock(self, text):
        '''Sanity: the clock each rank's probe read is the one asked for.'''
        self.note(placement.check_clock(placement.parse(text),
                                        self.cpu_freq))


#: Binary units in any case, as IOR, fio, Lustre and ROMIO read them
BINARY = {'': 1, 'k': 2**10, 'm': 2**20, 'g': 2**30, 't': 2**40}

#: dd's suffixes (GNU coreutils), case as dd reads it
DD_UNITS = {'': 1, 'c': 1, 'w': 2, 'b': 512, 'K': 1024, 'k': 1024,
            'M': 2**20, 'G': 2**30, 'kB': 1000, 'MB': 10**6, 'GB': 10**9}


def size_bytes(text, what='size', units=None):
    '''Bytes in a size such as ``1m`` or ``4K``: :data:`BINARY` units, or
    with ``units=DD_UNITS`` a size dd accepts. Zero is not a size.'''
    match = re.fullmatch(r'(\d+)([A-Za-z]*)', str(text).strip())
    suffix = match and (match.group(2) if units else match.group(2).lower())
    if not match or suffix not in (units or BINARY) or \
            (not units and int(match.group(1)) == 0):
        accepted = 'dd accepts (e.g. 4K, 1M)' if units else '(e.g. 4k, 1m, 1g)'
        raise IogapError(f'{what} {text!r} is not a size {accepted}')

    return int(match.group(1)) * (units or BINARY)[suffix]
