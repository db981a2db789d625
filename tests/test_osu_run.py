'''Real ReFrame runs of the OSU family on the generic profile.

OSU is found like the checks find it: ``$IOGAP_OSU_PREFIX``, or on PATH
(also in OSU's libexec layout below a PATH entry's parent). Without OSU the
real runs are skipped, and the checks must skip naming OSU.
'''

import os
import re

import pytest

from conftest import run_reframe
from iogap import hostinfo
from iogap.osubase import LIBEXEC, PREFIX_ENV
from iogap.provider import _on_path_prefixes

pytestmark = pytest.mark.reframe

_SUBDIRS = (f'{LIBEXEC}/pt2pt', 'bin')
_QUICK = ['-S', 'iterations=20', '-S', 'warmup=2']


def osu_found():
    prefix = os.environ.get(PREFIX_ENV)
    if prefix:
        return any(os.access(os.path.join(prefix, d, 'osu_latency'), os.X_OK)
                   for d in _SUBDIRS)

    return _on_path_prefixes('osu_latency', _SUBDIRS) is not None


needs_mpi = pytest.mark.skipif(hostinfo.mpi_flavour() is None,
                               reason='no mpirun: the OSU checks need MPI')
needs_osu = pytest.mark.skipif(
    not osu_found(), reason=f'OSU micro-benchmarks not found (set '
    f'{PREFIX_ENV} or put them on PATH)')


@pytest.fixture(scope='module')
def run(tmp_path_factory):
    if hostinfo.mpi_flavour() is None or not osu_found():
        pytest.skip('needs mpirun and the OSU micro-benchmarks')

    return run_reframe(tmp_path_factory.mktemp('osu'), '-n', '^OSU', '-r')


def perf(tc, var):
    [value] = [v[0] for k, v in tc['perfvalues'].items()
               if k.endswith(f':{var}')]
    return value


def by_name(run, name):
    return [tc for tc in run.testcases() if tc['name'].startswith(name)]


@needs_osu
def test_every_case_passes_or_skips_for_lack_of_cores(run):
    cases = run.testcases()
    assert cases, run.stdout
    for tc in cases:
        if tc['result'] == 'skip':
            assert 'usable core' in tc['fail_reason']
        else:
            assert tc['result'] == 'pass', tc['fail_reason']


@needs_osu
def test_figures_provenance_and_placement_are_logged(run):
    for tc in by_name(run, 'OSULatency'):
        assert perf(tc, 'smallest_size') in (0, 1)      # 5.x: 0 B, 7.x: 1 B
        assert 0 < perf(tc, 'latency_smallest') < perf(tc, 'latency_65536B')
        assert tc['tool_provider'].startswith(('prefix:', 'PATH:',
                                               'spack-view:'))
        assert tc['tool_provider'].endswith('/pt2pt/osu_latency')
        assert 'placement=same_socket' in tc['method']
        assert 'ranks=0@' in tc['method'] and ' 1@' in tc['method']
        assert 'validated with -c' in tc['method']

    for tc in by_name(run, 'OSUBandwidth') + by_name(run, 'OSUBiBandwidth'):
        assert perf(tc, 'bw_peak') > 0 and perf(tc, 'bw_peak_size') >= 1

    for tc in by_name(run, 'OSUAlltoall') + by_name(run, 'OSUAllreduce'):
        assert perf(tc, 'latency_8B_2ranks') > 0
        assert tc['tool_provider'].endswith(('/collective/osu_alltoall',
                                             '/collective/osu_allreduce'))

    log = os.path.join(run.out, 'perflogs', 'anyhost', 'default',
                       'OSULatency.log')
    with open(log) as fp:
        assert 'latency_smallest=' in fp.read()


