'''The base every measuring test builds on: scratch, tools, launch, figures.

A measuring test only measures: its figures become performance variables
with no reference of their own. Judging them (absolute bounds, ratios,
fits) is the job of :mod:`iogap.judge`, so that no failure hides another
figure.
'''

import functools
import inspect
import os
import re
import shutil
import signal
import string

import reframe as rfm
import reframe.core.runtime as rt
import reframe.utility.sanity as sn
from reframe.core.builtins import (fixture, run_after, run_before,
                                   variable)
from reframe.core.exceptions import SanityError, SkipTestError

from iogap import profile
from iogap.core import registry, scratch, steps
from iogap.errors import ScratchError
from iogap.tools import own
from iogap.tools.provider import find_tool
from iogap.tools.toolstack import ToolStack


def feature(name, when=None):
    '''A constraint: the partition needs feature ``name`` (for the cases
    where ``when(params)`` holds, or always).'''
    return lambda params, part: (when is not None and not when(params)) or \
        name in part.features


@functools.lru_cache(maxsize=None)
def constraints(cls):
    '''Every constraint ``cls`` and its bases declare.'''
    found = []
    for klass in reversed(cls.__mro__):
        found += [c for c in klass.__dict__.get('CONSTRAINTS', ())
                  if c not in found]

    return found


def _runtime_parts():
    return [profile.Part.of(p) for p in rt.runtime().system.partitions]


def case_params(test):
    return {n: getattr(test, n) for n in type(test).param_space.params
            if not n.startswith('.')}


def runs_on(cls, params, part):
    '''Whether the case of ``cls`` with ``params`` (all of them) is
    generated on ``part`` (an :class:`iogap.profile.Part`).'''
    return all(fn(params, part) for fn in constraints(cls))


#: The slowest rate a working scratch file system is taken to sustain
#: (bytes/s), and what a job spends beyond its I/O (seconds): start-up,
#: placement probes, eviction, waiting for this device's I/O lock
FLOOR_RATE, FIXED_SECONDS = 20e6, 180


def time_limit(moved_bytes):
    '''A job's default time limit in seconds: its bytes at the floor rate
    plus the fixed part, so that a hung tool fails its case in minutes
    and the run goes on.'''
    return int(FIXED_SECONDS + moved_bytes / FLOOR_RATE)


