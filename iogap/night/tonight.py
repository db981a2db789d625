'''One night: its settings (from the job's variables) and the reframe run,
whose stdout is kept beside the output (the run report keeps no skip
reasons).'''

import contextlib
import ctypes
import glob
import os
import shlex
import signal
import subprocess
import sys
import threading
import time

import iogap
from iogap import inputs
from iogap.core import runlock
from iogap.errors import IogapError
from iogap.history.runguard import replace_file
from iogap.judge import coverage
from iogap.night import provenance
from iogap.site import profile

#: The repository the nightly runs from
ROOT = iogap.HOME

#: The job's variables and the check each value must pass: a bad one stops
#: the night before anything runs, in one line naming it
SETTINGS = {
    'IOGAP_HISTORY_NIGHTS': inputs.count, 'IOGAP_SELECT': inputs.words,
    'IOGAP_NIGHT_SELECT': inputs.words, 'IOGAP_NIGHT_EXTRAS': inputs.pairs,
    'IOGAP_NIGHT_JOB': inputs.name, 'IOGAP_NIGHT_PARTITION': inputs.name,
    'IOGAP_NIGHT_NODE_HOURS': inputs.node_hours,
    'IOGAP_NIGHT_WALL': inputs.duration, 'IOGAP_NIGHT_WITHIN': inputs.regex,
    'IOGAP_CANARIES': inputs.regex, 'IOGAP_NIGHT_SWEEP': inputs.node_state,
    'IOGAP_REFERENCE_DIR': inputs.directory,
    'IOGAP_RESULTS_DB': inputs.file_path,
}
#: Signals that stop a night, and the seconds reframe gets to stop its jobs
STOPS, STOP_SECONDS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP), 8


class Aborted(SystemExit):
    '''The night was stopped by a signal (uncaught: one line, exit 1).'''

    def __init__(self, signum):
        self.signum, self.name = signum, signal.Signals(signum).name
        super().__init__(f'nightly: aborted by {self.name}')


def shown(path):
    '''``path`` from the repository root when it is inside it.'''
    rel = os.path.relpath(path, ROOT)
    return path if rel.startswith('..') else rel


def _stop(signum, frame):
    for sig in STOPS:       # one stop is enough: the rest is its cleanup
        signal.signal(sig, signal.SIG_IGN)
    raise Aborted(signum)