@needs_osu
def test_binding_asked_but_not_given_fails_for_the_rank(tmp_path):
    run = run_reframe(tmp_path, '-n', '^OSULatency.*cpu_bind=cores', *_QUICK,
                      '-S', 'bind_options=--bind-to,none', '-r')
    [tc] = run.testcases()
    if hostinfo.cpus() < 2:
        pytest.skip('one CPU: nothing to tell binding apart')
    assert tc['result'] == 'fail'
    assert 'no binding happened' in tc['fail_reason']
    assert 'task 0' in tc['fail_reason']


@needs_osu
def test_a_run_cut_short_fails_naming_where_it_stopped(tmp_path):
    '''Every rank runs under ``timeout 5`` (slipped in after the binding
    options, which come last): small sizes print at once, but 20000 round
    trips of 1-4 MiB take far longer, so the table stops early and the job
    fails.'''
    run = run_reframe(tmp_path, '-n', '^OSULatency.*cpu_bind=cores',
                      '-S', 'validation=false', '-S', 'iterations=20000',
                      '-S', 'max_size=4194304',
                      '-S', 'bind_options=--bind-to,core,timeout,5', '-r')
    [tc] = run.testcases()
    assert tc['result'] == 'fail'
    assert 'osu_latency failed with exit code' in tc['fail_reason']
    assert 'measure run, 2 ranks on 1 node(s)' in tc['fail_reason']
    assert 'after printing sizes up to' in tc['fail_reason']


@needs_mpi
def test_bad_max_size_is_a_clear_error(tmp_path):
    run = run_reframe(tmp_path, '-n', '^OSUAlltoall.*cpu_bind=default',
                      '-S', 'max_size=1000', '-r')
    [tc] = run.testcases()
    assert tc['result'] == 'fail'
    assert 'max_size must be a power of two' in tc['fail_reason']


@needs_mpi
def test_without_osu_every_check_skips_naming_osu(tmp_path):
    path = [d for d in os.environ.get('PATH', '').split(os.pathsep)
            if d and not os.path.exists(os.path.join(d, 'osu_latency')) and
            not os.path.isdir(os.path.join(os.path.dirname(d), LIBEXEC))]
    run = run_reframe(tmp_path, '-n', '^OSU', '-r',
                      env={'PATH': os.pathsep.join(path), PREFIX_ENV: '',
                           'IOGAP_SPACK_VIEW': ''})
    cases = run.testcases()
    assert cases, run.stdout
    assert all(tc['result'] == 'skip' for tc in cases), run.stdout
    # The report keeps no skip reason: read ReFrame's SKIP lines
    reasons = re.findall(r'^\[\s+SKIP\s+\] .*? \[(.*)\]$', run.stdout, re.M)
    assert len(reasons) == len(cases), run.stdout
    for reason in reasons:
        assert re.match(r'osu_\w+ \(the OSU micro-benchmarks\) not found',
                        reason), reason
        assert PREFIX_ENV in reason


@needs_osu
def test_references_apply_and_a_missing_figure_fails(tmp_path):
    refdir = tmp_path / 'reference'
    refdir.mkdir()
    (refdir / 'anyhost.yaml').write_text('''
absolute:
- test: OSULatency
  partition: default
  var: latency_smallest
  ref: [1000, null, 0.5]
  unit: us
  provenance: test
- test: OSUAlltoall
  partition: default
  var: latency_1048576B_2ranks
  ref: [1000, null, 0.5]
  unit: us
  provenance: test (the generic profile stops at 64 KiB)
''')
    run = run_reframe(tmp_path, '-n', '^OSU(Latency|Alltoall).*'
                      'cpu_bind=default', *_QUICK, '-r',
                      env={'IOGAP_REFERENCE_DIR': str(refdir)})
    [latency] = by_name(run, 'OSULatency')
    [alltoall] = by_name(run, 'OSUAlltoall')
    assert latency['result'] == 'pass', latency['fail_reason']
    [ref] = [v for k, v in latency['perfvalues'].items()
             if k.endswith(':latency_smallest')]
    assert ref[1] == 1000
    assert alltoall['result'] == 'fail'
    assert ('the reference file expects latency_1048576B_2ranks' in
            alltoall['fail_reason'])
