'''dd parsing, sizes and the harness's plausibility checks, on the job
output of real generic runs (tests/data/dd/SOURCES.md).'''

import pytest
from reframe.core.exceptions import SanityError

from iogap.core import placement, steps
from iogap.dd.stream import block_bytes, dd_record
from iogap.errors import IogapError

MiB = 2**20


def read(data, name):
    with open(data('dd', name)) as fp:
        return fp.read()


@pytest.mark.parametrize('mode', ['buffered', 'dsync', 'direct'])
def test_real_runs_split_into_timed_steps(data, mode):
    text = read(data, f'{mode}_3reps.out')
    found = steps.parse(text)
    assert [(s['op'], s['rep']) for s in found] == [
        (op, str(rep)) for rep in (1, 2, 3)
        for op in ('write', 'read1', 'read2', 'read3')]
    for step in found:
        nbytes, seconds = dd_record(step)
        assert nbytes == 256 * MiB and seconds > 0
        steps.check_clock(seconds, step.seconds, step['op'])
    assert all(s.disk == (256 * MiB, 256 * MiB)
               for s in found if s['op'] == 'write')
    [rank] = placement.parse(text)
    assert rank['rank'] == 0 and rank['cpus'] == '0'
    assert placement.job_cpus(text) == '0-1'


def test_bandwidth_uses_bytes_and_seconds_not_the_rate_string():
    [step] = steps.parse('iogap-step: op=write rep=1\n134217728 bytes '
                         '(134 MB, 128 MiB) copied, 0.766184 s, 175 MB/s\n')
    assert dd_record(step) == (134217728, pytest.approx(0.766184))


def test_old_coreutils_format_and_exponent_seconds():
    [step] = steps.parse('iogap-step: op=read1 rep=1\n'
                         '4096 bytes (4.1 kB) copied, 3.7e-05 s, 111 MB/s\n')
    assert dd_record(step)[1] == pytest.approx(3.7e-05)


def test_a_failed_write_moved_nothing(data):
    [step] = steps.parse('iogap-step: op=write rep=1\n' +
                         read(data, 'enospc.stderr'))
    assert dd_record(step)[0] == 0
    assert steps.parse('1048576 bytes (1.0 MB) copied, 0.1 s\n') == []


@pytest.mark.parametrize('claimed,wall', [
    (1e-9, 0.5),       # the 4 PB/s dd: its own clock says it took no time
    (0.02, 0.5),       # 25 GB/s claimed for a 0.5 s, 512 MiB step
    (0.9, 0.5),        # longer than the step the harness timed
])
def test_a_figure_the_harness_clock_contradicts_fails(claimed, wall):
    with pytest.raises(SanityError, match=rf'reports {claimed:.6f} s but the '
                       rf'step took {wall:.6f} s .* not plausible'):
        steps.check_clock(claimed, wall, 'dd write')


def test_startup_is_allowed_on_tiny_steps_and_launches_skip_the_floor():
    steps.check_clock(0.002, 0.04, 'dd read')
    steps.check_clock(0.039, 0.093, 'dd read on a loaded node')
    steps.check_clock(0.01, 2.0, 'IOR write', lower=False)
    with pytest.raises(SanityError, match='no time'):
        steps.check_clock(0.1, None, 'dd')


def test_bytes_on_disk_must_be_what_was_written():
    [step] = steps.parse('iogap-step: op=write rep=1\n'
                         'iogap-bytes: length=4096 allocated=0\n')
    steps.check_disk(step, 4096, 'dd write')     # compressed: allocation ok
    with pytest.raises(SanityError, match='8192 bytes were written but the '
                       'files hold 4096 bytes'):
        steps.check_disk(step, 8192, 'dd write')
    steps.check_disk(step, 4000, 'HDF5 write', slack=100)


def test_a_job_that_refused_o_direct_says_why():
    assert steps.skip_reason('x\niogap-skip: O_DIRECT is refused on tmpfs '
                             'under /x: Invalid argument\n') == \
        'O_DIRECT is refused on tmpfs under /x: Invalid argument'
    assert steps.skip_reason('nothing') is None


@pytest.mark.parametrize('size,nbytes', [('1M', 2**20), ('4K', 4096),
                                         ('512', 512), ('1MB', 10**6)])
def test_block_bytes(size, nbytes):
    assert block_bytes(size) == nbytes


@pytest.mark.parametrize('size', ['1Q', 'M', '-4K', '1.5M'])
def test_bad_block_size_is_a_clear_error(size):
    with pytest.raises(IogapError, match='not a size dd accepts'):
        block_bytes(size)
