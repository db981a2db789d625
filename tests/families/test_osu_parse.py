'''OSU output parsing, placement checks and binary lookup, on real captures
of OSU 5.9, 7.2 and 7.4 (tests/data/osu/SOURCES.md says how each was
made).'''

import os
import stat
from types import SimpleNamespace

import pytest
from reframe.core.exceptions import SanityError, SkipTestError

from iogap.core import placement, steps
from iogap.core.variants import check_binding
from iogap.osu import parse as osuparse
from iogap.osu.base import supports_types
from iogap.core.provider import find_tool

LAT = 'Latency (us)'


def text(data, name):
    with open(data('osu', name)) as fp:
        return fp.read()


@pytest.mark.parametrize('name,version,sizes,max_size,validated,columns', [
    ('osu5_latency_m0-4096_i100_x10.txt', '5.9', (0, 1), 4096, False, [LAT]),
    ('osu7_latency_m0-4096_i100_x10.txt', '7.2', (1, 2), 4096, False, [LAT]),
    ('osu5_latency_m0-4096_i100_x10_validate.txt', '5.9', (0, 1), 4096, True,
     [LAT, 'Validation']),
    ('osu7_latency_m0-4096_i100_x10_validate.txt', '7.2', (1, 2), 4096, True,
     [LAT, 'Validation']),
    ('osu5_bw.txt', '5.9', (1, 2), 2**22, False, ['Bandwidth (MB/s)']),
    ('osu7_bw.txt', '7.2', (1, 2), 2**22, False, ['Bandwidth (MB/s)']),
    ('osu7_bibw.txt', '7.2', (1, 2), 2**22, False, ['Bandwidth (MB/s)']),
    ('osu5_alltoall_np2_validate.txt', '5.9', (1, 2), 2**20, True,
     ['Avg Latency(us)', 'Validation']),
    ('osu7_alltoall_np2_validate.txt', '7.2', (1, 2), 2**20, True,
     ['Avg Latency(us)', 'Validation']),
    ('osu5_allreduce_np2.txt', '5.9', (4, 8), 2**20, False,
     ['Avg Latency(us)']),
    ('osu7_allreduce_np2_full_validate.txt', '7.2', (1, 2), 4096, True,
     ['Avg Latency(us)', 'Min Latency(us)', 'Max Latency(us)', 'Iterations',
      'Validation']),
])
def test_complete_tables_of_both_versions(data, name, version, sizes,
                                          max_size, validated, columns):
    table = osuparse.checked_table(text(data, name), name, max_size,
                                   validated)
    assert table.version == version
    assert table.columns == columns
    assert tuple(table.sizes()[:2]) == sizes
    assert table.sizes()[-1] == max_size
    assert table.datatype == ('MPI_CHAR' if version == '7.2' else '')


def test_values_come_from_the_named_column(data):
    table = osuparse.checked_table(
        text(data, 'osu7_allreduce_np2_full_validate.txt'), 'x', 4096, True)
    assert table.values('Latency')[1] == 0.23       # Avg, not Min or Max
    assert table.values('Min')[1] == 0.21
    five = osuparse.parse_tables(text(data, 'osu5_latency_m0-4096_i100_x10'
                                            '.txt'))[0]
    assert five.values('Latency')[0] == 0.23        # 5.x prints size 0
    bw = osuparse.parse_tables(text(data, 'osu5_bw.txt'))[0].values(
        'Bandwidth')
    assert max(bw, key=bw.get) == 2048 and bw[2048] == 16925.31


@pytest.mark.parametrize('name,max_size', [
    ('osu5_latency_with_mpi_warning_run2.txt', 4096),    # warning before
    ('osu7_latency_with_mpi_warning.txt', 2**22),        # + ORTE_ERROR_LOG
])
def test_mpi_warnings_merged_into_stdout_are_ignored(data, name, max_size):
    table = osuparse.checked_table(text(data, name), name, max_size, False)
    assert table.sizes()[0] in (0, 1) and table.sizes()[-1] == max_size


