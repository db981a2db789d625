'''The OSU family for real on the generic profile, with the Spack-built
OSU 7.4: point-to-point and collectives validated (allreduce in MPI_FLOAT),
placement and binding verified, failures named.'''

import re

import pytest

from conftest import cases, needs_tools, perf, run_reframe
from iogap.osu.base import PREFIX_ENV
from iogap.site import hostinfo

pytestmark = [pytest.mark.reframe, needs_tools]

QUICK = ['-S', 'iterations=20', '-S', 'warmup=2']


@pytest.fixture(scope='module')
def run(tmp_path_factory):
    return run_reframe(tmp_path_factory.mktemp('osu'), '-n', '^OSU', '-r')


def test_every_family_passes_against_osu_7_4(run):
    found = run.testcases()
    assert {tc['name'].split()[0] for tc in found} == {
        'OSULatency', 'OSUBandwidth', 'OSUBiBandwidth', 'OSUAlltoall',
        'OSUAllreduce'}, run.stdout
    for tc in found:
        assert tc['result'] == 'pass', (tc['display_name'], tc['fail_reason'])
        assert 'osu=7.4, validated with -c' in tc['method']


def test_allreduce_validates_and_measures_in_float(run):
    for tc in cases(run, 'OSUAllreduce'):
        assert tc['method'].endswith('mpi_float')
        assert perf(tc, 'latency_8B') > 0


def test_figures_and_placement(run):
    [tc] = cases(run, 'OSULatency', cpu_bind='default')
    # OSU 7.x starts at 1 B; the least latency up to 8 B stands for the
    # study's 0-byte figure
    assert perf(tc, 'smallest_size') in (1, 2, 4, 8)
    assert 0 < perf(tc, 'latency_smallest') <= perf(tc, 'latency_8B')
    assert perf(tc, 'latency_smallest') < perf(tc, 'latency_65536B')
    assert 'placement=same_socket' in tc['method']
    assert re.search(r'ranks=0@\S+:\S+ 1@', tc['method'])
    [bw] = cases(run, 'OSUBandwidth', cpu_bind='cores')
    assert perf(bw, 'bw_peak') > 0 and perf(bw, 'bw_peak_size') > 1


def test_binding_asked_but_not_given_fails_for_the_rank(tmp_path):
    if hostinfo.cpus() < 2:
        pytest.skip('one CPU: nothing to tell binding apart')
    run = run_reframe(tmp_path, '-n', '^OSULatency.*cpu_bind=cores', *QUICK,
                      '-S', 'bind_options=--bind-to,none', '-r')
    [tc] = run.testcases()
    assert tc['result'] == 'fail'
    assert 'no binding happened' in tc['fail_reason']
    assert 'task 0' in tc['fail_reason']


def test_a_run_cut_short_fails_naming_where_it_stopped(tmp_path):
    '''Every rank runs under ``timeout 5`` (slipped in after the binding
    options): 20000 round trips of 1-4 MiB take far longer, so the table
    stops early and the job fails.'''
    run = run_reframe(tmp_path, '-n', '^OSULatency.*cpu_bind=cores',
                      '-S', 'validation=false', '-S', 'iterations=20000',
                      '-S', 'max_size=4194304',
                      '-S', 'bind_options=--bind-to,core,timeout,5', '-r')
    [tc] = run.testcases()
    assert tc['result'] == 'fail'
    assert 'osu_latency failed with exit code' in tc['fail_reason'] or \
        'killed by' in tc['fail_reason']
    assert 'measure run, 2 ranks on 1 node(s)' in tc['fail_reason']
    assert 'after printing sizes up to' in tc['fail_reason']


def test_bad_max_size_is_a_clear_error(tmp_path):
    run = run_reframe(tmp_path, '-n', '^OSUAlltoall.*cpu_bind=default',
                      '-S', 'max_size=1000', '-r')
    [tc] = run.testcases()
    assert tc['result'] == 'fail'
    assert 'max_size must be a power of two' in tc['fail_reason']


def test_without_osu_every_check_skips_naming_osu(tmp_path):
    (tmp_path / 'empty').mkdir()
    run = run_reframe(tmp_path, '-n', '^OSU', '-r',
                      env={PREFIX_ENV: '', 'IOGAP_SPACK_VIEW':
                           str(tmp_path / 'empty')})
    found = run.testcases()
    assert found and all(tc['result'] == 'skip' for tc in found), run.stdout
    reasons = re.findall(r'^\[\s+SKIP\s+\] .*? \[(.*)\]$', run.stdout, re.M)
    assert len(reasons) == len(found), run.stdout
    for reason in reasons:
        assert re.match(r'osu_\w+ \(the OSU micro-benchmarks\) not found',
                        reason), reason
        assert PREFIX_ENV in reason
