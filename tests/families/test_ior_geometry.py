'''The collective cases' geometry, profile by profile: interleaved small
segments, and in the cb cases an aggregator's share of one collective call
larger than every buffer swept, so that sizes that differ take different
numbers of rounds (iogap.pio.collective).'''

import pytest

from iogap.core.variants import core_specs, size_bytes
from iogap.errors import IogapError
from iogap.pio.collective import (CB_ROUNDS, cb_transfer, collective_point,
                                  segment_count, size_text)
from iogap.site.profile import _every_shipped_part


def test_the_transfer_doubles_until_the_largest_buffer_limits():
    # Cori: 32 nodes x 32 tasks of 64 KiB is 2 MiB per node aggregator;
    # 2 x 64 MiB per aggregator needs 4 MiB per task
    assert cb_transfer(2**16, 1024, 32, 64 * 2**20) == 4 * 2**20
    # this host: 2 tasks, one aggregator, 4 MiB buffers
    assert cb_transfer(2**16, 2, 1, 4 * 2**20) == 4 * 2**20
    # already limiting: unchanged
    assert cb_transfer(2**20, 64, 1, 2**20) == 2**20


def test_segments_are_whole():
    assert segment_count(64 * 2**20, 2**16) == 1024
    with pytest.raises(IogapError, match=r'not a whole number of '
                       r'3145728-byte segments; make ior_block_size'):
        segment_count(64 * 2**20, 3 * 2**20)


def test_sizes_print_as_ior_reads_them():
    assert [size_text(n) for n in (65536, 4 * 2**20, 2**30, 3 * 2**10 + 1)] \
        == ['64k', '4m', '1g', '3073']


def _cb_parts():
    return [p for p in _every_shipped_part()
            if p.extras['ior_cb_buffer_sizes'] and 'mpi' in p.features]


@pytest.mark.parametrize('part', _cb_parts(), ids=lambda p: p.fullname)
def test_every_profiles_buffers_limit_and_differ(part):
    sizes = sorted(size_bytes(s) for s in part.extras['ior_cb_buffer_sizes'])
    total = size_bytes(part.extras['ior_block_size'])
    small = size_bytes(part.extras['ior_collective_transfer_size'])
    for cs in core_specs(part):
        nodes, ppn = collective_point(part, cs)
        tasks = nodes * ppn
        xfer = cb_transfer(small, tasks, nodes, sizes[-1])
        assert segment_count(total, xfer) >= 1
        share = tasks * xfer // nodes       # per aggregator, per call
        rounds = [-(-share // s) for s in sizes]
        assert min(rounds) >= CB_ROUNDS
        assert len(set(rounds)) == len(sizes), (part.fullname, rounds)
        # the small geometry: interleaved, many segments
        assert segment_count(total, small) > 1