def test_warning_between_rows_is_ignored_but_a_split_row_is_caught(data):
    warning = text(data, 'osu5_latency_with_mpi_warning_run2.txt')
    banner = warning[:warning.index('# OSU')]
    lines = text(data, 'osu5_latency_m0-4096_i100_x10.txt').splitlines(True)
    between = ''.join(lines[:8] + [banner] + lines[8:])
    table = osuparse.checked_table(between, 'x', 4096, False)
    assert len(table.rows) == 14

    # The warning lands inside a row: that size is lost, not misread
    row = lines[8]
    split = ''.join(lines[:8] + [row[:12], banner, row[12:]] + lines[9:])
    with pytest.raises(SanityError, match=r'jumps from 16 B to 64 B'):
        osuparse.checked_table(split, 'x', 4096, False)

    # A line break inside the figure: "32  0" is not a latency of 0 us
    cut = row.replace('.', '\n.', 1)
    assert cut.startswith('32 ')
    broken = ''.join(lines[:8] + [cut] + lines[9:])
    with pytest.raises(SanityError, match=r'jumps from 16 B to 64 B'):
        osuparse.checked_table(broken, 'x', 4096, False)


@pytest.mark.parametrize('name,stop,max_size', [
    ('osu7_latency_killed_timeout_KILL_4s.txt', 32768, 2**22),
    ('osu5_bw_killed_timeout_KILL_3s.txt', 8192, 2**22),
])
def test_a_table_cut_short_fails_clearly(data, name, stop, max_size):
    with pytest.raises(SanityError, match=rf'osu: the table stops at {stop} '
                       rf'B, expected rows up to {max_size} B: the run was '
                       r'cut short'):
        osuparse.checked_table(text(data, name), 'osu', max_size, False)


@pytest.mark.parametrize('name', [
    'osu7_latency_validate_FAIL_injected.txt',
    'osu5_alltoall_np2_validate_FAIL_injected.txt',
])
def test_a_validation_fail_row_fails(data, name):
    with pytest.raises(SanityError, match=r'OSU validation \(-c\) failed at '
                       r'1024 B: DATA VALIDATION ERROR'):
        osuparse.checked_table(text(data, name), 'osu', 4096, True)


def test_no_table_several_tables_or_no_validation_column_fail(data):
    with pytest.raises(SanityError, match='printed no result table'):
        osuparse.checked_table(text(data, 'osu7_latency_np3_error.err'),
                               'osu', 64, False)
    with pytest.raises(SanityError, match='printed 3 result tables'):
        osuparse.checked_table(text(data, 'osu7_latency_types_all.txt'),
                               'osu', 1024, False)
    with pytest.raises(SanityError, match='no Validation column'):
        osuparse.checked_table(text(data, 'osu7_latency_m0-4096_i100_x10.txt'),
                               'osu', 4096, True)


def test_job_output_splits_into_labelled_runs(data):
    job = ('iogap-rank: rank=0 host=n1 cpus=0 sockets=0\n'
           'iogap-step: run=validate ranks=2 nodes=1\n'
           + text(data, 'osu7_latency_m0-4096_i100_x10_validate.txt') +
           'iogap-step: run=measure ranks=2 nodes=1\n'
           + text(data, 'osu7_latency_m0-4096_i100_x10.txt'))
    runs = steps.parse(job)
    assert [s['run'] for s in runs] == ['validate', 'measure']
    assert runs[1].labels == {'run': 'measure', 'ranks': '2', 'nodes': '1'}
    assert 'Validation' not in runs[1].text and 'Pass' in runs[0].text


