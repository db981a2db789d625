'''The study's best practices as variants, written once for every family.

Core specialization (``--core-spec``, the study's ``#SBATCH -S 4``),
process affinity (``srun --cpu-bind=cores -c N``, ``mpirun --bind-to
core``), user-memory placement (``numactl -m`` on flat-mode nodes) and
fixed CPU clocks; Lustre striping is :mod:`iogap.core.striping`. A family
states a variant by declaring its parameter with the function of that name
here (``core_spec = variants.core_spec()``); a variant that needs a
partition feature is only generated where the feature is
(:data:`CONSTRAINTS`). The harness applies the variants to the job
(:class:`Placement`), and what each task really got is read inside the job
(:mod:`iogap.core.placement`) and checked.
'''

import re
import types

from reframe.core.builtins import parameter
from reframe.core.exceptions import SanityError

from iogap.core import placement
from iogap.core.darshan import FIGURES as DARSHAN_FIGURES
from iogap.errors import IogapError
from iogap.site import profile


def feature(name, when=None):
    '''A constraint: the partition needs feature ``name`` (for the cases
    where ``when(params)`` holds, or always).'''
    return lambda params, part: (when is not None and not when(params)) or \
        name in part.features


def core_specs(part):
    '''Cores a partition can reserve per node: none, or its
    extras['core_spec_cores'] (the study's 4) where it has +corespec.'''
    if 'corespec' not in part.features:
        return [0]

    return [0, part.extras['core_spec_cores']]


def clocks(part):
    '''The CPU clocks (kHz) a partition can be swept over.'''
    return part.extras['cpu_freqs_khz'] if 'cpufreq' in part.features else []


# A family states its variants by declaring their parameters with the
# functions below; each parameter's constraint is found here by its name.

def core_spec():
    '''Cores per node reserved for system daemons (``--core-spec``); 0
    leaves all to the job.'''
    return parameter(profile.values(core_specs) or [0])


def cpu_bind():
    '''Process affinity: the launcher's default, or each task bound to
    cores (``cores_per_task`` of them).'''
    return parameter(['default', 'cores'])


def memory():
    '''Where user buffers live: node default, DDR (``numactl -m`` DRAM
    node) or high-bandwidth MCDRAM (flat-mode nodes).'''
    return parameter(['default', 'dram', 'mcdram'])


def cpu_freq():
    '''CPU clock in kHz (``srun --cpu-freq``): the union of the selected
    system's sweeps, each case kept on the partitions that list it.'''
    return parameter(profile.values(clocks))


def darshan():
    '''Run the measured steps under darshan-runtime (``on``), or bare.'''
    return parameter(['off', 'on'])


def striping():
    '''Lustre striping of the test directory: the file system's default,
    or the partition's extras['lustre_stripes'][layout] count and size.'''
    return parameter(['default', 'tuned'])


#: Each variant's constraints, by the name of its parameter
CONSTRAINTS = {
    'core_spec': (lambda p, part: p['core_spec'] in core_specs(part),),
    'cpu_bind': (feature('cpubind', when=lambda p: p['cpu_bind'] == 'cores'),),
    'memory': (feature('mcdram', when=lambda p: p['memory'] != 'default'),),
    'cpu_freq': (lambda p, part: p['cpu_freq'] in clocks(part),),
    # What Darshan sees does not depend on binding: one instrumented case
    # per configuration is enough
    'darshan': (feature('darshan', when=lambda p: p['darshan'] == 'on'),
                lambda p, part: p['darshan'] == 'off' or
                p.get('cpu_bind', 'default') == 'default'),
    'striping': (feature('lustre', when=lambda p: p['striping'] == 'tuned'),),
}


