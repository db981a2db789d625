'''The nightly pipeline: ci/gitlab-ci.yml run by gitlab-ci-local (shell
executor, --shell-isolation: every job in its own build directory, with
GitLab's cache and artifacts between them) on a copy of this repository,
a tiny selection on the generic profile; a night split per partition on
the local Slurm cluster (gitlab-ci-local 4.73 runs the child pipeline a
trigger includes from an artifact, though it forwards no variables and
does not pass the child's status to the trigger: each child job is read
apart); and the night's driver (iogap night) on its own for the
verdicts that need no emulator.

gitlab-ci-local is installed with npm into $IOGAP_CI_TOOLS (default
/var/tmp/iogap-ci/node), outside the repository; without npm, the npm
registry or rsync (which gitlab-ci-local copies with) the emulated tests
skip and say why. What it does not emulate (resource_group, retry, tags,
the JUnit test report) is checked in the expanded YAML and the artifacts.
'''

import csv
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import pytest
import yaml

from conftest import ROOT, built_view, run_reframe

pytestmark = pytest.mark.reframe

DATA = os.path.join(ROOT, 'tests', 'data', 'pipeline')
#: 4.75.1 does not start on Node 20
GCL_VERSION = '4.73.0'
TOOLS = os.environ.get('IOGAP_CI_TOOLS') or '/var/tmp/iogap-ci/node'
#: One dd case and the absolute judgement of tests/data/pipeline/*/
SELECT = '-n AbsoluteCheck -x darshan=on -S DDSingleStream.count=16'
_NOISE = re.compile(r'WARNING|ERROR|Traceback')


def clean_environ(**extra):
    '''This environment without the project's settings or this venv.'''
    venv_bin = os.path.dirname(sys.executable)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(('IOGAP_', 'RFM_')) and
           k not in ('VIRTUAL_ENV', 'PYTHONPATH')}
    env['PATH'] = os.pathsep.join(p for p in env.get('PATH', '').split(
        os.pathsep) if p != venv_bin)
    env.update(extra)
    return env


# --- reframe's own reporting commands ------------------------------------

def test_stored_sessions_and_performance_report_warn_of_nothing(tmp_path):
    run = run_reframe(tmp_path, '-n', 'DDSingleStream.*cpu_bind=default.*'
                      'mode=direct', '-x', 'darshan=on',
                      '-S', 'DDSingleStream.count=16', '-r',
                      '--performance-report')
    text = run.stdout + run.proc.stderr
    assert run.returncode == 0 and not _NOISE.search(text), text
    assert 'PERFORMANCE REPORT' in run.stdout and 'write_bw' in run.stdout
    uuid = re.search(r'session stored with UUID: (\S+)', run.stdout).group(1)

    listing = run_reframe(tmp_path, '--list-stored-sessions')
    text = listing.stdout + listing.proc.stderr
    assert listing.returncode == 0 and not _NOISE.search(text), text
    assert uuid in listing.stdout


# --- the night's driver on its own ---------------------------------------

def nightly(tmp_path, references, select, **env):
    '''``iogap night`` as the suite job runs it.'''
    scratch = tmp_path / 'scratch'
    scratch.mkdir(exist_ok=True)
    environ = clean_environ(
        IOGAP_OUTPUT=str(tmp_path / 'out'), IOGAP_SCRATCH=str(scratch),
        IOGAP_SYSTEM='anyhost', IOGAP_SELECT=select, RFM_COLORIZE='n',
        IOGAP_REFERENCE_DIR=str(references), IOGAP_REQUIRE_REFERENCES='1',
        CI_PIPELINE_ID='7', CI_COMMIT_SHA='0' * 40, **env)
    return subprocess.run([sys.executable, '-m', 'iogap', 'night'],
                          cwd=ROOT, env=environ, capture_output=True,
                          text=True, timeout=300)


@pytest.mark.skipif(shutil.which('mpirun') is None,
                    reason='the OSU checks need MPI (mpirun)')