class IogapTest(rfm.RunOnlyRegressionTest):
    '''Undecorated base: site data comes from the partition's extras.

    Which partitions a case runs on is declared, not generated and then
    skipped: each family and variant lists ``CONSTRAINTS``, predicates over
    the case's parameters and a partition (its features, extras, cores),
    and a case is generated only where all of them hold.'''

    valid_systems = ['*']
    valid_prog_environs = ['+tools']
    CONSTRAINTS = ()

    # I/O figures are meaningless on a node shared with other jobs
    exclusive_access = True

    #: The partition's tools: built with Spack or found, once per partition
    #: and environment
    tools = fixture(ToolStack, scope='environment')

    #: Where the measured tool came from (Spack view or PATH); logged
    tool_provider = variable(str, value='', loggable=True)

    #: Directory of the project's own job-side tools (:mod:`iogap.tools.own`:
    #: the iogap-tools package in the view, or ``.`` for the checkout's
    #: copies put in the stage directory)
    own_tools = variable(str, value='.', loggable=False)

    #: How the figures were obtained (cache eviction, binding...); logged
    method = variable(str, value='', loggable=True)

    #: Bytes the test writes at most; checked against free space
    scratch_bytes = variable(int, value=0, loggable=False)

    #: Bytes the job moves in all (writes, reads, verification); sets its
    #: time limit when the profile gives none (:func:`time_limit`)
    moved_bytes = variable(int, value=0, loggable=False)

    #: Figures of the last run: ``{name: (value, unit)}``
    results = variable(dict, value={}, loggable=False)

    #: Figures this host cannot give, with the reason: ``{name: reason}``
    #: (a judgement of one is not applicable here)
    inapplicable = variable(dict, value={}, loggable=False)

    @run_after('init')
    def _declared_partitions(self):
        params = case_params(self)
        self.valid_systems = [part.fullname for part in _runtime_parts()
                              if runs_on(type(self), params, part)]

    @run_after('init')
    def _described(self):
        # What --describe and -t show: the family's own words, its figures
        # (reported ones replace them before the performance stage)
        darshan = getattr(self, 'darshan', 'on') == 'on'
        describe(self, [f for f in getattr(self, 'figures', ())
                        if darshan or not f.template.startswith('darshan')])

    def note(self, text):
        '''Add to :attr:`method`, which every perflog line carries.'''
        self.method = f'{self.method}; {text}' if self.method else text

    def extra(self, key):
        return self.current_partition.extras[key]

    def tool(self, name, **kwargs):
        '''Resolve ``name`` through the provider and log where it came from.'''
        command, self.tool_provider = find_tool(self, name, **kwargs)
        return command

    def launch_prefix(self):
        '''The launcher as the main step uses it, for the job's other
        steps (ReFrame gives the job its geometry only when it runs).'''
        for attr in ('num_tasks', 'num_tasks_per_node', 'num_cpus_per_task'):
            setattr(self.job, attr, getattr(self, attr))

        return ' '.join([*self.job.launcher.command(self.job),
                         *self.job.launcher.options])

    @property
    def is_local(self):
        return self.current_partition.scheduler.registered_name == 'local'

    @run_after('setup')
    def _own_tools(self):
        # One package: the probe, the dd driver and their step library
        # come together from the view, or together from the checkout
        path, provider = find_tool(self, 'job.sh', subdirs=(own.SUBDIR,),
                                   checkout=own.source('job.sh'))
        checkout = provider.startswith('checkout:')
        if not checkout and own.stale(os.path.dirname(path)):
            # A view built from other sources (IOGAP_SPACK_VIEW, an older
            # checkout) would run tools this checkout does not hold
            checkout, provider = True, 'checkout: the view\'s are stale'

        self.own_tools = '.' if checkout else os.path.dirname(path)
        self.note('iogap-tools=' + (f'checkout:{own.ROOT}' if checkout else
                                    provider.rsplit('/', 1)[0]))

    @run_after('setup')
    def _scratch_usable(self):
        # Before any family decides on modes: an unusable root fails all
        root = self.extra('scratch_root')
        scratch.check_rules(root)
        if self.is_local:
            why = scratch.problem(root)
            if why:
                raise ScratchError(why)

    @run_before('run')
    def _default_time_limit(self):
        if self.time_limit is None:
            self.time_limit = time_limit(self.moved_bytes)

    @run_before('run')
    def _scratch_guard(self):
        root = self.extra('scratch_root')
        if self.is_local and self.scratch_bytes:
            scratch.check_free_space(root, self.scratch_bytes)

        tag = re.sub(r'[^A-Za-z0-9_-]', '_', self.unique_name)
        if self.own_tools == '.':
            for name in own.FILES:
                shutil.copy(own.source(name), self.stagedir)
        self.prerun_cmds = [steps.source(self.own_tools)] + scratch.job_guard(
            root, tag, watch_pid=os.getpid() if self.is_local else None,
            io_lock=self.is_local) + [steps.device()] + self.prerun_cmds

    @run_after('run')
    def _scratch_cleanup(self):
        '''Remove what a killed job (no trap ran) left behind.'''
        if self.is_dry_run():
            return

        root = os.path.realpath(self.extra('scratch_root'))
        for path in scratch.scratch_dirs(self.read('stdout')):
            real = os.path.realpath(path)
            if (os.path.dirname(real) == root and os.path.basename(
                    real).startswith(scratch.DIR_PREFIX)):
                shutil.rmtree(real, ignore_errors=True)

    def read(self, stream):
        '''The text of the job's ``stdout``, ``stderr`` or a stage file.'''
        name = {'stdout': self.stdout, 'stderr': self.stderr}.get(stream,
                                                                   stream)
        path = os.path.join(self.stagedir, sn.evaluate(name))
        try:
            with open(path, errors='replace') as fp:
                return fp.read()
        except FileNotFoundError:
            return ''

    def measured_output(self, tool):
        '''Sanity: the job's stdout, once the job neither declined to
        measure (``iogap-skip:``, a skip with its reason) nor failed.'''
        text = self.read('stdout')
        reason = steps.skip_reason(text)
        if reason:
            raise SkipTestError(reason)

        self.assert_exit_ok(tool)
        return text

    def assert_exit_ok(self, tool):
        '''Sanity: the job exited 0; otherwise say how it ended and quote
        the first error line the tool or the guard printed.'''
        # Tools run as labelled steps print their errors on stdout
        text = self.read('stderr') + self.read('stdout')
        ended = ended_by_scheduler(self.job)
        if ended:
            raise SanityError(f'{ended}: {first_error(text, tool)}')

        code = self.job.exitcode
        if code != 0:
            raise SanityError(f'{tool} {exit_status(code)}: '
                              f'{first_error(text, tool)}')

    def report(self, figures):
        '''Sanity's last step: ``figures`` (``{name: (value, unit)}``)
        become the test's performance variables.'''
        self.results = figures
        return True

    @run_before('performance')
    def _figures_as_performance(self):
        if not self.is_dry_run():
            self.perf_variables = {
                name: sn.make_performance_function(
                    lambda n=name: self.results[n][0], unit)
                for name, (_, unit) in self.results.items()
            }