class Placement:
    '''Where a case's tasks run, as its variants ask: applied to its job
    at set-up and checked against what the placement probe printed. A
    variant the family does not declare is at its default.'''

    def __init__(self, test):
        self.test = test
        self.core_spec = getattr(test, 'core_spec', 0)
        self.cpu_bind = getattr(test, 'cpu_bind', 'default')
        self.memory = getattr(test, 'memory', 'default')
        self.cpu_freq = getattr(test, 'cpu_freq', None)

    def extra(self, key):
        return self.test.current_partition.extras[key]

    def cpus_per_task(self):
        '''CPUs (hardware threads) each bound task is given.'''
        proc = self.test.current_partition.processor
        return self.test.cores_per_task * (proc.num_cpus_per_core or 1)

    def apply(self, job):
        '''Set-up: the job's resources, options and launcher parts
        (``job`` is the test's :class:`~iogap.core.jobscript.JobSections`).'''
        test = self.test
        if self.core_spec:
            test.extra_resources = {**test.extra_resources,
                                    'core_spec': {'cores': self.core_spec}}
        if self.cpu_bind == 'cores':
            options = test.bind_options
            if options is None:
                options = self.extra('cpu_bind_options')
            test.num_cpus_per_task = self.cpus_per_task()
            test.job.num_cpus_per_task = test.num_cpus_per_task
            job.launcher['binding'] += options
        # NUMA nodes per memory kind exist only on flat-mode nodes
        if self.memory != 'default':
            test.job.options += self.extra('memory_access')
        if self.cpu_freq is not None:
            job.launcher['cpu_freq'] = [f'--cpu-freq={self.cpu_freq}']

    def probe(self, launch=None, ranks=True):
        '''The job's probe lines: its own CPUs, then (with ``ranks``) each
        task's placement, launched by ``launch`` (the main step's launcher
        by default; a tool that probes itself, as dd's driver does, asks
        for none).'''
        return [placement.JOB_CPUS, *([self.probe_command(launch)]
                                      if ranks else [])]

    def probe_command(self, launch=None):
        '''The placement probe, launched as ``launch`` launches.'''
        return placement.probe_step(launch or self.test.launch_prefix(),
                                    self.test.own_tools)

    @staticmethod
    def ranks(text):
        '''Each task's rank, node, CPUs and sockets the probe printed.'''
        return placement.parse(text)

    def check_ranks(self, ranks, tasks, nodes, sockets=None):
        '''Sanity: ``ranks`` (:meth:`ranks`) are ``tasks`` on ``nodes``,
        ranks 0 and 1 on the ``sockets`` asked; returns a summary.'''
        single = (self.test.current_partition.processor.num_sockets or 1) \
            == 1
        return placement.check(ranks, tasks, nodes, sockets, single)

    def memory_wrapper(self):
        '''``numactl -m N`` for a memory variant, else nothing.'''
        if self.memory == 'default':
            return []

        return ['numactl', '-m', str(self.extra('numa_nodes')[self.memory])]

    def check(self, text, tasks, nodes, sockets=None):
        '''Sanity: the probe's ranks (``tasks`` on ``nodes``, ranks 0 and 1
        on ``sockets`` if given), the binding, the reserved cores and the
        clock. Returns the placement summary and each rank's CPUs.'''
        ranks = placement.parse(text)
        masks = check_binding(self.cpu_bind, [r['cpus'] for r in ranks],
                              self.cpus_per_task(),
                              self.test.current_partition.processor.num_cpus,
                              self.test.job.launcher.options)
        single = (self.test.current_partition.processor.num_sockets or 1) == 1
        summary = placement.check(ranks, tasks, nodes, sockets, single)
        self.check_core_spec(placement.job_cpus(text))
        if self.cpu_freq is not None:
            self.test.note(placement.check_clock(ranks, self.cpu_freq))
        return summary, masks

    def check_core_spec(self, job_cpus):
        '''Sanity: with ``core_spec`` cores reserved, the job's own CPU
        list (``job_cpus``, read in the job) must leave them out.'''
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
    '''Sanity: with ``cpu_bind='cores'`` every task ran on its own
    ``wanted`` CPUs only (of ``total``; ``options`` the launcher's, for
    the message). ``masks`` are the tasks' CPU lists; returns them,
    space-separated.'''
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
    '''Bytes in a size such as ``1m`` or ``4K``: :data:`BINARY` units, or
    with ``units='dd'`` a size dd accepts. Zero is not a size.'''
    units = DD_UNITS if units == 'dd' else units
    match = re.fullmatch(r'(\d+)([A-Za-z]*)', str(text).strip())
    suffix = match and (match.group(2) if units else match.group(2).lower())
    if not match or suffix not in (units or BINARY) or \
            (not units and int(match.group(1)) == 0):
        accepted = 'dd accepts (e.g. 4K, 1M)' if units else '(e.g. 4k, 1m, 1g)'
        raise IogapError(f'{what} {text!r} is not a size {accepted}')

    return int(match.group(1)) * (units or BINARY)[suffix]


def size_text(nbytes):
    '''``nbytes`` in the largest binary unit that divides it (``65536`` ->
    ``64k``): the inverse of :func:`size_bytes`.'''
    unit = max((u for u, n in BINARY.items() if nbytes % n == 0),
               key=BINARY.get)
    return f'{nbytes // BINARY[unit]}{unit}'


#: What a family declares its variants with: each parameter by the
#: function of its name (``core_spec = variant.core_spec()``), a
#: constraint on a partition feature (``variant.feature('mpi')``), a
#: partition-shaped parameter's values (``variant.values(of)``) and the
#: figures Darshan adds to a ``darshan`` case
variant = types.SimpleNamespace(
    core_spec=core_spec, cpu_bind=cpu_bind, memory=memory, cpu_freq=cpu_freq,
    darshan=darshan, striping=striping, feature=feature,
    core_specs=core_specs, clocks=clocks, values=profile.values,
    per_node_counts=placement.per_node_counts,
    darshan_figures=DARSHAN_FIGURES)