def test_a_vanished_tool_turns_the_night_red(tmp_path):
    proc = nightly(tmp_path, os.path.join(DATA, 'green'),
                   '-n OSULatency.*cpu_bind=default',
                   IOGAP_OSU_PREFIX=str(tmp_path / 'osu-gone'))
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert re.search(r'^TOOL VANISHED OSULatency .*: osu_latency .*not '
                     r'found under the prefix', proc.stdout, re.M), out
    assert '1 case(s) skipped because a tool was not found' in out
    assert '1 case(s) skipped, the reference file expects at most 0' in out
    summary = (tmp_path / 'out' / 'ci' / 'summary.txt').read_text()
    assert summary in proc.stdout

    # Within the skip budget, the vanished tool alone still turns it red
    [report] = (tmp_path / 'out' / 'reports').glob('run-report-*.json')
    again = subprocess.run(
        [sys.executable, '-m', 'iogap', 'verdict', str(report),
         '--stdout', str(tmp_path / 'out' / 'ci' / 'reframe.out')],
        cwd=ROOT, capture_output=True, text=True, env=clean_environ(
            IOGAP_REFERENCE_DIR=os.path.join(DATA, 'one-skip')))
    assert again.returncode == 1, again.stdout + again.stderr
    assert 'RED: 1 case(s) skipped because a tool was not found\n' in \
        again.stdout


def test_a_system_without_references_turns_the_night_red(tmp_path):
    empty = tmp_path / 'no-references'
    empty.mkdir()
    proc = nightly(tmp_path, empty, SELECT)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert 'IOGAP_REQUIRE_REFERENCES=1 demands one' in proc.stdout
    assert f'RED: no reference file {empty}/anyhost.yaml: nothing is ' \
           f'judged' in proc.stdout


# --- the pipeline in gitlab-ci-local -------------------------------------

