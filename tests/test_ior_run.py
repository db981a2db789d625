'''Real ReFrame runs of the IOR and mdtest family on the generic profile.

IOR-dependent tests skip when ``ior`` is not on PATH; the test that the
checks skip without IOR runs either way.
'''

import os
import re
import shutil
import stat

import pytest

from conftest import run_reframe

pytestmark = pytest.mark.reframe

IOR = shutil.which('ior')
MDTEST = shutil.which('mdtest')
needs_ior = pytest.mark.skipif(IOR is None or MDTEST is None,
                               reason='ior/mdtest not on PATH')

#: One case of each kind, default binding (ReFrame drops the spaces)
SELECTION = [
    'IORBench%core_spec=0%cpu_bind=default%striping=default%layout=fpp'
    '%api=POSIX',
    'IORBench%core_spec=0%cpu_bind=default%striping=default%layout=ssf'
    '%api=(MPIIO|HDF5)%mode=(buffered|direct)',
    'IORCollective%core_spec=0%cpu_bind=default%striping=default%api=MPIIO',
    'MDTestBench%core_spec=0%cpu_bind=default',
]
ONE_CASE = ('IORBench%core_spec=0%cpu_bind=default%striping=default'
            '%layout=ssf%api=POSIX%mode=buffered')


def names(*patterns):
    return [arg for p in patterns for arg in ('-n', p)]


@pytest.fixture(scope='module')
def run(tmp_path_factory):
    if IOR is None or MDTEST is None:
        pytest.skip('ior/mdtest not on PATH')

    return run_reframe(tmp_path_factory.mktemp('ior'), *names(*SELECTION),
                       '-r')


def skip_reason(run, tc):
    '''The reason ReFrame printed for a skipped case (the report has none).'''
    for line in run.stdout.splitlines():
        if m := re.match(rf'^\[\s*SKIP\s*\] \(\s*\d+/\d+\) .* '
                         rf'/{tc["hashcode"]} @\S+ \[(.*)\]$', line):
            return m.group(1)

    return ''


def perf(tc, var):
    [value] = [v for k, v in tc['perfvalues'].items()
               if k.endswith(f':{var}')]
    return value


def case(run, name, **params):
    found = [tc for tc in run.testcases() if tc['name'].startswith(name) and
             all(tc[k] == v for k, v in params.items())]
    assert len(found) == 1, run.stdout
    return found[0]


@needs_ior
def test_every_case_passes_or_skips_with_the_reason(run):
    cases = run.testcases()
    assert len(cases) == 10, run.stdout
    for tc in cases:
        if tc['result'] == 'skip':
            reason = skip_reason(run, tc)
            assert tc['mode'] == 'direct', reason
            assert 'O_DIRECT' in reason or 'direct I/O' in reason, reason
        else:
            assert tc['result'] == 'pass', tc['fail_reason']

    for api in ('MPIIO', 'HDF5'):
        tc = case(run, 'IORBench', api=api, mode='direct')
        assert tc['result'] == 'skip'
        assert 'IOR 4.0.0 silently ignores --posix.odirect' in \
            skip_reason(run, tc)


@needs_ior
def test_sweep_reports_every_point_and_statistic(run):
    tc = case(run, 'IORBench', api='POSIX', layout='fpp', mode='buffered')
    for point in ('n1_p1', 'n1_p2'):
        for var in ('write_bw', 'write_bw_max', 'write_bw_min', 'read_3x_bw',
                    'read_once_bw'):
            value, ref, lower, upper, unit = perf(tc, f'{var}_{point}')[:5]
            assert value > 0 and unit == 'MiB/s'
        assert perf(tc, f'write_iops_{point}')[4] == 'ops/s'
        assert perf(tc, f'read_once_time_{point}')[4] == 's'
        write = perf(tc, f'write_bw_{point}')[0]
        assert (perf(tc, f'write_bw_min_{point}')[0] <= write <=
                perf(tc, f'write_bw_max_{point}')[0])


@needs_ior
def test_page_cache_is_visible_and_method_logged(run):
    '''Buffered re-reads come from memory; the first read does not.'''
    tc = case(run, 'IORBench', api='POSIX', layout='fpp', mode='buffered')
    assert perf(tc, 'read_3x_bw_n1_p2')[0] > perf(tc, 'read_once_bw_n1_p2')[0]
    assert 'eviction' in tc['method'] and 'ppn=1,2' in tc['method']
    assert tc['tool_provider'] == f'PATH:{IOR}'
    direct = case(run, 'IORBench', api='POSIX', layout='fpp', mode='direct')
    if direct['result'] == 'pass':
        assert 'O_DIRECT' in direct['method']