class Night:
    '''What tonight runs and where it keeps it (a job of a split night in
    ``output/ci/<job>/``, on its partition alone).'''

    def __init__(self, environ, job=None, partition=None):
        checked = {var: inputs.env(environ, var, check)
                   for var, check in SETTINGS.items()}
        try:    # read by the verdict, at the night's end
            coverage.minimum(environ)
        except ValueError as err:
            raise IogapError(str(err)) from None
        self.system = environ.get('IOGAP_SYSTEM') or None
        self.output = os.path.abspath(environ.get('IOGAP_OUTPUT') or
                                      os.path.join(ROOT, 'output'))
        self.job = job or environ.get('IOGAP_NIGHT_JOB') or None
        self.partition = partition or \
            environ.get('IOGAP_NIGHT_PARTITION') or None
        self.dir = os.path.join(self.output, 'ci', *filter(None, [self.job]))
        self.select = checked['IOGAP_SELECT'] or []
        self.nights = checked['IOGAP_HISTORY_NIGHTS'] or 7
        self.extras = {'pipeline': environ.get('CI_PIPELINE_ID', 'local'),
                       'commit': environ.get('CI_COMMIT_SHA', 'none'),
                       **provenance.extras(environ)}
        self.results_db = environ.get('IOGAP_RESULTS_DB')
        self.stdout = os.path.join(self.dir, 'reframe.out')
        self.junit = os.path.join(self.output, 'reports', 'junit.xml' if
                                  not self.job else f'junit-{self.job}.xml')

    def path(self, name):
        return os.path.join(self.dir, name)

    def take(self):
        '''Hold the output before writing there; stop on :data:`STOPS`.'''
        os.makedirs(self.output, exist_ok=True)
        runlock.lock_night(self.output)
        os.makedirs(self.dir, exist_ok=True)
        self.started = time.monotonic()
        for sig in STOPS:
            signal.signal(sig, _stop)

    def aborted(self, stop):
        '''The summary's line of a night ``stop`` ended.'''
        self.hand_over(None, f'IOGAP_NIGHT_ABORTED={stop.name}\n')
        return (f'RED: the night was aborted by {stop.name} after '
                f'{time.monotonic() - self.started:.0f} s: reframe and its '
                f'jobs were stopped; nothing of tonight was judged')

    def locate(self):
        '''The system and the history (``IOGAP_RESULTS_DB``, else beside the
        scratch root, never in it: runs sweep that).'''
        argv = ['reframe'] + (['--system', self.system] if self.system
                              else [])
        system = profile.load(argv, os.environ)['systems'][0]
        if self.system and self.system != system['name']:
            raise IogapError(f'IOGAP_SYSTEM={self.system}: no profile\'s '
                             f'system has that name: give one of '
                             f'{", ".join(sorted(profile.system_names()))} '
                             f'(a partition goes in IOGAP_NIGHT_PARTITION)')
        parts = [p['name'] for p in system['partitions']]
        if self.partition and self.partition not in parts:
            raise IogapError(f'IOGAP_NIGHT_PARTITION={self.partition}: '
                             f'{system["name"]} has no such partition: give '
                             f'one of {", ".join(parts)}')
        self.system = self.system or system['name']
        if not self.results_db:
            root = system['partitions'][0]['extras']['scratch_root']
            self.results_db = os.path.join(
                os.path.dirname(os.path.abspath(root)), 'iogap-history',
                system['name'], 'results.db')
        return system['name']

    def reframe(self, *args):
        '''The reframe command on this system (this job's partition).'''
        local = os.path.join(os.path.dirname(sys.executable), 'reframe')
        exe = local if os.path.exists(local) else 'reframe'
        where = f'{self.system}:{self.partition}' if self.partition \
            else self.system
        return [exe, '-C', os.path.join(ROOT, 'reframe_config.py'),
                '--system', where, *args]

    def environ(self):
        return dict(os.environ, IOGAP_RESULTS_DB=self.results_db,
                    IOGAP_OUTPUT=self.output, PYTHONUNBUFFERED='1')

    def run(self, planned, plan_extras):
        '''Run the suite with the plan's options and session extras: its
        exit status and run report (or ``None``); stdout to :attr:`stdout`.'''
        before = set(self.reports())
        os.makedirs(self.dir, exist_ok=True)
        os.makedirs(os.path.dirname(self.results_db), exist_ok=True)
        extras = ','.join(f'{k}={v}' for k, v in
                          {**self.extras, **plan_extras}.items())
        cmd = self.reframe('-r', *self.select, *planned,
                           '--session-extras', extras,
                           '--report-junit', self.junit)
        environ = self.environ()
        if self.job:
            # ReFrame numbers a directory's reports: the jobs of a split
            # night name theirs, as their reports meet in the jobs after
            # them. Through its variable: a '}' on its command line makes
            # its stored sessions unreadable (iogap.history.resultsdb)
            environ['RFM_REPORT_FILE'] = os.path.join(
                self.output, 'reports', f'run-report-{self.job}-'
                f'{{sessionid}}.json')
        print(f'nightly: {shlex.join(cmd)}', flush=True)
        # reframe ends when the night dies, however it dies
        with open(self.stdout, 'w', buffering=1) as log, subprocess.Popen(
                cmd, cwd=ROOT, env=environ, text=True, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, preexec_fn=lambda: ctypes.CDLL(
                    None).prctl(1, signal.SIGTERM)) as proc:
            # read aside: a signal reaches the wait, not a half-read line
            keep = threading.Thread(target=_keep, daemon=True,
                                    args=(proc.stdout, log, self.stdout))
            keep.start()
            try:
                proc.wait()
            except BaseException as err:
                proc.send_signal(getattr(err, 'signum', signal.SIGTERM))
                try:    # it cancels its jobs, or is killed (their watchdog)
                    proc.wait(STOP_SECONDS)
                except subprocess.TimeoutExpired:
                    proc.kill()
                raise
            finally:
                keep.join(STOP_SECONDS)
        new = sorted(set(self.reports()) - before, key=os.path.getmtime)
        return proc.returncode, (new[-1] if new else None)

    def reports(self):
        return glob.glob(os.path.join(self.output, 'reports',
                                      'run-report-*.json'))

    def hand_over(self, report, more=''):
        '''``night.env``: what the report and rebaseline jobs read (the run
        report from the project directory: theirs is another checkout).'''
        report = shown(report) if report else ''
        replace_file(self.path('night.env'),
                     f'IOGAP_RUN_REPORT={shlex.quote(report)}\n'
                     f'IOGAP_RESULTS_DB={shlex.quote(self.results_db)}\n'
                     + more)


def _keep(stream, log, path):
    '''reframe's output to the job log and, while its file system takes
    it, to ``path`` (one line says when it no longer does).'''
    for line in stream:
        print(line, end='', flush=True)
        try:
            log and log.write(line)
        except OSError as err:
            with contextlib.suppress(OSError):
                log.close()     # what a full file system refused is lost
            log = None
            print(f'nightly: cannot keep reframe\'s output in {path} '
                  f'({err.strerror}): the rest is in the job log only',
                  flush=True)