def test_osu74_allreduce_validates_in_float_not_in_char(data):
    '''OSU 7.4's default MPI_CHAR sums overflow; MPI_FLOAT validates, as
    OSU 5.x's only type did.'''
    with pytest.raises(SanityError, match=r'validation \(-c\) failed at 16 '
                       r'B: DATA VALIDATION ERROR'):
        osuparse.checked_table(
            text(data, 'osu74_allreduce_np2_validate_char_FAIL.txt'),
            'osu_allreduce', 65536, True)
    table = osuparse.checked_table(
        text(data, 'osu74_allreduce_np2_validate_float.txt'),
        'osu_allreduce', 65536, True)
    assert (table.version, table.datatype) == ('7.4', 'MPI_FLOAT')
    assert table.sizes()[0] == 4 and not table.failed_sizes()
    measured = osuparse.checked_table(
        text(data, 'osu74_allreduce_np2_float.txt'), 'osu', 65536, False)
    assert measured.values('Latency')[65536] > 0


def test_only_osu7_binaries_take_a_datatype(tmp_path):
    new, old = tmp_path / 'osu7', tmp_path / 'osu5'
    new.write_bytes(b'\x7fELF ... [all,mpi_char,mpi_int,mpi_float] ...')
    old.write_bytes(b'\x7fELF ... -c, --validation ...')
    assert supports_types(str(new)) and not supports_types(str(old))
    assert not supports_types(str(tmp_path / 'missing'))


@pytest.mark.parametrize('name,line', [
    ('osu7_latency_np3_error.err', 'This test requires exactly two processes'),
    ('osu7_latency_rank_sigkilled_3s.err', 'exited on signal 9 (Killed).'),
    ('osu7_latency_validate_FAIL_injected.err', 'a rank exited with code 1'),
])
def test_stderr_error_quotes_the_telling_line(data, name, line):
    assert osuparse.stderr_error(text(data, name)).endswith(line)


def ranks(*specs):
    return placement.parse(''.join(
        f'iogap-rank: rank={r} host={h} cpus={c} sockets={s}\n'
        for r, h, c, s in specs))


def test_placement_probe_lines_and_checks():
    same = ranks((1, 'n1', '1', '0'), (0, 'n1', '0', '0'))
    assert [r['rank'] for r in same] == [0, 1]
    assert placement.check(same, 2, 1, 'same') == '0@n1:0 1@n1:1'
    cross = ranks((0, 'n1', '0-15', '0'), (1, 'n1', '16-31', '1'))
    placement.check(cross, 2, 1, 'cross')
    placement.check(ranks((0, 'a', '0', '0'), (1, 'b', '0', '0')), 2, 2)

    with pytest.raises(SanityError, match='meant to run on one node but ran '
                       r'on 2 \(a, b\)'):
        placement.check(ranks((0, 'a', '0', '0'), (1, 'b', '0', '0')), 2, 1)
    with pytest.raises(SanityError, match='meant to run on 2 nodes but ran '
                       'on 1'):
        placement.check(same, 2, 2)
    with pytest.raises(SanityError, match='asked for ranks on cross socket'):
        placement.check(same, 2, 1, 'cross')
    unpinned = ranks((0, 'n1', '0-31', '0,1'), (1, 'n1', '0-31', '0,1'))
    with pytest.raises(SanityError, match='rank 0 may run on CPUs 0-31 '
                       r'\(sockets 0,1\): it is not pinned'):
        placement.check(unpinned, 2, 1, 'same')
    with pytest.raises(SanityError, match='reported 1 ranks, expected 2'):
        placement.check(same[:1], 2, 1)
    with pytest.raises(SanityError, match='unevenly'):
        placement.check(ranks((0, 'a', '0', '0'), (1, 'a', '1', '0'),
                             (2, 'b', '0', '0')), 3, 2)

    # One socket per node: the pair is on the same socket whatever the mask
    unknown = ranks((0, 'n1', '0-1', '?'), (1, 'n1', '0-1', '?'))
    placement.check(unknown, 2, 1, 'same', one_socket_node=True)


