'''dd parsing, sizes and the harness's plausibility checks, on the job
output of real generic runs (tests/data/dd/SOURCES.md).'''

import re

import pytest
from reframe.core.exceptions import SanityError

from iogap.core import placement, plausible, steps, traced
from iogap.dd.parse import block_bytes, check_steps, dd_record
from iogap.errors import IogapError

MiB = 2**20

#: What the step wrapper and dd's start and exit took on this machine kind
#: (calibration steps of a real run: 1.0-5.2 ms)
STARTUP = plausible.Overhead([0.0010, 0.0052])


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
        # Recorded before calibration steps: dd's start-up as measured here
        plausible.check_clock(seconds, step.seconds, step['op'], STARTUP,
                              nbytes)
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
    (0.24, 0.5),       # twice what the harness saw
    (2e-8, 0.0300),    # 4 PB/s on a 30 ms step, above the resolution
    (0.6, 0.5),        # longer than the step the harness timed
])
def test_a_figure_the_harness_clock_contradicts_fails(claimed, wall):
    told = re.escape(f'{512 * MiB / claimed / 1e6:.6g} MB/s')
    seen = re.escape(f'{512 * MiB / (wall - STARTUP.max) / 1e6:.6g} MB/s')
    with pytest.raises(SanityError, match=f'reports {told} .* but the '
                       f'harness saw {seen} .* not plausible'):
        plausible.check_clock(claimed, wall, 'dd write', STARTUP, 512 * MiB)


def test_the_bound_is_as_tight_as_the_harness_resolution():
    '''A claim within 1.5x of the harness, less its start-up, passes; the
    start-up's spread widens the bound only by that spread.'''
    plausible.check_clock(0.34, 0.5, 'dd write', STARTUP, 512 * MiB)
    plausible.check_clock(0.5, 0.5, 'dd write', STARTUP, 512 * MiB)
    plausible.check_clock(0.004, 0.009, 'dd read', STARTUP, 16 * MiB)
    loose = plausible.Overhead([0.15, 0.35])     # mpirun on a loaded node
    plausible.check_clock(0.01, 0.5, 'IOR write', loose, 64 * MiB)
    with pytest.raises(SanityError, match='not plausible'):
        plausible.check_clock(0.01, 0.9, 'IOR write', loose, 64 * MiB)
    with pytest.raises(SanityError, match='no time'):
        plausible.check_clock(0.1, None, 'dd', STARTUP, 1)


def test_a_step_delayed_by_a_busy_host_is_no_lie_but_its_cpu_is_evidence():
    '''The failures of an honest dd on a loaded host: 8 MiB written in
    5.7 ms by dd's clock, in an 89 ms step. The step's wait for a CPU
    comes off the harness's time; the tool's own CPU time, which no wait
    inflates, still holds a claim of no time at all.'''
    with pytest.raises(SanityError, match='not plausible'):
        plausible.check_clock(0.005655, 0.089007, 'dd write', STARTUP, 8 * MiB)
    plausible.check_clock(0.005655, 0.089007, 'dd write', STARTUP, 8 * MiB,
                      waited=0.0832, cpu=0.01)
    # Unknown wait (no PSI): the bound of a quiet host
    with pytest.raises(SanityError, match='not plausible'):
        plausible.check_clock(0.005655, 0.089007, 'dd write', STARTUP, 8 * MiB,
                          waited=None, cpu=0.01)
    # 4 PB/s for a cached read that used 0.3 s of CPU in a step the host
    # delayed throughout
    with pytest.raises(SanityError, match=r'0\.500000 s waiting for a CPU, '
                       r'0\.30 s of CPU\): its figure is not plausible'):
        plausible.check_clock(1e-9, 0.5, 'dd read1', STARTUP, 512 * MiB,
                          waited=0.5, cpu=0.3)


def test_the_step_says_how_long_the_host_kept_it_waiting():
    text = ('iogap-step: op=write rep=1\n'
            'iogap-time: seconds=0.089007 waited=0.083200 cpu=0.01\n'
            'iogap-step: op=read1 rep=1\n'
            'iogap-time: seconds=0.02 waited=na cpu=0.02\n'
            'iogap-step: step=write\n'
            'iogap-rank-time: seconds=0.5 waited=0.010000 cpu=0.49\n'
            'iogap-rank-time: seconds=0.4 waited=0.020000 cpu=0.39\n'
            'iogap-step: op=old rep=1\niogap-time: seconds=0.3\n')
    write, read1, ranked, old = steps.parse(text)
    assert (write.seconds, write.waited, write.cpu) == (0.089007, 0.0832,
                                                       0.01)
    assert (read1.waited, read1.cpu) == (None, 0.02)
    # The least rank's time, the most any rank waited
    assert (ranked.seconds, ranked.waited) == (0.4, 0.02)
    assert (old.seconds, old.waited, old.cpu) == (0.3, None, None)


def test_calibration_steps_are_measured_apart_and_required():
    text = ''.join(f'iogap-step: op=calibrate rep=0 calibrate={i}\n'
                   f'0 bytes copied, 2e-05 s, 0 kB/s\n'
                   f'iogap-time: seconds={t}\n'
                   for i, t in ((1, 0.002), (2, 0.0031)))
    text += 'iogap-step: op=write rep=1\niogap-time: seconds=0.5\n'
    overhead, found = plausible.calibration(
        steps.parse(text), lambda s: dd_record(s)[1])
    assert (overhead.min, overhead.max) == pytest.approx((0.00198, 0.00308))
    assert overhead.resolution == pytest.approx(0.010)     # the floor
    assert [s['op'] for s in found] == ['write']
    with pytest.raises(SanityError, match='no calibration'):
        plausible.calibration(found, lambda s: 0)


def test_bytes_on_disk_must_be_what_was_written():
    [step] = steps.parse('iogap-step: op=write rep=1\n'
                         'iogap-bytes: length=4096 allocated=0\n')
    plausible.check_disk(step, 4096, 'dd write')   # compressed: allocation ok
    with pytest.raises(SanityError, match='8192 bytes were written but the '
                       'files hold 4096 bytes'):
        plausible.check_disk(step, 8192, 'dd write')
    plausible.check_disk(step, 4000, 'HDF5 write', slack=100)


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


def test_a_step_over_before_its_first_sample_is_no_crash_and_no_lie(data):
    '''A real job whose memory copy (repetition 3) ended while the
    tracer made its first reading: every byte is in the trace, no sample
    lies inside the copy, and the honest job passes.'''
    text = read(data, 'buffered_traced_late_sample.out')
    found, _ = check_steps(text, 32 * MiB, 15)
    [late] = [s for s in found if s.labels == {'op': 'memory', 'rep': '3'}]
    [trace] = late.traces
    assert trace[0][1] >= 2 * 32 * MiB
    assert traced.traced_stretch(trace, 2 * 32 * MiB, 0)[0] == 0.0
