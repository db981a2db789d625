'''What every OSU family shares: lookup, commands, parsing, sanity.

A job's main step is the placement probe (node, CPUs, sockets of every
rank); then, per measurement, a short validation run with OSU's ``-c`` and
the measured run without it: ``-c`` refills and checks the buffers around
every timed iteration (cold caches, extra barriers), so its timings are not
the latencies to report. Binaries come from ``$IOGAP_OSU_PREFIX`` (or
``extras['osu_prefix']``), the Spack view or PATH, in OSU's own
``libexec/osu-micro-benchmarks/mpi/<category>/`` layout (5.x and 7.x).
'''

import os

import reframe.utility.typecheck as typ
from reframe.core.builtins import (run_after, run_before, sanity_function,
                                   variable)
from reframe.core.exceptions import SanityError, SkipTestError

from iogap import osuparse, steps
from iogap.base import IogapTest, require_feature
from iogap.errors import IogapError
from iogap.provider import find_tool
from iogap.variants import CoreSpecVariant, CpuBindVariant

#: Where OSU 5.x and 7.x install their binaries below a prefix
LIBEXEC = 'libexec/osu-micro-benchmarks/mpi'

#: Environment variable naming an OSU install prefix; wins over the view
PREFIX_ENV = 'IOGAP_OSU_PREFIX'


class OSUBase(IogapTest, CoreSpecVariant, CpuBindVariant):
    '''What every OSU family shares: lookup, commands, parsing, sanity.'''

    #: OSU binary the family runs, e.g. ``osu_latency``
    benchmark = variable(str)

    #: Its install sub-directory below ``LIBEXEC``: pt2pt or collective
    category = variable(str)

    #: Largest message size in bytes (a power of two); ``None`` takes
    #: ``extras[MAX_SIZE_KEY]``, else ``DEFAULT_MAX_SIZE``
    max_size = variable(int, type(None), value=None)

    #: Timed iterations per size (``-i``); ``None`` takes
    #: extras['osu_iterations'], else OSU's default
    iterations = variable(int, type(None), value=None)

    #: Warm-up iterations per size (``-x``); ``None`` takes
    #: extras['osu_warmup'], else OSU's default
    warmup = variable(int, type(None), value=None)

    #: Run OSU's data validation (``-c``) before each measurement
    validation = variable(typ.Bool, value=True)

    #: Iterations of a validation run (``-c`` checks each one, slowly)
    validation_iterations = variable(int, value=10)

    #: Message sizes (bytes) whose latency is reported, if <= max_size
    report_sizes = variable(typ.List[int], value=[8, 1024, 65536, 1048576])

    #: Partition extra holding the family's max_size, and OSU's own default
    MAX_SIZE_KEY, DEFAULT_MAX_SIZE = 'osu_max_size', 4 * 2**20

    @run_after('init')
    def _osu_needs_mpi(self):
        require_feature(self, 'mpi')

    @run_after('setup')
    def _osu_setup(self):
        self.max_size = self.max_size or self.extra(self.MAX_SIZE_KEY,
                                                    self.DEFAULT_MAX_SIZE)
        if self.max_size < 1 or self.max_size & (self.max_size - 1):
            raise IogapError(f'{self.benchmark}: max_size must be a power of '
                             f'two (OSU doubles sizes), got {self.max_size}')

        if self.iterations is None:
            self.iterations = self.extra('osu_iterations')
        if self.warmup is None:
            self.warmup = self.extra('osu_warmup')

        self.time_limit = self.time_limit or self.extra('osu_time_limit')

        self.report_sizes = [s for s in self.report_sizes
                             if s <= self.max_size]
        self.osu = self._find_osu()

    def _find_osu(self):
        prefix = os.environ.get(PREFIX_ENV) or self.extra('osu_prefix')
        try:
            path, self.tool_provider = find_tool(
                self, self.benchmark, (f'{LIBEXEC}/{self.category}', 'bin'),
                [prefix], what='the OSU micro-benchmarks')
        except SkipTestError as err:
            raise SkipTestError(f'{err}; or set {PREFIX_ENV} to an OSU '
                                f'install prefix') from None

        return path

    def usable_cores(self):
        return (self.extra('cores') or 1) - self.core_spec

    def osu_steps(self):
        '''``[(tasks, nodes)]``: one validated measurement each.'''
        raise NotImplementedError

    def osu_command(self, validation):
        opts = ['-m', self.max_size]
        if validation:
            opts += ['-c', '-i', self.validation_iterations, '-x', 2]
        else:
            opts += ['-i', self.iterations] if self.iterations else []
            opts += ['-x', self.warmup] if self.warmup is not None else []

        return ' '.join(str(o) for o in [self.osu, *opts])

    @run_before('run')
    def _osu_commands(self):
        runs = ['validate', 'measure'] if self.validation else ['measure']
        for tasks, nodes in self.osu_steps():
            launch = self.launch(nodes=nodes, tasks=tasks)
            for run in runs:
                self.postrun_cmds += [
                    steps.label(run=run, ranks=tasks, nodes=nodes),
                    f'{launch} {self.osu_command(run == "validate")}'
                ]

    def what(self, labels):
        return (f'{self.benchmark} ({labels["run"]} run, {labels["ranks"]} '
                f'ranks on {labels["nodes"]} node(s))')

    def check_exit(self, runs):
        '''Sanity: the job exited 0; else say which run died and where.'''
        code = self.job.exitcode
        if code == 0:
            return

        where, stop = ' before any OSU run', ''
        if runs:
            labels, text = runs[-1]
            where = f' in {self.what(labels)}'
            tables = osuparse.parse_tables(text)
            if tables and tables[-1].rows:
                stop = (f' after printing sizes up to '
                        f'{tables[-1].sizes()[-1]} of {self.max_size} B')

        raise SanityError(f'{self.benchmark} failed with exit code {code}'
                          f'{where}{stop}: '
                          f'{osuparse.stderr_error(self.stderr_path())}')

    @sanity_function
    def validate(self):
        with open(os.path.join(self.stagedir, self.job.stdout)) as fp:
            text = fp.read()

        runs = osuparse.parse_runs(text)
        for labels, section in runs:
            osuparse.check_validation(section, self.what(labels))

        self.check_exit(runs)
        ranks = self.task_placement()
        self.note(f'ranks={self.check_placement(ranks)}')
        self.check_binding([r['cpus'] for r in ranks])
        expected = [(r, str(t), str(n)) for t, n in self.osu_steps()
                    for r in (['validate', 'measure'] if self.validation
                              else ['measure'])]
        seen = [(lb['run'], lb['ranks'], lb['nodes']) for lb, _ in runs]
        if seen != expected:
            raise SanityError(f'{self.benchmark}: expected runs {expected}, '
                              f'found {seen}')

        tables = {}
        for labels, section in runs:
            table = osuparse.checked_table(section, self.what(labels),
                                           self.max_size,
                                           labels['run'] == 'validate')
            if labels['run'] == 'measure':
                tables[int(labels['ranks'])] = table

        version = next(iter(tables.values())).version
        self.note(f'osu={version}' + self.validation_note(version))
        return self.report({name: (value, unit(name)) for name, value
                            in self.figures(tables).items()})

    def validation_note(self, version):
        return ', validated with -c' if self.validation else ', no -c'


def unit(name):
    if name.endswith('size'):
        return 'B'

    return 'MB/s' if name.startswith('bw') else 'us'

