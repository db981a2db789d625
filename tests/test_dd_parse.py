'''dd parsing and sizes, on stderr captured from real generic runs.'''

import pytest

from iogap import dd
from iogap.errors import IogapError


def read(data, name):
    with open(data('dd', name)) as fp:
        return fp.read()


@pytest.mark.parametrize('mode', ['buffered', 'dsync', 'direct'])
def test_parse_real_runs(data, mode):
    records = dd.parse(read(data, f'{mode}_3reps.stderr'))
    ops = [(r['op'], r['rep']) for r in records]
    assert ops == [(op, str(rep)) for rep in (1, 2, 3)
                   for op in ('write', 'read1', 'read2', 'read3')]
    assert all(r['bytes'] == 128 * 2**20 for r in records)
    assert all(r['seconds'] > 0 for r in records)


def test_bandwidth_uses_bytes_and_seconds_not_the_rate_string():
    text = ('iogap-step: op=write rep=1\n'
            '134217728 bytes (134 MB, 128 MiB) copied, 0.766184 s, 175 MB/s')
    [record] = dd.parse(text)
    assert dd.bandwidth(record) == pytest.approx(134217728 / 0.766184 / 1e6)


def test_old_coreutils_format_and_exponent_seconds():
    text = ('iogap-step: op=read1 rep=1\n'
            '4096 bytes (4.1 kB) copied, 3.7e-05 s, 111 MB/s\n')
    [record] = dd.parse(text)
    assert record['seconds'] == pytest.approx(3.7e-05)


def test_unlabelled_and_failed_runs_are_not_counted(data):
    # A failed dd (disk full) prints a record of 0 bytes after its error
    text = 'iogap-step: op=write rep=1\n' + read(data, 'enospc.stderr')
    [record] = dd.parse(text)
    assert record['bytes'] == 0
    assert dd.parse('1048576 bytes (1.0 MB) copied, 0.1 s, 10 MB/s') == []


def test_zero_seconds_is_a_sanity_error():
    from reframe.core.exceptions import SanityError
    with pytest.raises(SanityError, match='too fast to time'):
        dd.bandwidth({'op': 'write', 'bytes': 1, 'seconds': 0.0})


@pytest.mark.parametrize('size,nbytes', [('1M', 2**20), ('4K', 4096),
                                         ('512', 512), ('1MB', 10**6)])
def test_block_bytes(size, nbytes):
    assert dd.block_bytes(size) == nbytes


@pytest.mark.parametrize('size', ['1Q', 'M', '-4K', '1.5M'])
def test_bad_block_size_is_a_clear_error(size):
    with pytest.raises(IogapError, match='not a size dd accepts'):
        dd.block_bytes(size)