@pytest.fixture(scope='module')
def gitlab_ci_local():
    '''The emulator's command, installed into TOOLS once.'''
    exe = os.path.join(TOOLS, 'node_modules', '.bin', 'gitlab-ci-local')
    for tool, why in (('git', 'the copy is a git repository'),
                      ('rsync', 'gitlab-ci-local copies builds, caches and '
                                'artifacts with it (apt-get install rsync)'),
                      ('npm', 'gitlab-ci-local is an npm package'),
                      ('node', 'gitlab-ci-local runs on Node')):
        if shutil.which(tool) is None:
            pytest.skip(f'no {tool}: {why}')

    def version():
        try:
            proc = subprocess.run([exe, '--version'], capture_output=True,
                                  text=True, timeout=60)
        except OSError as err:
            return str(err)
        return proc.stdout.strip() or proc.stderr.strip()[-300:]

    if version() != GCL_VERSION:
        proc = subprocess.run(
            ['npm', 'install', '--prefix', TOOLS, '--no-audit', '--no-fund',
             f'gitlab-ci-local@{GCL_VERSION}'],
            capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            pytest.skip(f'cannot install gitlab-ci-local@{GCL_VERSION} into '
                        f'{TOOLS} (npm registry unreachable?): '
                        f'{proc.stderr.strip()[-300:]}')
        if (found := version()) != GCL_VERSION:
            pytest.skip(f'gitlab-ci-local@{GCL_VERSION} does not start here '
                        f'(Node {shutil.which("node")}): {found}')
    return exe


def git(repo, *args):
    return subprocess.run(['git', '-C', str(repo), '-c', 'user.name=iogap',
                           '-c', 'user.email=iogap@example.org', *args],
                          check=True, capture_output=True, text=True).stdout


class Pipeline:
    '''A copy of this repository (work tree as it is, tracked and new files)
    and its nights.'''

    def __init__(self, exe, top):
        self.exe, self.top = exe, top
        self.repo = top / 'repo'
        self.history = top / 'iogap-history' / 'anyhost' / 'results.db'
        files = subprocess.run(
            ['git', 'ls-files', '-z', '--cached', '--others',
             '--exclude-standard'], cwd=ROOT, capture_output=True,
            check=True).stdout.decode().split('\0')
        for rel in filter(None, files):
            if os.path.isfile(os.path.join(ROOT, rel)):
                os.makedirs(self.repo / os.path.dirname(rel), exist_ok=True)
                shutil.copy2(os.path.join(ROOT, rel), self.repo / rel)
        # the pipeline as shipped: the copy's own root .gitlab-ci.yml
        assert (self.repo / '.gitlab-ci.yml').is_file()
        git(self.repo, 'init', '-q', '-b', 'main')
        git(self.repo, 'remote', 'add', 'origin',
            'https://gitlab.example.org/site/iogap.git')
        with open(self.repo / '.git' / 'info' / 'exclude', 'a') as fp:
            fp.write('.gitlab-ci-local/\n')
        (top / 'scratch').mkdir()
        (top / 'home').mkdir()

    def commit(self, references, message):
        shutil.copy(os.path.join(DATA, references, 'anyhost.yaml'),
                    self.repo / 'reference' / 'anyhost.yaml')
        git(self.repo, 'add', '-A')
        git(self.repo, 'commit', '-q', '-m', message)

    def gcl(self, *args, source='schedule', timeout=600, variables=None):
        '''The emulator on the copy, with the schedule's ``variables``
        (default: the generic profile, a tiny selection).'''
        variables = variables or {'IOGAP_SYSTEM': 'anyhost',
                                  'IOGAP_SELECT': SELECT}
        variables = {'IOGAP_SCRATCH': self.top / 'scratch', **variables}
        cmd = [self.exe, '--no-color', '--home', str(self.top / 'home'),
               '--ignore-predefined-vars', 'CI_PIPELINE_SOURCE',
               '--variable', f'CI_PIPELINE_SOURCE={source}',
               *[a for k, v in variables.items()
                 for a in ('--variable', f'{k}={v}')], *args]
        return subprocess.run(cmd, cwd=self.repo, capture_output=True,
                              text=True, timeout=timeout,
                              env=clean_environ(RFM_COLORIZE='n'))

    def night(self, name):
        '''Run the whole pipeline; keep its log and artifacts as ``name``.'''
        proc = self.gcl('--shell-isolation', '--timestamps')
        keep = self.top / name
        shutil.copytree(self.repo / '.gitlab-ci-local' / 'artifacts', keep)
        (keep / 'log').write_text(proc.stdout + proc.stderr)
        return Night(proc, keep)

    def sessions(self):
        '''The history database's sessions (csv rows).'''
        proc = subprocess.run(
            [os.path.join(os.path.dirname(sys.executable), 'reframe'), '-C',
             'reframe_config.py', '--list-stored-sessions', 'now-1d:now',
             '--table-format=csv'], cwd=ROOT, capture_output=True, text=True,
            env=clean_environ(IOGAP_RESULTS_DB=str(self.history),
                              IOGAP_OUTPUT=str(self.top / 'listing'),
                              IOGAP_SCRATCH=str(self.top / 'scratch')))
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return list(csv.DictReader(proc.stdout.splitlines()))


class Night:
    def __init__(self, proc, artifacts):
        self.returncode, self.artifacts = proc.returncode, artifacts
        self.log = proc.stdout + proc.stderr
        #: ``{job: 'PASS' or 'FAIL'}`` from the emulator's closing lines
        self.jobs = dict((j, s) for s, j in re.findall(
            r'^\s*(PASS|FAIL)\s+\[.*?\]\s+(\S+)\s*$', self.log, re.M))

    def job_log(self, job):
        return '\n'.join(line.split(' > ', 1)[1] for line in
                         self.log.splitlines() if f' {job} ' in line and
                         ' > ' in line)

    def path(self, job, *parts):
        return self.artifacts.joinpath(job, *parts)

    def run_report(self):
        [path] = self.path('suite', 'output', 'reports').glob('run-*.json')
        return json.loads(path.read_text())


@pytest.fixture(scope='module')
def pipeline(gitlab_ci_local, tmp_path_factory):
    '''The copy, its emulator and its cache (the venv built once).'''
    return Pipeline(gitlab_ci_local, tmp_path_factory.mktemp('pipeline'))


@pytest.fixture(scope='module')
def nights(pipeline):
    '''A green night, then one after a too strict reference was committed.'''
    pipeline.commit('green', 'references any disk meets')
    green = pipeline.night('green')
    green.sessions = pipeline.sessions()
    pipeline.commit('regressed', 'references no disk meets')
    red = pipeline.night('red')
    red.sessions = pipeline.sessions()
    red.patch_applies = subprocess.run(
        ['git', 'apply', '--check', str(red.path('rebaseline',
                                                 'rebaseline.patch'))],
        cwd=pipeline.repo, capture_output=True, text=True)
    return pipeline, green, red


def test_a_green_night_builds_the_venv_once_and_keeps_everything(nights):
    _, green, _ = nights
    assert green.returncode == 0, green.log
    assert green.jobs == {'suite': 'PASS', 'report': 'PASS',
                          'rebaseline': 'PASS'}, green.log
    # The first job builds the venv; the others take it from the cache
    assert 'venv: building .venv' in green.job_log('suite')
    for job in ('report', 'rebaseline'):
        assert 'venv: reusing the cached .venv' in green.job_log(job)

    suite = green.job_log('suite')
    summary = green.path('suite', 'output', 'ci', 'summary.txt').read_text()
    assert summary.strip() in suite
    assert summary.splitlines()[-2:] == [
        'GREEN: every case passed, every figure within its reference',
        '=' * 78]
    for kept in ('reports/junit.xml', 'logs', 'ci/history.csv',
                 'ci/reframe.out', 'perflogs'):
        assert green.path('suite', 'output', kept).exists(), kept
    junit = ET.parse(green.path('suite', 'output', 'reports', 'junit.xml'))
    assert junit.getroot().find('testsuite').get('failures') == '0'
    assert 'iogap report: wrote output/html/index.html' in \
        green.job_log('report')
    assert green.path('report', 'output', 'html', 'index.html').exists()
    head, _ = green.path('rebaseline', 'rebaseline.patch').read_text() \
        .split('--- a/reference/anyhost.yaml\n')
    assert all(line.startswith('# ') for line in head.splitlines())
    # The later jobs find tonight's run in their own checkout
    assert 'IOGAP_RUN_REPORT=output/reports/run-report-' in \
        green.path('suite', 'output', 'ci', 'night.env').read_text()

    # Tagged with the pipeline and the commit
    [session] = green.sessions
    assert session['UUID'] == green.run_report()['session_info']['uuid']
    assert re.fullmatch(r'[0-9a-f]{40}', session['commit'])
    assert session['pipeline'].isdigit()


def test_a_regressed_reference_turns_the_night_red(nights):
    _, _, red = nights
    assert red.returncode != 0
    # Red, and the report and the proposal are there all the same
    assert red.jobs == {'suite': 'FAIL', 'report': 'PASS',
                        'rebaseline': 'PASS'}, red.log
    assert 'venv: reusing the cached .venv' in red.job_log('suite')

    [judged] = [tc for tc in red.run_report()['runs'][0]['testcases']
                if tc['name'].startswith('AbsoluteCheck')]
    [(value, ref, lower, upper, unit, result)] = \
        judged['perfvalues'].values()
    assert result == 'fail'
    line = (f'REGRESSED {judged["name"]} @anyhost:default: write_bw = '
            f'{value:.6g} MB/s, reference {ref:.6g} MB/s (bounds -10% / '
            f'none), deviation {(value - ref) / ref * 100:+.2f}%')
    suite = red.job_log('suite')
    assert line in suite.splitlines(), suite
    assert suite.splitlines()[-2] == 'RED: 1 regressed figure(s)'

    junit = ET.parse(red.path('suite', 'output', 'reports', 'junit.xml'))
    [failure] = junit.getroot().iter('failure')
    assert 'write_bw' in failure.text
    # The failed judgement's stage directory is kept, with its job script
    stage = red.path('suite', 'output', 'stage', 'anyhost', 'default',
                     'builtin')
    assert [p.name for p in stage.glob('AbsoluteCheck_*/rfm_job.sh')]
    assert list(red.path('suite', 'output', 'logs').glob('reframe_*.log'))
    assert red.patch_applies.returncode == 0, red.patch_applies.stderr


def test_the_history_keeps_both_nights_and_shows_the_change(nights):
    pipeline, green, red = nights
    assert [s['UUID'] for s in red.sessions] == [
        green.run_report()['session_info']['uuid'],
        red.run_report()['session_info']['uuid']]
    assert pipeline.history.exists()

    with open(red.path('suite', 'output', 'ci', 'history.csv')) as fp:
        rows = list(csv.DictReader(fp))
    write = [r for r in rows if r['name'].startswith('DDSingleStream') and
             r['pvar'] == 'write_bw']
    assert write and write[0]['psamples (before)'] == '1'
    tonight, before = (float(write[0][f'pval (mean) ({t})'])
                       for t in ('tonight', 'before'))
    change = float(write[0]['pdiff (%)'])
    assert change == pytest.approx((tonight - before) / before * 100,
                                   abs=0.01)
    # The job log shows the same figure with its % change
    assert re.search(rf'^ *{re.escape(f"{change:+.2f}")}% .* 1  '
                     rf'DDSingleStream .*: '
                     rf'write_bw$', red.job_log('suite'), re.M)
    text = red.path('suite', 'output', 'ci', 'history.txt').read_text()
    assert text in red.job_log('suite') + '\n'


def test_only_schedules_and_web_runs_start_it(nights):
    pipeline, _, _ = nights
    for source, jobs in (('schedule', {'suite', 'report', 'rebaseline'}),
                         ('web', {'suite', 'report', 'rebaseline'}),
                         ('push', set())):
        proc = pipeline.gcl('--list-json', source=source)
        assert proc.returncode == 0, proc.stderr
        listed = json.loads(proc.stdout[proc.stdout.index('['):])
        assert {j['name'] for j in listed if j.get('when') != 'never'} \
            == jobs, source


def test_what_the_emulator_does_not_run_is_wired(nights):
    '''resource_group, retry and the JUnit report, as GitLab will read them
    (gitlab-ci-local validates but does not enforce them).'''
    pipeline, _, _ = nights
    proc = pipeline.gcl('--preview')
    assert proc.returncode == 0, proc.stderr
    jobs = yaml.safe_load(proc.stdout[proc.stdout.index('---'):])
    suite = jobs['suite']
    assert suite['resource_group'] == 'iogap-$IOGAP_SYSTEM'
    assert suite['artifacts']['reports']['junit'] == \
        'output/reports/junit.xml'
    assert suite['artifacts']['when'] == 'always'
    assert {'output/stage/', 'output/logs/', 'output/perflogs/',
            'output/reports/', 'output/ci/'} <= \
        set(suite['artifacts']['paths'])
    for name in ('suite', 'report', 'rebaseline'):
        job = jobs[name]
        assert 'script_failure' not in job['retry']['when']
        assert 'runner_system_failure' in job['retry']['when']
        assert job['cache'][0]['key']['files'] == ['pyproject.toml']
        assert job['cache'][0]['when'] == 'always'
    for name in ('report', 'rebaseline'):
        assert jobs[name]['needs'][0]['job'] == 'suite'
        assert jobs[name]['needs'][0]['artifacts'] is True
        # never in a night split per partition (its child pipeline has its
        # own), else always: after a red suite too
        assert [r.get('when') for r in jobs[name]['rules']] == [
            'never', 'always', 'always']
        assert jobs[name]['rules'][0] == jobs['suite']['rules'][0]


# --- a night split per partition, on the local cluster --------------------

#: Partitions knl and shared of the local cluster, dd and the OSU latency
#: (bench/budget.py's universe), a budget for each: jobs knl and shared,
#: the latency ratio across them with its two sides, knl's node sweep; in
#: a reservation of every node
SPLIT = {'IOGAP_SYSTEM': 'minicluster',
         'IOGAP_MINICLUSTER_PARTITIONS': 'knl,shared',
         'IOGAP_NIGHT_NODE_HOURS': 'knl=0.1,shared=0.1',
         'IOGAP_NIGHT_WITHIN': '^(OSULatency|DDSingleStream)$',
         'IOGAP_CANARIES': 'RatioCheck@0|DDSingleStream@2',
         'IOGAP_NIGHT_SWEEP': '1', 'IOGAP_RESERVATION': 'iogap-night'}
CHILD = ['night:knl', 'night:shared', 'night:knl+shared', 'sweep:knl',
         'report', 'rebaseline']


def history(db):
    '''``[(session info, test cases)]`` of a results database, in order.'''
    with sqlite3.connect(f'file:{db}?mode=ro', uri=True) as conn:
        blobs = conn.execute('SELECT json_blob FROM sessions ORDER BY '
                             'session_start_unix').fetchall()
    conn.close()
    return [(r['session_info'], [tc for run in r['runs'][:1]
                                 for tc in run['testcases']
                                 if not tc['fixture']])
            for r in map(json.loads, (b for (b,) in blobs))]


@pytest.fixture(scope='module')
def split_night(pipeline, tmp_path_factory):
    '''The parent pipeline on the local cluster with a budget per
    partition: night-plan writes the child pipeline, night triggers it
    (gitlab-ci-local runs it from the artifact); then what the history
    and Slurm say of every job.'''
    from test_multinode import Cluster, cannot_make_cluster
    why = cannot_make_cluster() or (
        built_view() is None and 'no Spack-built view: no OSU')
    if why:
        pytest.skip(why)
    cluster = Cluster(tmp_path_factory.mktemp('split-cluster'))
    cluster.start('--nodes', '2')
    try:
        made = cluster.client('scontrol', 'create', 'reservation',
                              'ReservationName=iogap-night', 'Users=root',
                              'Nodes=n0,n1,n2', 'StartTime=now',
                              'Duration=30')
        assert made.returncode == 0, made.stdout + made.stderr
        if subprocess.run(['git', '-C', str(pipeline.repo), 'rev-parse',
                           'HEAD'], capture_output=True).returncode:
            pipeline.commit('green', 'references any disk meets')
        start = time.monotonic()
        proc = pipeline.gcl('--shell-isolation', '--timestamps', timeout=900,
                            variables={**SPLIT, 'IOGAP_SPACK_VIEW':
                                       built_view(), 'SLURM_CONF':
                                       cluster.exports['SLURM_CONF']})
        night = Night(proc, pipeline.repo / '.gitlab-ci-local' / 'artifacts')
        night.wall = time.monotonic() - start
        night.child = dict((j, s) for s, j in re.findall(
            r'^\s*(PASS|FAIL)\s+\[.*?\]\s+\[night\] -> (\S+)\s*$',
            night.log, re.M))
        night.sessions = history(pipeline.top / 'iogap-history' /
                                 'minicluster' / 'results.db')
        night.reservation = {}
        for _, testcases in night.sessions:
            for tc in testcases:
                if 'judge' not in tc['tags']:
                    job = cluster.client('scontrol', 'show', 'job',
                                         str(tc['jobid'])).stdout
                    night.reservation[tc['jobid']] = re.findall(
                        r'Reservation=(\S+)', job)
        print(f'split night: {night.wall:.0f} s, jobs {night.child}')
        yield night
    finally:
        cluster.local_slurm('stop')


def test_a_split_night_runs_each_share_in_its_own_job(split_night):
    night = split_night
    assert night.jobs == {'night-plan': 'PASS', 'night': 'PASS'}, night.log
    assert night.child == {job: 'PASS' for job in CHILD}, night.log
    assert ('night-pipeline.yml: night:knl, night:shared, night:knl+shared,'
            ' sweep:knl, report, rebaseline') in night.job_log('night-plan')
    # One history: a session per job, the same night's plan
    infos = {info['plan_job']: info for info, _ in night.sessions}
    assert sorted(infos) == sorted(['knl', 'shared', 'knl+shared',
                                    'sweep-knl'])
    assert len({(i['pipeline'], i['plan_digest'])
                for i in infos.values()}) == 1
    # the partitions' jobs ran at once, into the one database
    knl, shared = infos['knl'], infos['shared']
    assert knl['time_start_unix'] < shared['time_end_unix'] and \
        shared['time_start_unix'] < knl['time_end_unix']
    cases = {info['plan_job']: tcs for info, tcs in night.sessions}
    for job in ('knl', 'shared'):
        assert {tc['partition'] for tc in cases[job]} == {job}
    # The ratio across partitions beside both its sides
    [ratio] = [tc for tc in cases['knl+shared']
               if tc['name'].startswith('RatioCheck')]
    assert ratio['result'] == 'pass'
    assert sorted((tc['name'].split()[0], tc['partition'])
                  for tc in cases['knl+shared'] if tc is not ratio and
                  tc['partition'] in ('knl', 'shared')) == [
        ('OSULatency', 'knl'), ('OSULatency', 'shared')]


def test_the_sweep_measures_every_node_and_the_reservation_holds(
        split_night):
    night = split_night
    [sweep] = [tcs for info, tcs in night.sessions
               if info['plan_job'] == 'sweep-knl']
    assert sorted(tc['job_nodelist'] for tc in sweep) == [['n1'], ['n2']]
    assert {tc['name'].split()[0] for tc in sweep} == {'DDSingleStream'}
    said = night.job_log('sweep:knl')
    assert 'swept 2 node(s) of knl (n1, n2); the plan counted 2 ' \
           '(sweep_nodes)' in said
    assert re.search(r'^SWEEP DDSingleStream .* @minicluster:knl: 2 node\(s\)'
                     r' \(n1, n2\); most spread \w+ ', said, re.M), said
    # Every job of every share ran in the reservation the schedule named
    assert night.reservation and all(
        found == ['iogap-night'] for found in night.reservation.values()), \
        night.reservation
    # The report and the proposal read every run report of the night
    assert 'iogap report: wrote output/html/index.html' in \
        night.job_log('report')
    assert night.path('report', 'output', 'html', 'index.html').exists()
    assert 'inter_node_over_intra_node_mpi_latency' in \
        night.job_log('rebaseline')


def test_reframes_tools_read_the_split_nights_history(pipeline, split_night):
    '''After a split night (each job's --report-file named by its
    session), ReFrame's own stored-session tools read the history.'''
    db = pipeline.top / 'iogap-history' / 'minicluster' / 'results.db'
    env = {'IOGAP_RESULTS_DB': str(db), 'IOGAP_SYSTEM': 'minicluster'}
    uuids = [info['uuid'] for info, _ in split_night.sessions]
    for args in (['--list-stored-sessions'],
                 ['--describe-stored-session', uuids[0]],
                 ['--performance-compare', f'{uuids[0]}/{uuids[1]}/mean:/']):
        run = run_reframe(pipeline.top / 'tools', '--system', 'minicluster',
                          *args, env=env)
        assert run.returncode == 0 and "Expecting ','" not in \
            run.stdout + run.proc.stderr, (args, run.stdout[-2000:])
    listing = run_reframe(pipeline.top / 'tools', '--system', 'minicluster',
                          '--list-stored-sessions', env=env).stdout
    assert all(u in listing for u in uuids)
