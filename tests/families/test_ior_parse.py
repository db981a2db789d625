'''IOR and mdtest parsing, sizes and the sweep, on output captured from real
IOR 4.0.0 runs (tests/data/ior, see PROVENANCE.md there).'''

import pytest
from reframe.core.exceptions import SanityError

from iogap.core.variants import size_bytes
from iogap.errors import IogapError
from iogap.pio import parse as iorparse
from iogap.pio.base import ppn_sweep
from iogap.site.profile import Part, _every_shipped_part

MiB = 2**20


def read(data, name):
    with open(data('ior', name)) as fp:
        return fp.read()


def labelled(data, *steps):
    '''Captured outputs as one job's stdout, each after its step label.'''
    return ''.join(f'iogap-step: step={step}\n{read(data, name)}'
                   for step, name in steps)


def test_summary_file_gives_max_mean_min_iops_and_time(data):
    doc = iorparse.load_summary(data('ior', 'ior_posix_ssf_summaryfile.json'),
                                'write_n1_p2')
    write = iorparse.phase(doc, 'write', 'write_n1_p2', 2, 2, 128 * MiB)
    assert write['bw'] == pytest.approx(701.1277)
    assert (write['bw_max'], write['bw_min']) == (955.1317, 447.1238)
    assert write['iops'] == pytest.approx(701.1277)
    assert write['time'] == pytest.approx(0.2101)
    assert write['samples'] == [447.1238, 955.1317]
    read_ = iorparse.phase(doc, 'read', 'read_n1_p2', 2, 2, 128 * MiB)
    assert read_['first']['bwMiB'] == pytest.approx(3200.2320)
    assert read_['bw'] == pytest.approx(3256.3888)


def test_collective_mpiio_summary(data):
    doc = iorparse.load_summary(
        data('ior', 'ior_mpiio_collective_hints_summaryfile.json'), 'x')
    assert doc['tests'][0]['Options']['type'] == 'collective'
    assert iorparse.phase(doc, 'write', 'x', 2, 1, 128 * MiB)['bw'] > 0


@pytest.mark.parametrize('tasks,iters,nbytes,match', [
    (4, 2, 128 * MiB, 'ran 2 tasks, expected 4'),
    (2, 3, 128 * MiB, 'reported 2 write iterations, expected 3'),
    (2, 2, 256 * MiB, 'moved 128.0 MiB per write, expected 256 MiB'),
])
def test_result_that_does_not_match_the_plan_fails(data, tasks, iters,
                                                   nbytes, match):
    doc = iorparse.load_summary(data('ior', 'ior_posix_ssf_summaryfile.json'),
                                'write_n1_p2')
    with pytest.raises(SanityError, match=match):
        iorparse.phase(doc, 'write', 'write_n1_p2', tasks, iters, nbytes)


def test_missing_access_fails(data):
    doc = iorparse.load_summary(
        data('ior', 'ior_mpiio_collective_hints_summaryfile.json'), 'x')
    doc['summary'] = [s for s in doc['summary'] if s['operation'] != 'read']
    with pytest.raises(SanityError, match='has no read summary'):
        iorparse.phase(doc, 'read', 'read_x', 2, 1, 128 * MiB)


def test_killed_run_is_truncated_json(data):
    with pytest.raises(SanityError, match='read_n1_p2 is truncated'):
        iorparse.load_summary(
            data('ior', 'ior_killed_mpirun_sigkill_midrun.json.txt'),
            'read_n1_p2')


def test_warnings_on_stdout_break_json_so_we_use_a_summary_file(data):
    with pytest.raises(SanityError, match='not JSON'):
        iorparse.load_summary(
            data('ior', 'ior_verify_corrupt_read_seed111.json.txt'), 'r')


def test_missing_result_file(tmp_path):
    with pytest.raises(SanityError, match='no IOR result for read_n4_p8'):
        iorparse.load_summary(str(tmp_path / 'none.json'), 'read_n4_p8')


def test_json_without_summary(tmp_path):
    path = tmp_path / 'x.json'
    path.write_text('{"Version": "4.0.0", "tests": []}')
    with pytest.raises(SanityError, match='has no summary'):
        iorparse.load_summary(str(path), 'write_n1_p1')


def test_128_errors_exit_0_is_still_caught(data):
    '''IOR exits 2 x errors mod 256: this run exited 0.'''
    text = labelled(data, ('write_n1_p2', 'ior_posix_ssf_summaryfile_json'
                           '.stdout.txt'),
                    ('read_n1_p2', 'ior_verify_fail_read_seed222_128errors'
                     '_exit0.txt'))
    [(step, line)] = iorparse.problems(text)
    assert step == 'read_n1_p2'
    assert line == 'WARNING: Incorrect data on read (128 errors found).'


@pytest.mark.parametrize('name,line', [
    ('ior_verify_corrupt_read_seed111.txt',
     'WARNING: Incorrect data on read (1 errors found).'),
    ('ior_verify_fail_read_seed222_warningAsErrors.txt',
     'ERROR: Incorrect data on read (32 errors found).'),
    ('ior_error_nonexistent_dir.txt', 'ERROR: open64('),
    ('ior_error_nonexistent_dir_hdf5.txt', 'ERROR in aiori-HDF5.c'),
    ('ior_error_odirect_unaligned_xfer.txt', 'WARNING: write(17,'),
    ('mdtest_error_nonexistent_dir.txt', 'ERROR: open64('),
])
def test_problems_in_real_failures(data, name, line):
    found = iorparse.problems(labelled(data, ('step1', name)))
    assert found and found[0][0] == 'step1'
    assert found[0][1].startswith(line)


