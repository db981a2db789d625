'''The cluster path for real: the minicori profile (systems/minicori.py) on
the private one-node Slurm of ci/local-slurm (partitions knl and haswell).

Jobs go through sbatch and srun (PMIx); binding and core specialization are
read inside the jobs; a core-spec Slurm does not grant, a dead slurmctld, a
scancel and a time-limit kill each fail with their cause named, leaving no
daemon, job or scratch file behind. About 3-4 minutes (one case waits for
Slurm's 1-minute minimum time limit).
'''

import os
import re
import shutil
import subprocess
import threading
import time

import pytest

from conftest import ROOT, cases, run_reframe
from iogap.core import placement, runlock, scratch
from iogap.judge import split_skips

pytestmark = pytest.mark.reframe

LOCAL_SLURM = os.path.join(ROOT, 'ci', 'local-slurm')
SLURM_DIR = os.environ.get('IOGAP_SLURM_DIR', '/var/tmp/iogap-slurm')
DAEMONS = ('munged', 'slurmctld', 'slurmd')


def variant(name, **params):
    '''A -n pattern selecting the cases of check ``name`` with ``params``
    (whatever other parameters the family has, in any order).'''
    return f'^{name}%' + ''.join(f'(?=(.*%)?{k}={v}(%|$))'
                                 for k, v in params.items())


#: The plain dd case (buffered, no variant): one job per partition
ONE_DD = variant('DDSingleStream', core_spec=0, cpu_bind='default',
                 memory='default', mode='buffered')


def without_slurm_conf():
    return {k: v for k, v in os.environ.items() if k != 'SLURM_CONF'}


def local_slurm(*args):
    return subprocess.run([LOCAL_SLURM, *args], capture_output=True,
                          text=True, timeout=120, env=without_slurm_conf())


def slurm_cmd(cluster, *args):
    return subprocess.run(args, capture_output=True, text=True, timeout=30,
                          env=dict(os.environ, **cluster['env']))


def ours(name):
    '''The live PID of our daemon ``name`` (as ci/local-slurm records
    it), or ``None``.'''
    try:
        with open(os.path.join(SLURM_DIR, 'run', f'{name}.pid')) as fp:
            pid = int(fp.read())
        with open(f'/proc/{pid}/cmdline', 'rb') as fp:
            if SLURM_DIR.encode() not in fp.read():
                return None
        with open(f'/proc/{pid}/stat') as fp:
            state = fp.read().rsplit(')', 1)[1].split()[0]
        return None if state == 'Z' else pid
    except (OSError, ValueError):
        return None


def processes_under(path):
    '''PIDs of processes (slurmstepd, job shells, tools) with their working
    directory or an open file under ``path``.'''
    found = []
    for pid in filter(str.isdigit, os.listdir('/proc')):
        try:
            links = [os.readlink(f'/proc/{pid}/cwd')] + [
                os.readlink(f'/proc/{pid}/fd/{fd}')
                for fd in os.listdir(f'/proc/{pid}/fd')]
        except OSError:
            continue
        if any(link.startswith(str(path)) for link in links):
            found.append(int(pid))

    return found


def leftovers(run, tmp_path):
    '''What a run left: scratch entries other than the suite's marker and
    locks, and live processes in its stage or scratch directories.'''
    root = tmp_path / 'scratch'
    files = sorted(e for e in os.listdir(root)
                   if e != scratch.MARKER and not runlock.is_lock(e))
    deadline = time.monotonic() + 15        # KillWait=5 and step teardown
    while True:
        procs = processes_under(run.out) + processes_under(root)
        if not procs or time.monotonic() > deadline:
            return files, procs
        time.sleep(0.5)


@pytest.fixture(scope='module')
def cluster():
    '''The local Slurm, started for this module and stopped after it if it
    was not already running: ``{'env', 'owned', 'startup'}``.'''
    path = os.environ.get('PATH', '') + ':/usr/sbin:/sbin'
    missing = [b for b in ('slurmctld', 'slurmd', 'munged', 'sbatch', 'srun',
                           'scontrol') if not shutil.which(b, path=path)]
    if missing:
        pytest.skip(f'Slurm is not installed (no {", ".join(missing)}): '
                    f'apt-get install slurm-wlm munge libpmix-dev')
    if os.geteuid() != 0:
        pytest.skip('ci/local-slurm runs its daemons as root')

    owned = local_slurm('status').returncode != 0
    t0 = time.monotonic()
    started = local_slurm('start')
    startup = time.monotonic() - t0
    conf = re.search(r'^export SLURM_CONF=(\S+)$', started.stdout, re.M)
    if started.returncode != 0 or not conf:
        local_slurm('stop')
        pytest.skip(f'the local Slurm did not start: '
                    f'{(started.stderr.strip().splitlines() or ["?"])[-1]}')

    yield {'env': {'SLURM_CONF': conf.group(1)}, 'owned': owned,
           'startup': startup}
    if owned:
        stopped = local_slurm('stop')
        assert stopped.returncode == 0, stopped.stderr
        assert stopped.stdout.strip() == 'unset SLURM_CONF'
        # Clients given a conf that is gone retry for 60 s: no child
        # process of this session may inherit it
        if os.environ.get('SLURM_CONF') == conf.group(1):
            del os.environ['SLURM_CONF']
        assert not any(ours(d) for d in DAEMONS)