def describe(test, figures):
    '''Give ``test`` a ``descr`` (its family's docstring), tags (the tool
    family and, where the case has one, its I/O mode) and ``figures`` (a
    :class:`iogap.core.figures.Figures`) as declared performance
    variables.'''
    owner = registry.get(registry.family_name(type(test)) or '') or \
        type(test)
    doc = inspect.getdoc(owner) or owner.__name__
    test.descr = ' '.join(doc.split('\n\n')[0].split())
    test.tags |= {getattr(test, 'TOOL', '') or owner.__module__.split('.')[1]}
    if isinstance(getattr(test, 'mode', None), str):
        test.tags.add(test.mode)

    test.perf_variables = {
        name: sn.make_performance_function(
            lambda n=name: test.results[n][0], fig.unit)
        for fig in figures for name in expand(fig)}


def expand(figure):
    '''Every name ``figure`` can take (a field of any integer stays a
    ``{field}``).'''
    names = ['']
    for literal, field, _, _ in string.Formatter().parse(figure.template):
        values = figure.fields.get(field, ()) if field else ()
        values = [f'{{{field}}}'] if values is int or values is str else \
            [str(v) for v in values] or ['']
        names = [n + literal + v for n in names for v in values]

    return names


#: Scheduler states of a job that did not end by itself
ABNORMAL = {'CANCELLED': 'was cancelled', 'TIMEOUT': 'hit its time limit',
            'NODE_FAIL': 'lost its node', 'OUT_OF_MEMORY': 'ran out of memory',
            'PREEMPTED': 'was preempted', 'DEADLINE': 'missed its deadline'}


def ended_by_scheduler(job):
    '''How the scheduler ended ``job``, in words, or ``None``.'''
    state = (getattr(job, 'state', None) or '').split()[0:1]
    what = ABNORMAL.get(state[0]) if state else None
    if what and getattr(job, 'lost_nodes', None):
        # The scheduler's backend named the nodes that went down
        what = f'lost its node(s) {job.lost_nodes}'
    return f'the job {what} (Slurm state {state[0]})' if what else None


def exit_status(code):
    '''How a job or step ended, in words: ``killed by SIGKILL`` etc.'''
    if code is None:
        return 'ended with no exit status (killed, or lost by the scheduler)'
    try:
        if code < 0:
            return f'was killed by {signal.Signals(-code).name}'
        if code > 128:
            # The shell's status for a child a signal killed
            return (f'exited with code {code}, the status of a process '
                    f'killed by {signal.Signals(code - 128).name}')
    except ValueError:
        pass

    return f'failed with exit code {code}'


def first_error(text, tool):
    '''The first line of ``text`` from ``tool``, iogap or the launcher that
    reads as an error.'''
    error = re.compile(rf'^({re.escape(tool)}|iogap):|: line \d+: |'
                       r'\b(error|Error|ERROR|failed|denied|Killed|'
                       r'No such file|not found|No space|Invalid argument|'
                       r'CANCELLED|TIME LIMIT)\b')
    for line in text.splitlines():
        if error.search(line):
            return line.strip()

    return 'no error message in the job\'s output'