def test_check_binding_checks_every_rank():
    options = ['--cpu-bind=cores']
    assert check_binding('cores', ['0,32', '1,33'], 2, 64, options) == \
        '0,32 1,33'
    with pytest.raises(SanityError, match=r'but task 1 ran on CPUs 0-63 '
                       r'\(64 of 64\): no binding happened'):
        check_binding('cores', ['0,32', '0-63'], 2, 64, options)
    with pytest.raises(SanityError, match='bound tasks share CPUs'):
        check_binding('cores', ['0,32', '0,32'], 2, 64, options)
    with pytest.raises(SanityError, match='no affinity report'):
        check_binding('default', [], 2, 64, options)

    assert check_binding('default', ['0-63'], 2, 64, options) == '0-63'


class FakeEnv:
    '''The ToolStack's view of a built Spack environment.'''

    def __init__(self, externals):
        self.externals = externals

    def external(self, tool):
        return self.externals.get(tool)


def fake_test(view=None, scheduler='local', provider='spack-view',
              spack_env=None):
    return SimpleNamespace(
        tools=SimpleNamespace(view=view, provider=provider,
                              spack_env=spack_env),
        current_partition=SimpleNamespace(
            scheduler=SimpleNamespace(registered_name=scheduler)))


def install(root, subdir, name):
    path = root / subdir / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('#!/bin/sh\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


SUBDIRS = ('libexec/osu-micro-benchmarks/mpi/pt2pt', 'bin')


def test_provider_finds_osu_in_its_libexec_layout(tmp_path, monkeypatch):
    path = install(tmp_path / 'osu', SUBDIRS[0], 'osu_latency')
    (tmp_path / 'osu' / 'bin').mkdir()
    monkeypatch.setenv('PATH', f'{tmp_path}/osu/bin:{os.environ["PATH"]}')
    assert find_tool(fake_test(), 'osu_latency', SUBDIRS) == \
        (path, f'PATH:{path}')

    # An explicit prefix wins, and one that lacks the tool is a skip
    other = install(tmp_path / 'other', SUBDIRS[0], 'osu_latency')
    assert find_tool(fake_test(), 'osu_latency', SUBDIRS,
                     [str(tmp_path / 'other')])[0] == other
    with pytest.raises(SkipTestError, match=r'osu_latency \(OSU\) not found '
                       r'under the prefix /nonexistent'):
        find_tool(fake_test(), 'osu_latency', SUBDIRS, ['/nonexistent'],
                  what='OSU')

    # Spack views keep the layout; remotely the first sub-directory is used
    view = tmp_path / 'view'
    found = install(view, SUBDIRS[0], 'osu_latency')
    assert find_tool(fake_test(str(view)), 'osu_latency', SUBDIRS) == \
        (found, f'spack-view:{found}')
    # A view this host cannot see is trusted for a remote partition; one it
    # sees is checked (an OS tool is an external, not in the view)
    assert find_tool(fake_test('/remote/view', scheduler='slurm'), 'osu_bw',
                     SUBDIRS)[0] == f'/remote/view/{SUBDIRS[0]}/osu_bw'
    assert find_tool(fake_test(str(view), scheduler='slurm'), 'osu_latency',
                     SUBDIRS)[0] == found
    assert find_tool(fake_test(str(view), scheduler='slurm'), 'osu_bw',
                     SUBDIRS)[0] == 'osu_bw'


def test_os_tools_come_from_the_environment_externals(tmp_path):
    env = FakeEnv({'dd': ('/usr/bin/dd', 'coreutils@9.1')})
    assert find_tool(fake_test(str(tmp_path), spack_env=env), 'dd') == \
        ('/usr/bin/dd', 'spack-external:coreutils@9.1:/usr/bin/dd')


def test_a_missing_tool_is_a_skip_that_names_it(tmp_path, monkeypatch):
    monkeypatch.setenv('PATH', str(tmp_path))
    with pytest.raises(SkipTestError, match=r'^nope not found: no Spack view '
                       r'is built .*not on PATH'):
        find_tool(fake_test(), 'nope')
    with pytest.raises(SkipTestError, match=rf'^ior not found: not in the '
                       rf'Spack view {tmp_path}, not on PATH'):
        find_tool(fake_test(str(tmp_path)), 'ior')