def needs_own_slurm(cluster):
    if not cluster['owned']:
        pytest.skip('the local Slurm was running before these tests: not '
                    'ours to reconfigure or kill')


def minicori(tmp_path, cluster, *args, timeout=900):
    '''A reframe run on the minicori system: ``(run, wall seconds)``.'''
    t0 = time.monotonic()
    run = run_reframe(tmp_path, '--system', 'minicori', *args,
                      env=cluster['env'], timeout=timeout)
    return run, time.monotonic() - t0


def job_file(tc, name='rfm_job.out'):
    '''A file of a case's job (its script, its stdout): in the output
    directory, or still in the stage directory when a judgement of the
    case failed (ReFrame then keeps the stage).'''
    for where in (tc['outputdir'], tc['stagedir']):
        path = os.path.join(where, name)
        if os.path.exists(path):
            with open(path) as fp:
                return fp.read()

    raise AssertionError(f'{tc["display_name"]}: no {name} kept')


def test_local_slurm_is_up_in_seconds(cluster):
    assert cluster['startup'] < 30
    assert local_slurm('status').stdout.startswith('local-slurm: up')


# (a) and (b): every dd mode on both partitions, the ratios between them,
# and a two-rank MPI case, all through sbatch and srun

@pytest.fixture(scope='module')
def dd_run(cluster, tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp('minicori-dd')
    run, _ = minicori(tmp_path, cluster, '-n', '^DDSingleStream',
                      '-n', '^RatioCheck', '-n', '^MechanismCheck',
                      '-n', variant('OSULatency', core_spec=0,
                                    cpu_bind='cores'), '-r')
    return tmp_path, run


def test_dd_and_ratios_pass_as_slurm_jobs(dd_run):
    tmp_path, run = dd_run
    dd = cases(run, 'DDSingleStream')
    assert {(tc['mode'], tc['partition']) for tc in dd} == {
        (m, p) for m in ('buffered', 'dsync', 'direct')
        for p in ('knl', 'haswell')}, run.stdout
    ratios = cases(run, 'RatioCheck')
    assert ratios, run.stdout
    assert len(cases(run, 'MechanismCheck')) == 3, run.stdout
    # A judgement whose precondition this host lacks is not applicable,
    # and the reference file expects it; the rest pass
    na, unexpected = split_skips(run.report(), os.path.join(
        ROOT, 'reference', 'minicori.yaml'))
    assert unexpected == [], [tc['display_name'] for tc in unexpected]
    for tc in run.testcases():
        if tc in na:
            assert run.skip_reason(tc['display_name']).startswith(
                'not applicable on this host: ')
            continue
        assert tc['result'] == 'pass', (tc['display_name'],
                                        tc['fail_reason'])

    # Every measurement was a batch job Slurm numbered; ids are not reused
    ids = [tc['jobid'] for tc in dd + cases(run, 'OSULatency')]
    assert {tc['scheduler'] for tc in dd} == {'slurm-scontrol'}
    assert all(re.fullmatch(r'\d+', str(i)) for i in ids), ids
    assert len(set(ids)) == len(ids)
    for tc in dd:
        script = job_file(tc, 'rfm_job.sh')
        assert f'#SBATCH -p {tc["partition"]}\n' in script
        assert '#SBATCH --time=0:5:0\n' in script

    [cross] = [tc for tc in ratios if 'knl_over_haswell_direct_write_bw'
               in tc['display_name']]
    [(value, ref, lower, upper, unit, result)] = cross['perfvalues'].values()
    assert unit == 'ratio' and result == 'pass'
    assert ref * (1 + lower) <= value <= ref * (1 + upper)
    assert leftovers(run, tmp_path) == ([], [])


def test_binding_and_core_spec_hold_inside_the_job(dd_run):
    _, run = dd_run
    ncpus = os.cpu_count()
    seen = set()
    for tc in cases(run, 'DDSingleStream') + cases(run, 'OSULatency'):
        text = job_file(tc)
        assert re.search(r'^iogap-device: \S+ \d+:\d+ \S+$', text, re.M), \
            tc['display_name']
        job = placement.job_cpus(text)
        ranks = placement.parse(text)
        assert job and ranks, text
        # --core-spec=1: Slurm gives the job the unreserved core only
        assert placement.cpu_count(job) == ncpus - tc['core_spec'], \
            (tc['display_name'], job)
        if tc['cpu_bind'] == 'cores':
            # --cpu-bind=cores: each task on a core of its own
            assert all(placement.cpu_count(r['cpus']) == 1 for r in ranks)
            assert len({r['cpus'] for r in ranks}) == len(ranks), ranks
        seen.add((tc['name'].split()[0], tc['core_spec'], tc['cpu_bind']))

    assert {s[1:] for s in seen if s[0] == 'DDSingleStream'} == {
        (0, 'default'), (0, 'cores'), (1, 'default'), (1, 'cores')}
    assert ('OSULatency', 0, 'cores') in seen


def test_core_spec_that_slurm_does_not_grant_fails(cluster, tmp_path):
    needs_own_slurm(cluster)
    conf = cluster['env']['SLURM_CONF']
    with open(conf) as fp:
        text = fp.read()
    assert 'AllowSpecResourcesUsage=YES' in text
    try:
        # Slurm now ignores --core-spec (with an error line from sbatch)
        with open(conf, 'w') as fp:
            fp.write(text.replace('AllowSpecResourcesUsage=YES',
                                  'AllowSpecResourcesUsage=NO'))
        assert slurm_cmd(cluster, 'scontrol', 'reconfigure').returncode == 0
        run, _ = minicori(tmp_path, cluster, '--system', 'minicori:knl',
                          '-n', variant('DDSingleStream', core_spec=1,
                                        cpu_bind='default', memory='default',
                                        mode='buffered'), '-r')
    finally:
        with open(conf, 'w') as fp:
            fp.write(text)
        slurm_cmd(cluster, 'scontrol', 'reconfigure')

    [tc] = cases(run, 'DDSingleStream')
    assert tc['result'] == 'fail', run.stdout
    assert 'asked for --core-spec=1' in tc['fail_reason']
    assert 'no core was reserved' in tc['fail_reason']
    assert leftovers(run, tmp_path) == ([], [])


# (c) bad input: the job dies under the suite, or Slurm does

def cancel_first_running(cluster, done, cancelled):
    '''Wait for the first of the run's jobs to run, then scancel it.'''
    deadline = time.monotonic() + 120
    while not done.is_set() and time.monotonic() < deadline:
        out = slurm_cmd(cluster, 'squeue', '-h', '-t', 'RUNNING',
                        '-o', '%i %j').stdout.split()
        if len(out) >= 2 and out[1].startswith('rfm_DDSingleStream'):
            time.sleep(2)       # inside the job, its scratch dir made
            slurm_cmd(cluster, 'scancel', out[0])
            cancelled.append(out[0])
            return
        time.sleep(0.5)


def test_cancelled_and_timed_out_jobs_fail_naming_the_cause(cluster,
                                                              tmp_path):
    # Both partitions' jobs hang in the job script (not writing: nothing
    # to fill the disk) under a 1-minute limit, Slurm's shortest; the first
    # to run is cancelled, the other is killed by its time limit
    done, cancelled = threading.Event(), []
    canceller = threading.Thread(target=cancel_first_running,
                                 args=(cluster, done, cancelled))
    canceller.start()
    try:
        run, wall = minicori(tmp_path, cluster, '-n', ONE_DD,
                             '-S', 'DDSingleStream.prerun_cmds=sleep 300',
                             '-S', 'DDSingleStream.time_limit=1m', '-r',
                             timeout=300)
    finally:
        done.set()
        canceller.join()

    assert cancelled, run.stdout
    found = {tc['jobid']: tc for tc in cases(run, 'DDSingleStream')}
    assert len(found) == 2 and cancelled[0] in found, run.stdout
    for jobid, tc in found.items():
        assert tc['result'] == 'fail', tc['display_name']
        state = re.search(r'JobState=(\S+)', slurm_cmd(
            cluster, 'scontrol', 'show', 'job', jobid).stdout).group(1)
        if jobid == cancelled[0]:
            assert state == 'CANCELLED'
            assert re.search(r'CANCELLED AT \S+ \*\*\*', tc['fail_reason'])
        else:
            assert state == 'TIMEOUT'
            assert 'DUE TO TIME LIMIT' in tc['fail_reason']

    assert wall < 240
    assert leftovers(run, tmp_path) == ([], [])
    running = slurm_cmd(cluster, 'squeue', '-h', '-o', '%i').stdout.split()
    assert not set(running) & set(found)


def test_dead_slurmctld_fails_fast_and_stop_leaves_nothing(cluster,
                                                           tmp_path):
    # Last: it takes the controller down. SLURM_CONF stays valid.
    needs_own_slurm(cluster)
    pid = ours('slurmctld')
    assert pid
    os.kill(pid, 15)
    deadline = time.monotonic() + 10
    while ours('slurmctld') and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not ours('slurmctld')

    # The run stops before any job, in one line, instead of waiting for
    # the controller once per case
    run, wall = minicori(tmp_path, cluster, '-n', ONE_DD, '-r', timeout=120)
    assert run.returncode != 0
    assert wall < 60, f'{wall:.0f} s'
    [line] = [ln for ln in run.stdout.splitlines() if 'ERROR' in ln]
    assert 'the Slurm controller does not answer (Slurmctld(primary) at ' \
        in line and 'is DOWN): no job can be submitted' in line, line
    assert 'Traceback' not in run.stdout
    assert not os.path.exists(os.path.join(run.out, 'stage'))

    # The rest goes down too, and nothing of it stays
    stopped = local_slurm('stop')
    assert stopped.returncode == 0 and \
        stopped.stdout.strip() == 'unset SLURM_CONF', stopped.stderr
    assert not any(ours(d) for d in DAEMONS)
    assert not os.path.exists(SLURM_DIR)
