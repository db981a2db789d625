'''The dd family for real on the generic profile: every mode measured and
checked by the harness's own clock, placement verified, scratch clean; a
tool whose figure its clock contradicts fails with both numbers; every
generic judgement reached, a dd that drops O_DIRECT failing the O_DIRECT
mechanisms, and a scratch root with no device making the device
judgements not applicable.'''

import math
import os
import shutil

import pytest

from conftest import ROOT, cases, perf, run_reframe
from iogap.judge import unexpected_skips
from iogap.judge.skips import NOT_APPLICABLE
from iogap.site import hostinfo

pytestmark = pytest.mark.reframe


@pytest.fixture(scope='module')
def run(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp('dd')
    return run_reframe(tmp_path, '-n', '^DDSingleStream', '-x', 'darshan=on',
                       '-n', 'MechanismCheck', '-n', 'RatioCheck.*ratio=('
                       'cached|direct_read|buffered_over|dsync_over)',
                       '-S', 'DDSingleStream.count=64', '-r')


def test_every_case_passes(run):
    found = cases(run, 'DDSingleStream')
    assert len(found) == 6, run.stdout
    for tc in found:
        assert tc['result'] == 'pass', tc['fail_reason']


def test_scratch_is_left_clean(run):
    scratch = os.path.join(os.path.dirname(run.out), 'scratch')
    assert not [e for e in os.listdir(scratch) if e.startswith('iogap.')]


def test_method_and_provider_are_logged(run):
    [tc] = cases(run, 'DDSingleStream', mode='buffered', cpu_bind='default')
    assert tc['tool_provider'].startswith(('PATH:', 'spack-view:',
                                           'spack-external:'))
    assert 'evict=' in tc['method'] and 'cpus=' in tc['method']
    assert 'device=' in tc['method']
    log = os.path.join(run.out, 'perflogs', 'anyhost', 'default',
                       'DDSingleStream.log')
    with open(log) as fp:
        text = fp.read()
    assert 'evict=drop_caches' in text or 'evict=fadvise' in text
    assert 'read_3x_pass3_bw=' in text and 'provider=' in text
    assert 'memory_bw=' in text


def scratch_device(path):
    '''Why ``path`` has no block device whose counters a job can read, or
    ``None``.'''
    dev = os.stat(path).st_dev
    majmin = f'{os.major(dev)}:{os.minor(dev)}'
    if os.major(dev) == 0 or not os.path.exists(
            f'/sys/dev/block/{majmin}/stat'):
        return f'{path} is on {hostinfo.fs_type(path)} (device {majmin}), ' \
            f'which has no block device'
    return None


def test_every_step_says_what_it_moved(run):
    '''Each case reports the bytes each step moved and the shares the
    mechanisms are judged on, or its job says the host has no device.'''
    why = scratch_device(os.path.join(os.path.dirname(run.out), 'scratch'))
    if why:
        pytest.skip(f'{why}: the device figures are not applicable here')
    for tc in cases(run, 'DDSingleStream', cpu_bind='default'):
        names = {k.rsplit(':', 1)[1] for k in tc['perfvalues']}
        for step in ('write', 'read_once', 'read_3x'):
            assert f'{step}_device_written_bytes' in names, tc['mode']
            assert f'{step}_fetched_bytes' in names, tc['mode']
        assert {'write_device_share', 'read_once_fetched_share',
                'reread_fetched_share'} <= names, tc['mode']
        assert 0 <= perf(tc, 'read_once_fetched_share') < 1000
        assert perf(tc, 'memory_bw') > 0


def test_each_pattern_is_paired_with_its_repetitions_memory_copy(run):
    '''Every case reports ``<pattern>_bw_paired``, positive, and equal to
    the geometric mean of its repetitions' I/O over memory-copy bandwidth
    as the job's own dd lines give them; each memory copy moved its own
    count (the profile's dd_control_size, 2 GiB here), not the file's.'''
    from iogap.core import steps
    from iogap.dd.parse import dd_record
    for tc in cases(run, 'DDSingleStream'):
        # a case with dependents keeps its output in its stage directory
        where = next(d for d in (tc['outputdir'], tc['stagedir'])
                     if os.path.exists(os.path.join(d, tc['job_stdout'])))
        with open(os.path.join(where, tc['job_stdout'])) as fp:
            found = [s for s in steps.parse(fp.read()) if dd_record(s)]
        with open(os.path.join(where, 'rfm_job.sh')) as fp:
            assert '--count 64 ' in fp.read()
        bw = {}
        for s in found:
            nbytes, seconds = dd_record(s)
            bw.setdefault(s['op'], {})[s['rep']] = nbytes / seconds / 1e6
            if s['op'] == 'memory':
                assert nbytes == 2 * 2**30, nbytes
        assert len(bw['memory']) == 3, tc['mode']
        reads = [bw[f'read{p}'] for p in (1, 2, 3)]
        io = {'write': bw['write'], 'read_once': reads[0],
              'read_3x': {r: sum(p[r] for p in reads) / 3 for r in reads[0]}}
        for pattern, values in io.items():
            logs = [math.log(values[r] / bw['memory'][r]) for r in values]
            got = perf(tc, f'{pattern}_bw_paired')
            assert got > 0, (tc['mode'], pattern)
            assert got == pytest.approx(math.exp(sum(logs) / len(logs)),
                                        rel=1e-9), (tc['mode'], pattern)


def test_every_generic_judgement_is_reached(run):
    '''Each mechanism passes (a healthy host meets them all) or is not
    applicable with its reason; each ratio is judged or not applicable
    with the precondition measured. What a ratio's value is belongs to the
    host, not to this test.'''
    mechanisms = cases(run, 'MechanismCheck')
    assert len(mechanisms) == 6, run.stdout
    for tc in mechanisms:
        if tc['result'] == 'skip':
            assert tc['not_applicable'], tc['display_name']
            continue
        assert tc['result'] == 'pass', (tc['display_name'],
                                        tc['fail_reason'])
    ratios = cases(run, 'RatioCheck')
    assert len(ratios) == 5, run.stdout
    for tc in ratios:
        if tc['result'] == 'skip':
            reason = run.skip_reason(tc['display_name'])
            assert reason.startswith(NOT_APPLICABLE) and \
                'does not hold (' in reason and tc['not_applicable'], reason
        else:
            [(value, *_)] = tc['perfvalues'].values()
            assert value > 0
            assert 'precondition ' in tc['method'], tc['method']
    report = max(os.listdir(os.path.join(run.out, 'reports')))
    assert unexpected_skips(os.path.join(run.out, 'reports', report),
                            os.path.join(ROOT, 'reference',
                                         'anyhost.yaml')) == []


def fake_dd(tmp_path, body):
    '''An environment whose dd, first on PATH, runs ``body`` (an empty
    Spack view keeps the built one out of the way).'''
    bindir = tmp_path / 'fake'
    bindir.mkdir()
    dd = bindir / 'dd'
    dd.write_text(f'#!/bin/bash\n{body}\n')
    dd.chmod(0o755)
    (tmp_path / 'noview').mkdir()
    return {'IOGAP_SPACK_VIEW': str(tmp_path / 'noview'),
            'PATH': f'{bindir}:{os.environ["PATH"]}'}


ONE = ('-n', 'DDSingleStream.*%cpu_bind=default.*%mode=buffered',
       '-x', 'darshan=on', '-S',
       'count=8', '-S', 'repetitions=1')

#: A dd that drops O_DIRECT without a word, as a file system that falls
#: back to the page cache would
NO_ODIRECT = ('args=(); for a in "$@"; do case $a in oflag=direct|'
              'iflag=direct) ;; *) args+=("$a") ;; esac; done; '
              'exec /bin/dd "${args[@]}"')


def test_odirect_falling_back_to_the_page_cache_fails_its_judgements(
        tmp_path):
    why = scratch_device(tmp_path)
    if why or not shutil.which('fincore'):
        pytest.skip(why or 'fincore (util-linux) is not installed')
    if not hostinfo.odirect_expected(str(tmp_path))[0]:
        pytest.skip(hostinfo.odirect_expected(str(tmp_path))[1])

    env = fake_dd(tmp_path, NO_ODIRECT)
    run = run_reframe(tmp_path, '-n', 'DDSingleStream.*%cpu_bind=default.*'
                      '%mode=direct', '-n', 'MechanismCheck.*direct_',
                      '-x', 'darshan=on', '-S', 'DDSingleStream.count=16',
                      '-S', 'DDSingleStream.repetitions=1', '-r', env=env)
    [dd] = cases(run, 'DDSingleStream')
    assert dd['result'] == 'pass'     # measuring never judges
    judged = {tc['judgement']: tc for tc in cases(run, 'MechanismCheck')}
    # All of the file stayed in the page cache; the re-reads fetched none
    for name, value in (('direct_write_bypassed_page_cache', '=100.0 %'),
                        ('direct_reread_reached_device', '=0.0 %')):
        assert judged[name]['result'] == 'fail', run.stdout
        assert f'{name}{value}' in judged[name]['fail_reason']


def test_a_scratch_root_in_memory_makes_device_judgements_not_applicable(
        tmp_path):
    shm = '/dev/shm'
    if hostinfo.fs_type(shm) not in hostinfo.MEMORY_FS:
        pytest.skip(f'{shm} is not a memory file system here')
    scratch = os.path.join(shm, f'iogap-test-{os.getpid()}')
    try:
        run = run_reframe(tmp_path, '-n', 'DDSingleStream.*%cpu_bind=default'
                          '.*%mode=dsync', '-n', 'MechanismCheck.*dsync',
                          '-x', 'darshan=on', '-S', 'DDSingleStream.count=8',
                          '-S', 'DDSingleStream.repetitions=1',
                          '-S', 'DDSingleStream.reads=0', '-r',
                          scratch=scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    [dd] = cases(run, 'DDSingleStream')
    assert dd['result'] == 'pass', dd['fail_reason']
    [tc] = cases(run, 'MechanismCheck')
    assert tc['result'] == 'skip'
    assert tc['judgement'] == 'dsync_write_reached_device'
    reason = run.skip_reason(tc['display_name'])
    assert reason.startswith(NOT_APPLICABLE) and 'tmpfs' in reason, reason
    log = os.path.join(run.out, 'perflogs', 'anyhost', 'default',
                       'MechanismCheck.log')
    assert f'{NOT_APPLICABLE} write_device_share' in open(log).read()


def test_a_dd_claiming_4_pb_per_s_fails_with_both_numbers(tmp_path):
    '''The real dd moves the bytes; its summary line lies about the time.'''
    env = fake_dd(tmp_path, 'case "$*" in *count=0*|*of=/dev/null*count=*) '
                  'exec /bin/dd "$@";; '
                  'esac; /bin/dd "$@" 2>/dev/null; sleep 0.5; echo '
                  '"8388608 bytes (8.4 MB, 8.0 MiB) copied, 2e-09 s, '
                  '4.2 PB/s" >&2')
    run = run_reframe(tmp_path, *ONE, '-r', env=env)
    [tc] = cases(run, 'DDSingleStream')
    assert tc['result'] == 'fail'
    assert 'MB/s (0.000000 s for 8388608 bytes) but the harness saw' in \
        tc['fail_reason']
    assert 'not plausible' in tc['fail_reason']


def test_a_dd_killed_by_a_signal_is_named(tmp_path):
    env = fake_dd(tmp_path, 'kill -KILL $$')
    run = run_reframe(tmp_path, *ONE, '-r', env=env)
    [tc] = cases(run, 'DDSingleStream')
    assert tc['result'] == 'fail'
    assert 'killed by SIGKILL' in tc['fail_reason'], tc['fail_reason']


def test_binding_asked_but_not_given_fails_clearly(tmp_path):
    if hostinfo.cpus() < 2 or hostinfo.mpi_flavour() != 'openmpi':
        pytest.skip('needs Open MPI and two CPUs to tell binding apart')

    run = run_reframe(tmp_path, '-n', 'DDSingleStream.*%cpu_bind=cores.*'
                      '%mode=buffered', '-S', 'bind_options=--bind-to,none',
                      '-S', 'count=8', '-S', 'repetitions=1', '-r')
    [tc] = cases(run, 'DDSingleStream')
    assert tc['result'] == 'fail'
    assert 'no binding happened' in tc['fail_reason']
    assert '--bind-to none' in tc['fail_reason']
