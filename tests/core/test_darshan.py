'''Darshan: logs read with pydarshan become figures; the bytes Darshan saw
must be the bytes the tool moved; a truncated log fails naming it; without
darshan-runtime the variant is not generated.'''

import os
from types import SimpleNamespace

import pytest
from reframe.core.exceptions import SanityError

from conftest import cases, needs_tools, perf, run_reframe
from iogap.core import darshan

MiB = 2**20


def log(data, name):
    return data('darshan', name)


def test_ior_mpiio_logs_give_bytes_per_module_ops_and_time(data):
    # The benchmark's files only: not IOR's JSON summary in the stage dir
    write = darshan.read_log(log(data, 'ior_mpiio_ssf_np2_write.darshan'),
                             under='/var/tmp/iogap-root')
    figures = darshan.figures_of(write)
    # 2 ranks x 64 MiB x 3 iterations, written and read back (-W)
    assert figures['darshan_mpiio_written_bytes'] == 384 * MiB
    assert figures['darshan_mpiio_read_bytes'] == 384 * MiB
    assert figures['darshan_posix_written_bytes'] == 384 * MiB
    assert figures['darshan_mpiio_ops'] > 0 and \
        figures['darshan_mpiio_io_time'] > 0
    assert figures['darshan_posix_access_size'] == MiB
    # The shared file, and the two lock-test files ROMIO made beside it
    assert figures['darshan_files'] == 3


def test_dd_in_non_mpi_mode_and_mdtest(data):
    dd = darshan.figures_of(darshan.read_log(log(data,
                                                 'dd_direct_write.darshan')))
    assert dd['darshan_posix_written_bytes'] == 256 * MiB
    assert dd['darshan_posix_read_bytes'] == 0     # /dev/zero is not counted
    assert dd['darshan_posix_sequential_share'] > 99
    md = darshan.figures_of(darshan.read_log(
        log(data, 'mdtest_unique_np2.darshan'), under='/var/tmp/iogap-root'))
    assert md['darshan_files'] == 2 * 200 * 3
    assert md['darshan_posix_written_bytes'] == 2 * 200 * 3 * 4096
    assert md['darshan_posix_access_size'] == 10 * 1024


def test_several_logs_add_up(data):
    counts = {}
    for name in ('ior_mpiio_ssf_np2_write.darshan',
                 'ior_mpiio_ssf_np2_read.darshan'):
        darshan._add(counts, darshan.read_log(log(data, name)))
    figures = darshan.figures_of(counts)
    assert figures['darshan_mpiio_read_bytes'] == (384 + 384) * MiB
    assert 0 <= figures['darshan_posix_consecutive_share'] <= 100


def fake_case(data, stagedir):
    os.makedirs(os.path.join(stagedir, 'darshan'), exist_ok=True)
    case = SimpleNamespace(darshan='on', stagedir=str(stagedir), note=print,
                           current_partition=SimpleNamespace(extras={
                               'scratch_root': '/var/tmp/iogap-root'}))
    return darshan.Darshan(case)


def test_bytes_the_tool_did_not_move_fail_with_both_numbers(data, tmp_path):
    case = fake_case(data, tmp_path)
    os.symlink(log(data, 'dd_direct_write.darshan'),
               tmp_path / 'darshan' / 'write-1.darshan')
    expected = {'write-1': ('POSIX', 0, 256 * MiB, 0)}
    figures = case.figures(expected)
    assert figures['darshan_posix_written_bytes'] == (256 * MiB, 'B')
    with pytest.raises(SanityError, match=r'Darshan saw 268435456 bytes '
                       r'written by POSIX in step write-1, the tool moved '
                       r'536870912'):
        case.figures({'write-1': ('POSIX', 0, 512 * MiB, 0)})


def test_a_truncated_or_missing_log_fails_naming_it(data, tmp_path):
    path = log(data, 'truncated.darshan')
    with pytest.raises(SanityError, match=rf'Darshan log {path} is '
                       r'unreadable: Failed to open file'):
        darshan.read_log(path)
    with pytest.raises(SanityError, match='no Darshan log .* ran without '
                       'darshan-runtime'):
        darshan.read_log(str(tmp_path / 'none.darshan'))


@pytest.mark.reframe
@needs_tools
def test_instrumented_cases_pass_and_keep_their_logs(tmp_path):
    run = run_reframe(tmp_path, '-n', 'DDSingleStream.*%mode=direct|'
                      'IORBench.*procs_per_node=2.*%layout=fpp%api=POSIX'
                      '%mode=direct', '-S', 'DDSingleStream.count=64', '-r')
    on = [tc for tc in run.testcases() if tc.get('darshan') == 'on']
    assert len(on) == 2, run.stdout
    for tc in on:
        assert tc['result'] == 'pass', tc['fail_reason']
        assert perf(tc, 'darshan_posix_written_bytes') > 0
        assert perf(tc, 'darshan_files') >= 1
        assert any(f.endswith('.darshan') for f in os.listdir(
            tc['outputdir']))
    [dd] = cases(run, 'DDSingleStream', darshan='on')
    assert perf(dd, 'darshan_posix_written_bytes') == 3 * 64 * MiB


@pytest.mark.reframe
def test_without_darshan_runtime_the_variant_is_not_generated(tmp_path):
    (tmp_path / 'empty').mkdir()
    run = run_reframe(tmp_path, '-l', env={'IOGAP_SPACK_VIEW':
                                           str(tmp_path / 'empty')})
    assert run.returncode == 0
    assert '%darshan=on' not in run.stdout and '%darshan=off' in run.stdout
