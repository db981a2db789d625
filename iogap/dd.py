'''dd single stream: the study's ``dd bs=1M count=10000`` in three I/O modes.

Bandwidth is bytes over seconds as dd reports them (not its rounded rate),
in MB/s (10^6) like the study. One job writes the file and reads it three
times per repetition: the first read follows a page-cache eviction and is
the *read-once* figure; the three reads with no flush between them are the
study's *read-3x*. Direct mode bypasses the cache and needs no eviction.
'''

import re

from reframe.core.builtins import parameter, run_after, run_before, variable
from reframe.core.exceptions import SanityError, SkipTestError

from iogap import steps
from iogap.base import IogapTest
from iogap.errors import IogapError
from iogap.pagecache import PageCacheEviction
from iogap.variants import (CoreSpecVariant, CpuBindVariant,
                            MemoryPlacementVariant)

#: dd flags per mode: (write flags, read flags). dsync is a write-path
#: mode (O_DSYNC), so its reads are plain reads of the synced file.
MODE_FLAGS = {
    'buffered': ('', ''),
    'dsync': ('oflag=dsync', ''),
    'direct': ('oflag=direct', 'iflag=direct'),
}

_RECORD = re.compile(r'^(\d+) bytes\b.*\bcopied, ([0-9.]+(?:e[-+]?\d+)?) s\b',
                     re.M)

_SIZE_SUFFIX = {'': 1, 'c': 1, 'w': 2, 'b': 512, 'K': 1024, 'k': 1024,
                'M': 2**20, 'G': 2**30, 'kB': 1000, 'MB': 10**6, 'GB': 10**9}


def block_bytes(size):
    '''Bytes in a dd size such as ``1M``; a bad size is a clear error.'''
    match = re.fullmatch(r'(\d+)([A-Za-z]*)', str(size))
    if not match or match.group(2) not in _SIZE_SUFFIX:
        raise IogapError(f'dd block size {size!r} is not a size dd accepts '
                         f'(e.g. 4K, 1M)')

    return int(match.group(1)) * _SIZE_SUFFIX[match.group(2)]


def parse(text):
    '''Records ``{'op', 'bytes', 'seconds', **labels}`` from dd's stderr.

    Each dd run is a labelled step (:mod:`iogap.steps`) naming the
    operation, so a missing or failed run cannot pass for another one.
    '''
    return [{**labels, 'bytes': int(m.group(1)), 'seconds': float(m.group(2))}
            for labels, section in steps.sections(text)
            if (m := _RECORD.search(section))]


def bandwidth(record):
    '''MB/s (10^6 bytes per second) of one dd record.'''
    if record['seconds'] <= 0:
        raise SanityError(f'dd reported {record["seconds"]} s for '
                          f'{record["op"]}: too fast to time')

    return record['bytes'] / record['seconds'] / 1e6


class DDBase(IogapTest, CoreSpecVariant, CpuBindVariant,
             MemoryPlacementVariant, PageCacheEviction):
    '''What every dd test shares: sizes, flags, eviction, parsing, sanity.'''

    #: I/O path: page cache, O_DSYNC writes, or O_DIRECT
    mode = parameter(list(MODE_FLAGS))

    #: dd ``bs=``; ``None`` takes extras['dd_block_size']
    block_size = variable(str, type(None), value=None)

    #: dd ``count=``; ``None`` takes extras['dd_count']
    count = variable(int, type(None), value=None)

    #: Repetitions per measurement; ``None`` takes extras['repetitions']
    repetitions = variable(int, type(None), value=None)

    @run_after('setup')
    def _dd_sizes(self):
        self.block_size = self.block_size or self.extra('dd_block_size', '1M')
        self.count = self.count or self.extra('dd_count')
        self.repetitions = self.repetitions or self.extra('repetitions', 3)
        nbytes = block_bytes(self.block_size)
        if self.mode == 'direct':
            if 'odirect' not in self.current_partition.features:
                raise SkipTestError(self.extra('odirect_reason') or
                                    'the scratch file system lacks O_DIRECT')
            if nbytes % 4096:
                raise IogapError(f'direct mode needs a block size that is a '
                                 f'multiple of 4 KiB, got {self.block_size}')

        self.file_bytes = nbytes * self.count
        self.scratch_bytes = self.file_bytes
        self.dd = self.tool('dd')

    def dd_write(self, *launch_opts):
        flags = MODE_FLAGS[self.mode][0]
        return (f'{self.launch(*launch_opts)} {self.dd} if=/dev/zero '
                f'of="$IOGAP_FILE" bs={self.block_size} count={self.count} '
                f'{flags}').strip()

    def dd_read(self):
        flags = MODE_FLAGS[self.mode][1]
        return (f'{self.launch()} {self.dd} if="$IOGAP_FILE" of=/dev/null '
                f'bs={self.block_size} {flags}').strip()

    @run_before('run')
    def _dd_environment(self):
        self.env_vars['LC_ALL'] = 'C'     # dd's summary line in one format
        self.prerun_cmds += ['IOGAP_FILE="$IOGAP_DIR/dd.dat"']

    def records(self):
        with open(self.stderr_path()) as fp:
            return parse(fp.read())

    def checked_records(self, expected):
        '''Sanity core: exit status, binding, every run present and whole.'''
        self.assert_exit_ok('dd')
        self.note(f'cpus={self.check_binding()}')
        records = self.records()
        if len(records) != expected:
            raise SanityError(f'expected {expected} dd runs, parsed '
                              f'{len(records)}')

        for rec in records:
            if rec['bytes'] != self.file_bytes:
                raise SanityError(f'dd {rec["op"]} moved {rec["bytes"]} '
                                  f'bytes, expected {self.file_bytes}')

        return records


def op_values(records, op):
    return [bandwidth(r) for r in records if r['op'] == op]
