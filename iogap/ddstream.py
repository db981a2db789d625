'''DDSingleStream: write, read-once and read-3x with one dd stream.'''

import statistics

from reframe.core.builtins import run_before, sanity_function

from iogap import stats, steps
from iogap.dd import DDBase, op_values

_STATS = {'min': 'MB/s', 'max': 'MB/s', 'cv': '%'}


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
        lines = [self.evict_function(self.dd, '"$IOGAP_FILE"'),
                 f'for rep in $(seq 1 {self.repetitions}); do',
                 # Each write starts clean: no dirty pages of the last one
                 '  rm -f "$IOGAP_FILE"; sync',
                 '  ' + steps.label('stderr', op='write', rep='$rep'),
                 f'  {self.dd_write()}']
        if self.mode != 'direct':
            lines += ['  iogap_evict "rep$rep"']

        lines += ['  for pass in 1 2 3; do',
                  '    ' + steps.label('stderr', op='read$pass', rep='$rep'),
                  f'    {self.dd_read()}',
                  '  done',
                  'done']
        self.postrun_cmds += lines

    def evictions_ok(self):
        '''Sanity: each buffered read-once really started from disk.'''
        if self.mode == 'direct':
            self.note('evict=none (O_DIRECT bypasses the page cache)')
            return

        with open(self.stderr_path()) as fp:
            resident = self.check_evictions(
                fp.read(), {f'rep{r}': self.file_bytes
                            for r in range(1, self.repetitions + 1)})

        self.note(f'evict={self.evict} (bytes resident after: {resident})')

    @sanity_function
    def validate(self):
        records = self.checked_records(self.repetitions * 4)
        self.evictions_ok()
        passes = [op_values(records, f'read{p}') for p in (1, 2, 3)]
        series = {
            'write_bw': op_values(records, 'write'),
            'read_once_bw': passes[0],
            'read_3x_bw': [statistics.fmean(t) for t in zip(*passes)],
        }
        figures = {}
        for name, values in series.items():
            summary = stats.summary(values)
            figures[name] = (summary['median'], 'MB/s')
            figures.update({f'{name}_{s}': (summary[s], _STATS[s])
                            for s in _STATS})

        for p, values in enumerate(passes, start=1):
            figures[f'read_3x_pass{p}_bw'] = (statistics.median(values),
                                              'MB/s')

        return self.report(figures)
