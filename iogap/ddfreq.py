'''CPU-frequency sweep of dd writes and the linear fit of bandwidth on clock.

The study's central finding: buffered single-stream write bandwidth tracks
the CPU clock (r² 0.95 on KNL, 0.79 on Haswell; intercepts 41.28 and
286.11 MB/s) while dsync and direct do not (r² 0.03-0.16). The sweep writes
at every frequency the partition lists (Slurm ``--cpu-freq``); the fit check
depends on it and reports r², slope and intercept.
'''

import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.builtins import (parameter, performance_function,
                                   run_after, run_before, sanity_function)
from reframe.core.exceptions import SanityError, SkipTestError

from iogap import references, registry, stats, steps
from iogap.dd import MODE_FLAGS, DDBase, bandwidth
from iogap.errors import IogapError


class DDFrequencySweep(DDBase):
    '''dd write at each CPU frequency of the partition, N repetitions each.'''

    PERF_VARS = (r'write_bw_\d+khz',)

    # The study swept plain dd: no binding, core-spec or placement variants
    core_spec = parameter(inherit_params=True, filter_params=lambda p: p[:1])
    cpu_bind = parameter(inherit_params=True, filter_params=lambda p: p[:1])
    memory = parameter(inherit_params=True, filter_params=lambda p: p[:1])

    @run_after('setup')
    def _sweep_frequencies(self):
        if 'cpufreq' not in self.current_partition.features:
            raise SkipTestError(f'{self.current_partition.fullname} cannot set '
                                f'the CPU frequency (no +cpufreq feature)')

        self.freqs = self.extra('cpu_freqs_khz') or []
        if not self.freqs:
            raise SkipTestError(f'{self.current_partition.fullname} lists no '
                                f'CPU frequencies (extras["cpu_freqs_khz"])')

    @run_before('run')
    def _sweep_commands(self):
        self.postrun_cmds += [
            f'for freq in {" ".join(str(f) for f in self.freqs)}; do',
            f'  for rep in $(seq 1 {self.repetitions}); do',
            '    rm -f "$IOGAP_FILE"',
            '    ' + steps.label('stderr', op='write', freq='$freq',
                             rep='$rep'),
            f'    {self.dd_write("--cpu-freq=$freq")}',
            '  done',
            'done',
        ]

    @sanity_function
    def validate(self):
        records = self.checked_records(self.repetitions * len(self.freqs))
        #: (GHz, MB/s) for every run: what the fit check consumes
        self.samples = [(int(r['freq']) / 1e6, bandwidth(r)) for r in records]
        return self.report({
            f'write_bw_{f}khz': (stats.summary(
                [bw for ghz, bw in self.samples if ghz == f / 1e6])['median'],
                'MB/s') for f in self.freqs
        })


class DDFrequencyFit(rfm.RunOnlyRegressionTest):
    '''Linear fit of the sweep's write bandwidth against CPU frequency.'''

    PERF_VARS = ('r2', 'slope', 'intercept')

    #: I/O mode of the sweep this fit reads
    mode = parameter(list(MODE_FLAGS))

    valid_systems = ['+cpufreq']
    valid_prog_environs = ['+tools']
    executable = 'true'
    local = True

    @run_after('init')
    def _depend_on_sweep(self):
        self.sweep_name = registry.variant_name(
            registry.family('DDFrequencySweep'), {'mode': self.mode})
        self.depends_on(self.sweep_name)

    @run_before('performance')
    def _fit_references(self):
        self.reference = references.absolute_for(self)

    @sanity_function
    def validate(self):
        samples = self.getdep(self.sweep_name).samples
        try:
            self.fit = stats.linear_fit(*zip(*samples))
        except IogapError as err:
            raise SanityError(f'cannot fit the {self.mode} sweep: {err}')

        return sn.assert_true(self.job.exitcode == 0)

    @performance_function('r2')
    def r2(self):
        return self.fit['r2']

    @performance_function('MB/s/GHz')
    def slope(self):
        return self.fit['slope']

    @performance_function('MB/s')
    def intercept(self):
        return self.fit['intercept']
