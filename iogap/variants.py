'''Variants from the study's best practices, written once for every family.

Mix them into a family's base test: core specialization (Slurm
``--core-spec``, the study's ``#SBATCH -S 4``), process affinity (``srun -c N
--cpu-bind=cores``, ``mpirun --bind-to core``) and user-memory placement
(``numactl -m``), and Lustre striping of the test directory (``lfs
setstripe``). A variant that needs a partition feature is only generated
for partitions that have it. The binding a task actually got is read inside
the job and checked against what was asked.
'''

import os
import re

import reframe as rfm
import reframe.utility.typecheck as typ
from reframe.core.builtins import parameter, run_after, run_before, variable
from reframe.core.exceptions import SanityError

from iogap import iorparse, placement
from iogap.base import require_feature
from iogap.errors import IogapError



class CoreSpecVariant(rfm.RegressionTestPlugin):
    #: Cores per node reserved for system daemons; 0 leaves all to the job
    core_spec = parameter([0, 4])

    @run_after('init')
    def _core_spec_feature(self):
        if self.core_spec:
            require_feature(self, 'corespec')

    @run_before('run')
    def _core_spec_resource(self):
        if self.core_spec:
            self.extra_resources = {'core_spec': {'cores': self.core_spec}}


class CpuBindVariant(rfm.RegressionTestPlugin):
    #: Process affinity: the launcher's default, or each task bound to cores
    cpu_bind = parameter(['default', 'cores'])

    #: Cores given to each task when binding (``-c`` counts their threads)
    cores_per_task = variable(int, value=1)

    #: Launcher options that bind; ``None`` takes extras['cpu_bind_options']
    bind_options = variable(typ.List[str], type(None), value=None)

    @run_after('init')
    def _cpu_bind_feature(self):
        if self.cpu_bind == 'cores':
            require_feature(self, 'cpubind')

    def task_placement(self):
        '''Every task of the main step: rank, host, CPUs, sockets.'''
        with open(os.path.join(self.stagedir, self.job.stdout)) as fp:
            return placement.parse(fp.read())

    def cpus_per_task(self):
        threads = self.current_partition.processor.num_cpus_per_core or 1
        return self.cores_per_task * threads

    @run_after('setup')
    def _cpu_bind_options(self):
        # The job's main step reports where every task ran
        self.executable, self.executable_opts = placement.probe_command()
        if self.cpu_bind == 'cores':
            options = self.bind_options
            if options is None:
                options = self.current_partition.extras['cpu_bind_options']

            # The job is set up already: the per-step launches read it
            self.num_cpus_per_task = self.cpus_per_task()
            self.job.num_cpus_per_task = self.num_cpus_per_task
            self.launch_options += options

    def check_binding(self, masks=None):
        '''Sanity: every task asked to bind must have run on its cores only.

        ``masks`` are the tasks' CPU lists; by default those the placement
        probe printed. Returns them, space-separated.
        '''
        if masks is None:
            masks = [r["cpus"] for r in self.task_placement()]

        if not masks:
            raise SanityError('the job printed no affinity report')

        wanted = self.cpus_per_task()
        for task, mask in enumerate(masks):
            used = cpu_count(mask)
            total = self.current_partition.processor.num_cpus or used
            which = f'task {task}' if len(masks) > 1 else 'the task'
            if self.cpu_bind == 'cores' and used > wanted and total > wanted:
                raise SanityError(
                    f'asked to bind each task to {wanted} CPU(s) with '
                    f'{" ".join(self.launch_options)}, but {which} ran on '
                    f'CPUs {mask} ({used} of {total}): no binding happened'
                )

        return ' '.join(masks)


class MemoryPlacementVariant(rfm.RegressionTestPlugin):
    #: Where user buffers live: node default, DDR (``numactl -m`` DRAM node)
    #: or high-bandwidth MCDRAM (flat mode)
    memory = parameter(['default', 'dram', 'mcdram'])

    @run_after('init')
    def _memory_feature(self):
        if self.memory != 'default':
            require_feature(self, 'mcdram')

    @run_before('run')
    def _memory_wrapper(self):
        if self.memory != 'default':
            node = self.current_partition.extras['numa_nodes'][self.memory]
            self.launch_wrappers = ['numactl', '-m', str(node)]


def cpu_count(cpulist):
    '''Number of CPUs in a kernel cpu list such as ``0-3,8,10-11``.'''
    count = 0
    for part in cpulist.split(','):
        lo, _, hi = part.partition('-')
        count += int(hi or lo) - int(lo) + 1

    return count


class LustreStripeVariant(rfm.RegressionTestPlugin):
    #: Lustre striping of the test directory: the file system's default,
    #: or the partition's extras['lustre_stripes'][layout] count and size
    striping = parameter(['default', 'tuned'])

    @run_after('init')
    def _striping_feature(self):
        if self.striping == 'tuned':
            require_feature(self, 'lustre')

    def stripe_commands(self, layout):
        if self.striping == 'default':
            return []

        conf = self.current_partition.extras['lustre_stripes'][layout]
        if iorparse.size_bytes(conf['size'], 'stripe size') % 65536:
            raise IogapError(f'Lustre stripe size {conf["size"]} is not a '
                             f'multiple of 64 KiB')

        self.stripe_count = int(conf['count'])
        self.note(f'stripe={conf["count"]}x{conf["size"]}')
        return [f'lfs setstripe -c {conf["count"]} -S {conf["size"]} '
                f'"$IOGAP_DIR"', 'lfs getstripe -d "$IOGAP_DIR"']

    def check_striping(self, stdout):
        '''Sanity: the directory got the stripe count asked for.'''
        if self.striping == 'default':
            return

        m = re.search(r'stripe_count:\s*(-?\d+)', stdout)
        if not m or int(m.group(1)) != self.stripe_count:
            raise SanityError(f'lfs setstripe -c {self.stripe_count} did not '
                              f'apply: lfs getstripe printed '
                              f'{m.group(0) if m else "no stripe_count"}')
