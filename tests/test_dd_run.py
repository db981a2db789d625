'''Real ReFrame runs of the dd family on the generic profile.'''

import os

import pytest

from conftest import run_reframe
from iogap import hostinfo

pytestmark = pytest.mark.reframe


@pytest.fixture(scope='module')
def run(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp('dd')
    return run_reframe(tmp_path, '-n', '^DDSingleStream', '-S', 'count=64',
                       '-S', 'repetitions=3', '-r')


def perf(tc, var):
    [value] = [v[0] for k, v in tc['perfvalues'].items()
               if k.endswith(f':{var}')]
    return value


def by_params(run, **params):
    return [tc for tc in run.testcases()
            if all(tc[k] == v for k, v in params.items())]


def test_every_variant_passes_or_skips_with_the_reason(run):
    cases = run.testcases()
    assert len(cases) == 6, run.stdout
    for tc in cases:
        if tc['result'] == 'skip':
            reason = run.skip_reason(tc['display_name'])
            assert tc['mode'] == 'direct', reason
            assert 'direct I/O' in reason or 'O_DIRECT' in reason
        else:
            assert tc['result'] == 'pass', tc['fail_reason']


def test_scratch_is_left_clean(run, tmp_path_factory):
    scratch = os.path.join(os.path.dirname(run.out), 'scratch')
    assert os.listdir(scratch) == []


def test_method_and_provider_are_logged(run):
    [tc] = by_params(run, mode='buffered', cpu_bind='default')
    assert tc['tool_provider'].startswith(('PATH:', 'spack-view:'))
    assert 'evict=' in tc['method'] and 'cpus=' in tc['method']
    log = os.path.join(run.out, 'perflogs', 'anyhost', 'default',
                       'DDSingleStream.log')
    with open(log) as fp:
        text = fp.read()
    assert 'evict=drop_caches' in text or 'evict=fadvise' in text
    assert 'read_3x_pass3_bw=' in text


def test_study_findings_visible(run):
    '''Buffered re-reads come from memory, far above direct reads; a dsync
    write is slower than a buffered one (best of the repetitions: noise
    only ever slows a run down).'''
    [buffered] = by_params(run, mode='buffered', cpu_bind='default')
    [dsync] = by_params(run, mode='dsync', cpu_bind='default')
    assert perf(dsync, 'write_bw_max') < perf(buffered, 'write_bw_max')
    assert perf(buffered, 'read_3x_bw') > perf(buffered, 'read_once_bw')
    direct = by_params(run, mode='direct', cpu_bind='default')
    if direct[0]['result'] == 'pass':
        assert perf(buffered, 'read_3x_bw') > 2 * perf(direct[0],
                                                       'read_once_bw')


def test_binding_asked_but_not_given_fails_clearly(tmp_path):
    if hostinfo.cpus() < 2 or 'mpi' not in ''.join(hostinfo.mpi_flavour()
                                                    or ''):
        pytest.skip('needs mpirun and two CPUs to tell binding apart')

    run = run_reframe(tmp_path, '-n', '^DDSingleStream.*cpu_bind=cores.*'
                      'mode=buffered', '-S', 'bind_options=--bind-to,none',
                      '-S', 'count=8', '-S', 'repetitions=1', '-r')
    [tc] = run.testcases()
    assert tc['result'] == 'fail'
    assert 'no binding happened' in tc['fail_reason']
    assert '--bind-to none' in tc['fail_reason']


def test_rebaselined_generic_run_passes_next_time(run, tmp_path):
    '''A new system's reference file comes from its own run report.'''
    import subprocess
    import sys

    from conftest import ROOT

    refdir = tmp_path / 'reference'
    refdir.mkdir()
    report = max((os.path.join(run.out, 'reports', f)
                  for f in os.listdir(os.path.join(run.out, 'reports'))),
                 key=os.path.getmtime)
    env = dict(os.environ, IOGAP_REFERENCE_DIR=str(refdir))
    proc = subprocess.run([sys.executable, '-m', 'iogap.rebaseline', report],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert (refdir / 'anyhost.yaml').exists() and '+absolute:' in proc.stdout

    again = run_reframe(tmp_path, '-n', '^DDSingleStream.*cpu_bind=default',
                        '-S', 'count=64', '-S', 'repetitions=3', '-r',
                        env={'IOGAP_REFERENCE_DIR': str(refdir)})
    cases = again.testcases()
    assert cases and all(tc['result'] in ('pass', 'skip') for tc in cases), \
        again.stdout
    checked = [v for tc in cases for v in tc['perfvalues'].values()
               if v[1] not in (0, None)]
    assert checked, 'the second run was checked against the new references'
