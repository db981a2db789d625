'''DDSingleStream: write, read-once and read-3x with one dd stream.'''

import statistics

import reframe.utility.sanity as sn
from reframe.core.builtins import run_before, sanity_function
from reframe.core.exceptions import SanityError

from iogap import stats
from iogap.dd import _EVICT, DDBase, op_values

#: Fraction of the file allowed to stay cached after an eviction
MAX_RESIDENT = 0.10
_STATS = ('min', 'max', 'cv')


class DDSingleStream(DDBase):
    '''Single-stream bandwidth in buffered, dsync or direct mode.

    Per repetition: a fresh file is written, evicted from the page cache
    (buffered and dsync), then read three times with no flush in between.
    Reported: medians over repetitions, with min, max and CV (%).
    '''

    PERF_VARS = (r'(write|read_once|read_3x)_bw(_(min|max|cv))?',
                 r'read_3x_pass[123]_bw')

    @run_before('run')
    def _dd_commands(self):
        lines = [self.evict_function(),
                 f'for rep in $(seq 1 {self.repetitions}); do',
                 # Each write starts clean: no dirty pages of the last one
                 '  rm -f "$IOGAP_FILE"; sync',
                 '  echo "iogap-op: write rep=$rep" >&2',
                 f'  {self.dd_write()}']
        if self.mode != 'direct':
            lines += ['  iogap_evict "$IOGAP_FILE"']

        lines += ['  for pass in 1 2 3; do',
                  '    echo "iogap-op: read$pass rep=$rep" >&2',
                  f'    {self.dd_read()}',
                  '  done',
                  'done']
        self.postrun_cmds += lines

    def check_evictions(self):
        '''Sanity: each buffered read-once really started from disk.'''
        with open(self.stderr_path()) as fp:
            evictions = _EVICT.findall(fp.read())

        if self.mode == 'direct':
            self.note('evict=none (O_DIRECT bypasses the page cache)')
            return

        if len(evictions) != self.repetitions:
            raise SanityError(f'expected {self.repetitions} page-cache '
                              f'evictions, found {len(evictions)}')

        for method, resident in evictions:
            if resident.isdigit() and (int(resident) >
                                       MAX_RESIDENT * self.file_bytes):
                raise SanityError(
                    f'{method} left {int(resident) / self.file_bytes:.0%} of '
                    f'the file in the page cache: read_once would measure '
                    f'memory, not the file system'
                )

        self.note(f'evict={evictions[0][0]} (bytes resident after: '
                  f'{",".join(r for _, r in evictions)})')

    @sanity_function
    def validate(self):
        records = self.checked_records(self.repetitions * 4)
        self.check_evictions()
        passes = [op_values(records, f'read{p}') for p in (1, 2, 3)]
        series = {
            'write_bw': op_values(records, 'write'),
            'read_once_bw': passes[0],
            'read_3x_bw': [statistics.fmean(t) for t in zip(*passes)],
        }
        self.results = {}
        for name, values in series.items():
            summary = stats.summary(values)
            self.results[name] = summary['median']
            self.results.update({f'{name}_{s}': summary[s] for s in _STATS})

        for p, values in enumerate(passes, start=1):
            self.results[f'read_3x_pass{p}_bw'] = statistics.median(values)

        return True

    @run_before('performance')
    def _dd_perf_variables(self):
        if self.is_dry_run():
            return

        self.perf_variables = {
            name: sn.make_performance_function(
                self.results.get, '%' if name.endswith('_cv') else 'MB/s',
                name
            ) for name in self.results
        }
