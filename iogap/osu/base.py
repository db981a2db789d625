'''What every OSU family shares: lookup, validation, the measured step.
A short run validates with ``-c``; the measured run goes without, as ``-c``
refills and checks the buffers around every timed iteration.'''

import os

import reframe.utility.typecheck as typ
from reframe.core.builtins import sanity_function, variable
from reframe.core.exceptions import SanityError, SkipTestError

from iogap.core import IogapTest, JobSteps, variant
from iogap.errors import IogapError
from iogap.osu import control, parse

#: Where OSU 5.x and 7.x install their binaries below a prefix
LIBEXEC = 'libexec/osu-micro-benchmarks/mpi'
#: Environment variable naming an OSU install prefix; wins over the view
PREFIX_ENV = 'IOGAP_OSU_PREFIX'


def supports_types(binary):
    '''Whether an OSU binary takes ``-T`` (7.x), read from its help text.'''
    try:
        with open(binary, 'rb') as fp:
            return b'mpi_float' in fp.read()
    except OSError:
        return False


class OSUBase(IogapTest):
    '''An OSU benchmark: validated, then measured.'''

    CONSTRAINTS = (variant.feature('mpi'),)
    #: Cores per node reserved for system daemons (:mod:`iogap.core.variants`)
    core_spec = variant.core_spec()
    #: The launcher's default placement, or each rank bound to cores
    cpu_bind = variant.cpu_bind()
    #: OSU binary the family runs, e.g. ``osu_latency``
    benchmark = variable(str)
    #: Its install sub-directory below ``LIBEXEC``: pt2pt or collective
    category = variable(str)
    #: MPI datatype of reductions (``-T`` on OSU 7.x), or ``None``
    datatype = variable(str, type(None), value=None)
    #: Largest message size (a power of two); ``None``: extras[MAX_SIZE_KEY]
    max_size = variable(int, type(None), value=None)
    #: Timed iterations per size (``-i``); ``None``: extras['osu_iterations']
    iterations = variable(int, type(None), value=None)
    #: Warm-up iterations per size (``-x``); ``None``: extras['osu_warmup']
    warmup = variable(int, type(None), value=None)
    #: Run OSU's data validation (``-c``) before the measurement
    validation = variable(typ.Bool, value=True)
    #: Iterations of the validation run (``-c`` checks each one, slowly)
    validation_iterations = variable(int, value=10)
    #: Partition extra holding the family's largest message size
    MAX_SIZE_KEY = 'osu_max_size'
    #: Repetitions of a paired case; ``None`` takes extras['repetitions']
    repetitions = variable(int, type(None), value=None)
    #: The figures of a paired case only (:mod:`iogap.osu.control`)
    PAIRED = ()

    def configure(self):
        self.max_size = self.max_size or self.extra(self.MAX_SIZE_KEY)
        if self.max_size < 1 or self.max_size & (self.max_size - 1):
            raise IogapError(f'{self.benchmark}: max_size must be a power of '
                             f'two (OSU doubles sizes), got {self.max_size}')
        if self.iterations is None:
            self.iterations = self.extra('osu_iterations')
        if self.warmup is None:
            self.warmup = self.extra('osu_warmup')
        self.time_limit = self.time_limit or self.extra('osu_time_limit')
        prefix = os.environ.get(PREFIX_ENV) or self.extra('osu_prefix')
        try:
            self.executable = self.tool(
                self.benchmark, subdirs=(f'{LIBEXEC}/{self.category}', 'bin'),
                prefixes=[prefix], what='the OSU micro-benchmarks')
        except SkipTestError as err:
            raise SkipTestError(f'{err}; or set {PREFIX_ENV} to an OSU '
                                f'install prefix') from None
        self.typed = bool(self.datatype) and supports_types(self.executable)
        self.executable_opts = self.osu_options(validation=False)
        self.repetitions = self.repetitions or self.extra('repetitions')
        params = {k: getattr(self, k) for k in type(self).param_space.params
                  if not k.startswith('.')}
        why = control.unavailable(params, self.part) if self.PAIRED else \
            'unpaired'
        if why and self.PAIRED:
            self.inapplicable = {f: why for f in self.paired_names()}
        #: ``[(run, rep)]``: the measured runs, controls among them
        self.paired_runs = [('measure', 1)] if why else \
            control.runs(params, self.part, self.repetitions)
        self.pairing = control.pairing(params)

    @property
    def paired(self):
        return len(self.paired_runs) > 1

    def paired_names(self):
        '''The names of the figures only a paired case reports.'''
        return [f.template for f in self.PAIRED]

    def control_launch(self):
        '''The launcher of the control run (:mod:`iogap.osu.control`).'''
        raise NotImplementedError

    def control_ranks(self):
        '''``(tasks, nodes, sockets)`` the control's probe must show.'''
        raise NotImplementedError

    def launcher_with(self, **parts):
        '''The job's launcher, these ``parts`` of its options replaced.'''
        parts = {**self.job_sections.launcher, **parts}
        return ' '.join([*self.job.launcher.command(self.job),
                         *[o for name in parts for o in parts[name]]])

    def osu_options(self, validation):
        opts = ['-m', self.max_size]
        opts += ['-T', self.datatype] if self.typed else []
        if validation:
            opts += ['-c', '-i', self.validation_iterations, '-x', 2]
        else:
            opts += ['-i', self.iterations] if self.iterations else []
            opts += ['-x', self.warmup] if self.warmup is not None else []
        return [str(o) for o in opts]

    def plan_steps(self):
        launch = self.launch_prefix()
        self.job_sections['probe'].extend(self.task_placement.probe(launch))
        if self.validation:
            self.job_sections.step(' '.join(
                [launch, self.executable, *self.osu_options(validation=True)]),
                run='validate')
        self.measure_steps(launch)

    def measure_steps(self, launch):
        '''The measured runs, each after its control if the case has one;
        the job's last step is ReFrame's own.'''
        if self.paired:
            control = self.control_launch()
            # Where the control's ranks run: after the job's probe, apart
            self.job_sections['probe'].extend([
                JobSteps.label(run='probe'),
                self.task_placement.probe_command(control)])
            command = ' '.join([self.executable, *self.executable_opts])
            for run, rep in self.paired_runs[:-1]:
                self.job_sections.step(
                    f'{control if run == "control" else launch} {command}',
                    run=run, rep=rep)
        run, rep = self.paired_runs[-1]
        self.job_sections.step(run=run, **({'rep': rep} if self.paired
                                           else {}))

    def runs(self):
        '''The runs the job holds, in order (their ``run`` labels).'''
        return ['probe'] * self.paired + ['validate'] * self.validation + \
            [run for run, _ in self.paired_runs]

    def check_placement(self, text, found):
        '''Sanity: where the job's placement probe saw the ranks run, and
        the control's; returns their summary.'''
        # The job's probe, before any step; the control's, a step of its own
        summary, _ = self.task_placement.check(
            text.split('\niogap-step:', 1)[0], self.num_tasks,
            self.num_tasks // self.num_tasks_per_node, self.sockets())
        for step in found:
            if step['run'] == 'probe':
                summary += '; control ' + self.task_placement.check_ranks(
                    self.task_placement.ranks(step.text),
                    *self.control_ranks())
        return summary

    def measured_figures(self, found, tables):
        '''``{name: value}`` of the measured runs (``found``, ``tables``).'''
        if not self.paired:
            return self.figures_of(tables[-1])
        runs = {}
        for step, table in zip(found, tables):
            if step['run'] != 'validate':
                runs.setdefault(step['run'], {})[step['rep']] = \
                    self.figures_of(table)
        return self.combine(runs['measure'], runs['control'])

    def sockets(self):
        '''Where ranks 0 and 1 must run: ``'same'`` or ``'cross'`` socket,
        or ``None`` for no such requirement.'''
        return None

    def what(self, step):
        tasks, nodes = (self.control_ranks()[:2] if step['run'] in (
            'control', 'probe') else (self.num_tasks, self.num_tasks //
                                      self.num_tasks_per_node))
        return f'{self.benchmark} ({step["run"]} run, {tasks} ranks on ' \
            f'{nodes} node(s))'

    def check_exit(self, found):
        '''Sanity: the job exited 0; else say which run died and where.'''
        ended = self.how_it_ended()
        if ended is None:
            return
        where, stop = ' before any OSU run', ''
        if found:
            where = f' in {self.what(found[-1])}'
            tables = parse.parse_tables(found[-1].text)
            if tables and tables[-1].rows:
                stop = (f' after printing sizes up to '
                        f'{tables[-1].sizes()[-1]} of {self.max_size} B')
        how = ended if ended.startswith('the job') else \
            f'{self.benchmark} {ended}'
        raise SanityError(f'{how}{where}{stop}: '
                          f'{parse.stderr_error(self.read("stderr"))}')

    @sanity_function
    def validate(self):
        text = self.read('stdout')
        found = list(JobSteps(text))
        for step in found:
            parse.check_validation(step.text, self.what(step))
        self.check_exit(found)
        self.note(f'ranks={self.check_placement(text, found)}')
        runs = [s['run'] for s in found]
        expected = self.runs()
        if runs != expected:
            raise SanityError(f'{self.benchmark}: expected runs {expected}, '
                              f'found {runs}')
        found = [s for s in found if s['run'] != 'probe']
        tables = [parse.checked_table(s.text, self.what(s), self.max_size,
                                      s['run'] == 'validate') for s in found]
        # Typed: what -T asked for; untyped (5.x): no datatype line at all
        want = self.datatype.upper() if self.typed else ''
        for table in tables if self.datatype else []:
            if table.datatype.upper() != want:
                raise SanityError(f'{self.benchmark} ran '
                                  f'{table.datatype or "an untyped table"}, '
                                  f'expected {want or "OSU 5.x float"}')
        self.note(f'osu={tables[-1].version}, '
                  f'{"validated with -c" if self.validation else "no -c"}'
                  f'{", " + self.datatype if self.typed else ""}')
        return self.report({name: (value, self.figures.find(name).unit)
                            for name, value in
                            self.measured_figures(found, tables).items()})