@needs_ior
def test_json_summaries_are_kept(run):
    tc = case(run, 'IORBench', api='HDF5', mode='buffered')
    kept = sorted(os.listdir(tc['outputdir']))
    assert 'ior_n1_p2_read.json' in kept and 'ior_n1_p1_write.json' in kept


@needs_ior
def test_collective_configurations(run):
    tc = case(run, 'IORCollective', api='MPIIO')
    assert tc['result'] == 'pass', tc['fail_reason']
    for config in ('independent', 'collective', 'cb4m'):
        assert perf(tc, f'write_bw_{config}')[0] > 0
        assert perf(tc, f'read_once_bw_{config}')[0] > 0


@needs_ior
def test_mdtest_rates(run):
    for directory in ('unique', 'shared'):
        tc = case(run, 'MDTestBench', directory=directory)
        for op in ('create', 'stat', 'read', 'remove'):
            value, unit = perf(tc, f'{op}_rate_n1_p2')[0:5:4]
            assert value > 0 and unit == 'ops/s'


@needs_ior
def test_scratch_is_left_clean(run):
    assert os.listdir(os.path.join(os.path.dirname(run.out), 'scratch')) == []


def wrapper(tmp_path, body):
    '''An ``ior`` on PATH that runs the real one with ``body`` in between.'''
    bindir = tmp_path / 'bin'
    bindir.mkdir()
    path = bindir / 'ior'
    path.write_text(f'#!/bin/bash\n{body}\nexec {IOR} "${{args[@]}}"\n')
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return {'PATH': f'{bindir}:{os.environ["PATH"]}'}


@needs_ior
def test_verification_errors_fail_although_ior_exits_0(tmp_path):
    '''Reads with the wrong seed: 2 tasks x 64 bad transfers x 3 passes,
    and IOR exits with 2 x errors mod 256 = 0.'''
    env = wrapper(tmp_path, '''args=(); prev=; read=0
for a in "$@"; do [ "$a" = -r ] && read=1; done
for a in "$@"; do
  [ "$prev" = -G ] && [ $read = 1 ] && a=$((a + 1))
  args+=("$a"); prev=$a
done''')
    run = run_reframe(tmp_path, '-n', ONE_CASE, '-S', 'procs_per_node=2',
                      '-S', 'block_size=64m', '-r', env=env)
    [tc] = run.testcases()
    assert tc['result'] == 'fail'
    assert tc['job_exitcode'] == 0      # IOR said nothing was wrong
    assert ('ior step read_n1_p2: WARNING: Incorrect data on read (128 '
            'errors found)') in tc['fail_reason']


@needs_ior
def test_missing_result_fails(tmp_path):
    '''A read step that exits 0 without running leaves no result.'''
    env = wrapper(tmp_path, 'args=("$@")\n'
                  'for a in "$@"; do [ "$a" = -r ] && exit 0; done')
    run = run_reframe(tmp_path, '-n', ONE_CASE, '-S', 'procs_per_node=1',
                      '-r', env=env)
    [tc] = run.testcases()
    assert tc['result'] == 'fail'
    assert 'no IOR result for read_n1_p1' in tc['fail_reason']


def test_bad_sizes_are_one_line_before_any_job(tmp_path):
    run = run_reframe(tmp_path, '-n', ONE_CASE, '-S', 'block_size=10m',
                      '-S', 'transfer_size=3m', '-r')
    if not run.testcases():
        pytest.skip('no MPI here: the IOR checks are not generated')

    [tc] = run.testcases()
    assert tc['fail_phase'] == 'setup'
    assert tc['fail_reason'] == ('iogap error: IOR block size 10m is not a '
                                 'multiple of the transfer size 3m')


def test_without_ior_every_check_skips_naming_it(tmp_path):
    path = [d for d in os.environ['PATH'].split(os.pathsep)
            if not (os.path.exists(os.path.join(d, 'ior')) or
                    os.path.exists(os.path.join(d, 'mdtest')))]
    run = run_reframe(tmp_path, '-n', '^(IOR|MDTest)', '-r',
                      env={'PATH': os.pathsep.join(path)})
    cases = run.testcases()
    if not cases:
        pytest.skip('no MPI here: the IOR checks are not generated')

    for tc in cases:
        assert tc['result'] == 'skip', tc['fail_reason']
        reason = skip_reason(run, tc)
        tool = 'mdtest' if tc['name'].startswith('MDTest') else 'ior'
        assert f'{tool} not found' in reason or 'IOR 4.0.0' in reason, reason
