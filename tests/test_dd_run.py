'''The dd family for real on the generic profile: every mode measured and
checked by the harness's own clock, placement verified, scratch clean; a
tool whose figure its clock contradicts fails with both numbers.'''

import os

import pytest

from conftest import cases, perf, run_reframe
from iogap.profile import hostinfo

pytestmark = pytest.mark.reframe


@pytest.fixture(scope='module')
def run(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp('dd')
    return run_reframe(tmp_path, '-n', '^DDSingleStream', '-x', 'darshan=on',
                       '-S', 'count=64', '-r')


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
    log = os.path.join(run.out, 'perflogs', 'anyhost', 'default',
                       'DDSingleStream.log')
    with open(log) as fp:
        text = fp.read()
    assert 'evict=drop_caches' in text or 'evict=fadvise' in text
    assert 'read_3x_pass3_bw=' in text and 'provider=' in text


def test_study_findings_visible(run):
    '''Cached re-reads come from memory, far above direct reads; a dsync
    write is slower than a direct one.'''
    [buffered] = cases(run, 'DDSingleStream', mode='buffered',
                       cpu_bind='default')
    [dsync] = cases(run, 'DDSingleStream', mode='dsync', cpu_bind='default')
    [direct] = cases(run, 'DDSingleStream', mode='direct', cpu_bind='default')
    assert perf(buffered, 'read_3x_bw') > 2 * perf(buffered, 'read_once_bw')
    assert perf(buffered, 'read_3x_bw') > 2 * perf(direct, 'read_once_bw')
    assert perf(dsync, 'write_bw_max') < perf(buffered, 'write_bw_max')


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


def test_a_dd_claiming_4_pb_per_s_fails_with_both_numbers(tmp_path):
    '''The real dd moves the bytes; its summary line lies about the time.'''
    env = fake_dd(tmp_path, '/bin/dd "$@" 2>/dev/null; sleep 0.5; echo '
                  '"8388608 bytes (8.4 MB, 8.0 MiB) copied, 2e-09 s, '
                  '4.2 PB/s" >&2')
    run = run_reframe(tmp_path, *ONE, '-r', env=env)
    [tc] = cases(run, 'DDSingleStream')
    assert tc['result'] == 'fail'
    assert 'reports 0.000000 s but the step took' in tc['fail_reason']
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