@pytest.mark.parametrize('name', ['ior_posix_ssf_summaryfile_json.stdout.txt',
                                  'mdtest_files_unique_dir.txt',
                                  'mdtest_files_write_read_verify_reps3.txt'])
def test_clean_runs_have_no_problems(data, name):
    assert iorparse.problems(read(data, name)) == []


def test_mdtest_summary_rates(data):
    runs = iorparse.mdtest_runs(labelled(
        data, ('mdtest_n1_p2', 'mdtest_files_unique_dir.txt'),
        ('mdtest_n1_p1', 'mdtest_files_write_read_verify_reps3.txt')))
    assert runs['mdtest_n1_p2'] == {
        'tasks': 2, 'iterations': 1, 'create': 16249.592,
        'stat': 29726.281, 'read': 50301.970, 'remove': 29381.650}
    # Mean of 3 iterations; the SUMMARY time table (-P) is not a rate
    assert runs['mdtest_n1_p1']['create'] == 261.475
    assert runs['mdtest_n1_p1']['remove'] == 425.833


def test_truncated_mdtest_has_no_rates(data):
    text = read(data, 'mdtest_files_shared_dir.txt')
    cut = text[:text.index('   File stat')]
    run = iorparse.mdtest_runs('iogap-step: step=mdtest_n1_p2\n' + cut)
    assert 'create' in run['mdtest_n1_p2']
    assert 'stat' not in run['mdtest_n1_p2']


@pytest.mark.parametrize('text,nbytes', [('1m', MiB), ('1g', 2**30),
                                         ('4K', 4096), ('1048576', MiB)])
def test_sizes(text, nbytes):
    assert size_bytes(text) == nbytes


@pytest.mark.parametrize('text', ['1.5m', 'm', '1q', '', '0'])
def test_bad_size_is_one_line(text):
    with pytest.raises(IogapError, match='is not a size'):
        size_bytes(text, 'IOR block size')


def test_direct_needs_4k_transfers():
    with pytest.raises(IogapError, match='multiple of 4 KiB, got 1000'):
        iorparse.check_sizes('1000000', '1000', direct=True)
    assert iorparse.check_sizes('1000000', '1000', direct=False)[0] == 10**6


def test_block_must_be_a_multiple_of_transfer():
    with pytest.raises(IogapError, match='10m is not a multiple of .* 3m'):
        iorparse.check_sizes('10m', '3m', direct=False)


@pytest.mark.parametrize('cores,limit,sweep', [
    (68, None, [1, 2, 4, 8, 16, 32, 64, 68]),
    (64, None, [1, 2, 4, 8, 16, 32, 64]),
    (32, None, [1, 2, 4, 8, 16, 32]),
    (68, 16, [1, 2, 4, 8, 16]),
    (2, 4, [1, 2]),
    (1, None, [1]),
])
def test_procs_per_node_sweep(cores, limit, sweep):
    part = Part('s:p', [], {'ior_max_ppn': limit, 'ior_ppn_points': []},
                cores)
    assert ppn_sweep(part) == sweep
    assert ppn_sweep(part, core_spec=cores - 1) == [1]


@pytest.mark.parametrize('cores,limit,sweep', [
    (68, None, [1, 2, 4, 8, 16, 32, 48, 64, 68]),
    (64, None, [1, 2, 4, 8, 16, 32, 48, 64]),
    (68, 32, [1, 2, 4, 8, 16, 32]),      # 48 is past the cap: not run
    (32, None, [1, 2, 4, 8, 16, 32]),    # nor past the cores (Haswell)
])
def test_the_studys_points_between_powers_of_two(cores, limit, sweep):
    part = Part('s:p', [], {'ior_max_ppn': limit, 'ior_ppn_points': [48]},
                cores)
    assert ppn_sweep(part) == sweep


def test_cori_sweeps_48_processes_on_knl_only():
    '''Read 3x drops at 48-64 cores per node on KNL (CUG17 slide 30 "Read
    Multiple Times"): the point is generated on KNL, where the study
    measured it.'''
    parts = {p.fullname: p for p in _every_shipped_part()}
    knl, haswell = parts['cori:knl'], parts['cori:haswell']
    assert 48 in ppn_sweep(knl) and 48 in ppn_sweep(knl, core_spec=4)
    assert 48 not in ppn_sweep(haswell)


def test_only_the_studys_case_runs_at_its_points():
    '''48 processes per node on KNL: the FPP POSIX buffered read the study
    measured there, not every layout, API and mode, nor mdtest.'''
    from iogap.core.cases import runs_on
    from iogap.pio.iorbench import IORBench
    from iogap.pio.mdtest import MDTestBench
    knl = {p.fullname: p for p in _every_shipped_part()}['cori:knl']
    point = dict(num_nodes=1, procs_per_node=48, core_spec=0,
                 cpu_bind='default', darshan='off')
    study = dict(point, layout='fpp', api='POSIX', mode='buffered')
    assert runs_on(IORBench, study, knl)
    assert runs_on(IORBench, dict(study, procs_per_node=64), knl)
    for other in (dict(layout='ssf'), dict(api='MPIIO'), dict(mode='direct')):
        assert not runs_on(IORBench, dict(study, **other), knl)
    assert not runs_on(MDTestBench, dict(point, directory='unique'), knl)
    assert runs_on(MDTestBench, dict(point, directory='unique',
                                     procs_per_node=64), knl)
