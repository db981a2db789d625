'''IOR: parallel bandwidth over processes per node, nodes, APIs and modes.

The processes-per-node sweep (powers of two up to the partition's cores,
plus the core count) and the node counts depend on the partition, so they
cannot be class parameters: one job per case is sized for its largest
point and runs every point as a launcher step of its own. Each point
writes with ``-w -W -k``, evicts the files from the page cache, then reads
three times with ``-r -R -C -G`` and no flush in between: pass 1 is
*read-once*, the mean of the three is *read-3x* (the study's patterns).
'''

import os
import re
import subprocess

from reframe.core.builtins import (parameter, run_after, run_before,
                                   sanity_function, variable)
from reframe.core.exceptions import SkipTestError

from iogap import iorparse, steps
from iogap.base import require_feature
from iogap.pagecache import PageCacheEviction
from iogap.sweep import ParallelIOTest
from iogap.variants import LustreStripeVariant

#: Read passes per point: the first is read-once, all three read-3x
READ_PASSES = 3
_UNITS = {'bw': 'MiB/s', 'bw_max': 'MiB/s', 'bw_min': 'MiB/s',
          'iops': 'ops/s', 'time': 's'}


class IORBase(ParallelIOTest, LustreStripeVariant, PageCacheEviction):
    '''IOR write / read-once / read-3x at every point of :meth:`cases`.'''

    TOOL = 'ior'

    #: Bytes per task (``-b``); ``None`` takes extras['ior_block_size']
    #: (default ``1g``, the study's)
    block_size = variable(str, type(None), value=None)

    #: Bytes per call (``-t``); ``None`` takes extras['ior_transfer_size']
    transfer_size = variable(str, type(None), value=None)

    #: Write iterations (``-i``); ``None`` takes extras['repetitions']
    repetitions = variable(int, type(None), value=None)

    @run_after('init')
    def _api_feature(self):
        if self.api == 'HDF5':
            require_feature(self, 'hdf5')

    @run_after('setup')
    def _ior_setup(self):
        if self.mode == 'direct':
            if self.api != 'POSIX':
                raise SkipTestError(f'IOR 4.0.0 silently ignores '
                                    f'--posix.odirect with -a {self.api}: '
                                    f'only its POSIX backend does O_DIRECT')
            if 'odirect' not in self.current_partition.features:
                raise SkipTestError(self.extra('odirect_reason') or
                                    'the scratch file system lacks O_DIRECT')

        # The study's 1 GiB per process unless the profile says otherwise
        self.block_size = self.block_size or self.extra('ior_block_size', '1g')
        self.transfer_size = (self.transfer_size or
                              self.extra('ior_transfer_size', '1m'))
        self.block_bytes, _ = iorparse.check_sizes(
            self.block_size, self.transfer_size, self.mode == 'direct')
        self.repetitions = self.repetitions or self.extra('repetitions', 3)
        self.scratch_bytes = max(n * p for n, p in self.points()) * \
            self.block_bytes
        if self.mode != 'direct':
            self.dd = self.tool('dd')

        # Last, so that the logged provider is IOR's
        self.ior = self.tool('ior')
        self._check_api()

    def _check_api(self):
        '''On a local partition, skip when IOR was built without the API.'''
        if self.current_partition.scheduler.registered_name != 'local':
            return

        try:
            out = subprocess.run([self.ior, '-h'], capture_output=True,
                                 text=True, timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            return

        if (m := re.search(r'API for I/O \[([^\]]+)\]', out)) and \
                self.api not in m.group(1).split('|'):
            raise SkipTestError(f'{self.ior} was built without the '
                                f'{self.api} API (it has {m.group(1)})')

    def cases(self):
        '''``[(key, nodes, ppn, extra IOR flags)]``, one per point.'''
        return [(f'n{n}_p{p}', n, p, []) for n, p in self.points()]

    def ior_command(self, nodes, ppn, flags, *opts):
        api = [f'-a {self.api}'] + (['-F'] if self.layout == 'fpp' else [])
        if self.mode == 'direct':
            api += ['--posix.odirect']

        return ' '.join([self.launch_step(nodes, ppn), self.ior, *api, *flags,
                         f'-b {self.block_size} -t {self.transfer_size}',
                         '-o "$IOGAP_DIR/ior.dat"', *opts])

    @run_before('run')
    def _ior_commands(self):
        self.prerun_cmds += self.stripe_commands(self.layout)
        evicting = self.mode != 'direct'
        if evicting:
            self.postrun_cmds += [
                self.evict_function(self.dd, '"$IOGAP_DIR"/ior.dat*')
            ]

        for seed, (key, nodes, ppn, flags) in enumerate(self.cases(), 4242):
            summary = f'-O summaryFormat=JSON -O summaryFile=ior_{key}'
            fsync = ['-e'] if self.mode == 'fsync' else []
            self.postrun_cmds += [
                steps.label(step=f'write_{key}'),
                self.ior_command(nodes, ppn, flags, '-w -W -k', *fsync,
                                 f'-G {seed} -i {self.repetitions}',
                                 f'{summary}_write.json'),
                *([f'iogap_evict {key}'] if evicting else []),
                steps.label(step=f'read_{key}'),
                self.ior_command(nodes, ppn, flags, '-r -R -C -k',
                                 f'-G {seed} -i {READ_PASSES}',
                                 f'{summary}_read.json'),
                'rm -f "$IOGAP_DIR"/ior.dat*',
            ]

        self.keep_files = ['ior_*.json']
        self.note('read_once: O_DIRECT, no page cache' if not evicting else
                  f'read_once: {self.evict} eviction on the first node, -C '
                  f'reads another node\'s data on multi-node points')

    def evictions_ok(self):
        '''Sanity: every read-once point started from disk.'''
        if self.mode != 'direct':
            with open(self.stderr_path()) as fp:
                self.check_evictions(fp.read(), {
                    key: nodes * ppn * self.block_bytes
                    for key, nodes, ppn, _ in self.cases()})

    @sanity_function
    def validate(self):
        self.check_striping(self.check_run())
        self.evictions_ok()
        figures = {}
        for key, nodes, ppn, _ in self.cases():
            tasks = nodes * ppn
            nbytes = tasks * self.block_bytes
            runs = {}
            for op, access, iters in (('write', 'write', self.repetitions),
                                      ('read', 'read', READ_PASSES)):
                path = os.path.join(self.stagedir, f'ior_{key}_{op}.json')
                doc = iorparse.load_summary(path, f'{op}_{key}')
                runs[op] = iorparse.phase(doc, access, f'{op}_{key}', tasks,
                                          iters, nbytes)

            first = runs['read']['first']
            values = {'write': runs['write'], 'read_3x': runs['read'],
                      'read_once': {'bw': first['bwMiB'],
                                    'iops': first['iops'],
                                    'time': first['totalTime']}}
            for phase, stats in values.items():
                for stat, unit in _UNITS.items():
                    if stat in stats:
                        figures[f'{phase}_{stat}_{key}'] = (stats[stat], unit)

        return self.report(figures)


class IORBench(IORBase):
    '''IOR over file layout, API and I/O mode, swept over processes per
    node and nodes; MPI-IO and HDF5 use independent I/O here.'''

    PERF_VARS = (r'(write|read_3x)_(bw|bw_max|bw_min|iops|time)_n\d+_p\d+',
                 r'read_once_(bw|iops|time)_n\d+_p\d+')

    #: File per process (``-F``) or one single shared file
    layout = parameter(['fpp', 'ssf'])

    #: IOR backend (``-a``)
    api = parameter(['POSIX', 'MPIIO', 'HDF5'])

    #: Page cache (buffered), fsync at close (``-e``) or O_DIRECT
    mode = parameter(['buffered', 'fsync', 'direct'])
