'''IOR and mdtest for real on the generic profile, with the Spack-built
IOR 4.0.0: every layout, API and mode at both points of the sweep, checked
against IOR's own plan and the harness; faults in IOR are caught.'''

import json
import os

import pytest

from conftest import built_view, cases, needs_tools, perf, run_reframe

pytestmark = [pytest.mark.reframe, needs_tools]

#: One point, every layout x API x mode, default binding
SELECTION = ['IORBench%core_spec=0%cpu_bind=default.*%procs_per_node=2',
             'IORCollective%core_spec=0%cpu_bind=default',
             'MDTestBench%core_spec=0%cpu_bind=default.*%procs_per_node=2']
ONE = ('-n', 'IORBench%core_spec=0%cpu_bind=default.*%procs_per_node=2'
       '%layout=ssf%api=POSIX%mode=buffered', '-x', 'darshan=on')


def names(*patterns):
    return [arg for p in patterns for arg in ('-n', p)]


@pytest.fixture(scope='module')
def run(tmp_path_factory):
    return run_reframe(tmp_path_factory.mktemp('ior'), *names(*SELECTION),
                       '-x', 'darshan=on', '-r')


def test_every_case_passes_with_the_spack_built_ior(run):
    found = [tc for tc in run.testcases() if tc['name'].startswith(
        ('IOR', 'MDTest'))]
    assert len(found) == 14 + 6 + 2, run.stdout
    for tc in found:
        assert tc['result'] == 'pass', (tc['display_name'], tc['fail_reason'])
        assert tc['tool_provider'].startswith('spack-view:') and \
            tc['tool_provider'].endswith(('/bin/ior', '/bin/mdtest'))


def test_no_direct_case_for_mpiio_or_hdf5(run):
    assert not cases(run, 'IORBench', api='MPIIO', mode='direct')
    assert cases(run, 'IORBench', api='POSIX', mode='direct')


def test_every_phase_and_statistic(run):
    [tc] = cases(run, 'IORBench', api='POSIX', layout='fpp', mode='buffered')
    for var in ('write_bw', 'write_bw_max', 'write_bw_min', 'read_3x_bw',
                'read_once_bw'):
        assert perf(tc, var) > 0
    assert perf(tc, 'write_bw_min') <= perf(tc, 'write_bw') <= \
        perf(tc, 'write_bw_max')
    assert 'eviction' in tc['method'] and 'cpus=' in tc['method']
    assert sorted(f for f in os.listdir(tc['outputdir'])
                  if f.endswith('.json')) == ['ior_read.json',
                                              'ior_write.json']


def _geometry(tc):
    '''IOR's own record of a case's geometry: its write's parameters and
    summary row.'''
    with open(os.path.join(tc['outputdir'], 'ior_write.json')) as fp:
        doc = json.load(fp)
    return doc['tests'][0]['Parameters'], doc['summary'][0]


def test_collective_io_in_the_studys_geometry(run):
    '''Interleaved, small, non-contiguous: each task's 64 MiB as 64 KiB
    segments, one transfer per segment, every byte moved.'''
    for io in ('independent', 'collective'):
        [tc] = cases(run, 'IORCollective', api='MPIIO', io=io)
        assert perf(tc, 'write_bw') > 0
        params, result = _geometry(tc)
        assert params['transferSize'] == params['blockSize'] == 65536
        assert params['segmentCount'] == 64 * 2**20 // 65536
        assert params['collective'] == (io == 'collective')
        assert result['xsizeMiB'] == result['numTasks'] * 64
        assert 'segments=1024 of 64k per task' in tc['method']
    [tc] = cases(run, 'IORCollective', api='HDF5', io='cb4m')
    assert 'hints are ROMIO' in tc['method']


def test_each_collective_buffer_limits(run):
    '''A cb case's aggregator (one per node) handles twice the largest
    buffer swept per collective call, so 4 MiB takes two rounds.'''
    [tc] = cases(run, 'IORCollective', api='MPIIO', io='cb4m')
    params, result = _geometry(tc)
    share = result['numTasks'] * params['transferSize']
    assert share >= 2 * 4 * 2**20 and share // 2 < 2 * 4 * 2**20
    assert params['blockSize'] == params['transferSize']
    assert params['segmentCount'] * params['blockSize'] == 64 * 2**20


def test_mdtest_rates(run):
    for directory in ('unique', 'shared'):
        [tc] = cases(run, 'MDTestBench', directory=directory)
        for op in ('create', 'stat', 'read', 'remove'):
            assert perf(tc, f'{op}_rate') > 0


def test_scratch_is_left_clean(run):
    scratch = os.path.join(os.path.dirname(run.out), 'scratch')
    assert not [e for e in os.listdir(scratch) if e.startswith('iogap.')]


def wrapper(tmp_path, body):
    '''A view whose ``ior`` runs the real one with ``body`` in between.'''
    view = tmp_path / 'view'
    (view / 'bin').mkdir(parents=True)
    real = os.path.join(built_view() or '', 'bin', 'ior')
    path = view / 'bin' / 'ior'
    path.write_text(f'#!/bin/bash\n{body}\nexec {real} "${{args[@]}}"\n')
    path.chmod(0o755)
    return {'IOGAP_SPACK_VIEW': str(view)}


def test_verification_errors_fail_although_ior_exits_0(tmp_path):
    '''Reads with the wrong seed: IOR exits 0 (2 x errors mod 256) but says
    what it found.'''
    env = wrapper(tmp_path, '''args=(); prev=; read=0
for a in "$@"; do [ "$a" = -r ] && read=1; done
for a in "$@"; do
  [ "$prev" = -G ] && [ $read = 1 ] && a=$((a + 1))
  args+=("$a"); prev=$a
done''')
    run = run_reframe(tmp_path, *ONE, '-S', 'block_size=64m', '-r',
                      env=env)
    [tc] = run.testcases()
    assert tc['result'] == 'fail'
    assert tc['job_exitcode'] == 0
    assert 'ior step read: WARNING: Incorrect data on read' in \
        tc['fail_reason']


def test_a_read_that_did_not_run_fails(tmp_path):
    env = wrapper(tmp_path, 'args=("$@")\n'
                  'for a in "$@"; do [ "$a" = -r ] && exit 0; done')
    run = run_reframe(tmp_path, *ONE, '-r', env=env)
    [tc] = run.testcases()
    assert tc['result'] == 'fail'
    assert 'no IOR result for read' in tc['fail_reason']


def test_bad_sizes_are_one_line(tmp_path):
    run = run_reframe(tmp_path, *ONE, '-S', 'block_size=10m', '-S',
                      'transfer_size=3m', '-r')
    [tc] = run.testcases()
    assert tc['fail_phase'] == 'setup'
    assert tc['fail_reason'] == ('iogap error: IOR block size 10m is not a '
                                 'multiple of the transfer size 3m')


def test_a_view_without_ior_skips_naming_it(tmp_path):
    (tmp_path / 'empty').mkdir()
    path = [d for d in os.environ['PATH'].split(os.pathsep)
            if not os.path.exists(os.path.join(d, 'ior'))]
    run = run_reframe(tmp_path, *ONE, '-r',
                      env={'IOGAP_SPACK_VIEW': str(tmp_path / 'empty'),
                           'PATH': os.pathsep.join(path)})
    [tc] = run.testcases()
    assert tc['result'] == 'skip'
    assert f'ior not found: not in the Spack view {tmp_path}/empty' in \
        run.skip_reason(tc['display_name'])
