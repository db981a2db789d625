'''Page-cache eviction before a read-once, one mechanism for every family.

Where the partition permits it (``+dropcaches``) the node's clean cache is
dropped; otherwise each file is written back and evicted on its own with
GNU dd's ``nocache`` flags (posix_fadvise DONTNEED), which needs no
privileges. Either way the job reports the bytes still resident (fincore)
and sanity refuses a read-once that would have measured memory.
'''

import re

import reframe as rfm
from reframe.core.builtins import run_after, variable
from reframe.core.exceptions import SanityError

from iogap.errors import IogapError

#: Fraction of the data allowed to stay cached after an eviction
MAX_RESIDENT = 0.10

#: ``iogap-evict: LABEL METHOD resident=BYTES`` lines the job prints
EVICTION = re.compile(r'^iogap-evict: (\S+) (\S+) resident=(\S+)', re.M)


class PageCacheEviction(rfm.RegressionTestPlugin):
    #: How reads defeat the page cache: ``auto`` (drop_caches where the
    #: partition permits it, else per-file fadvise), or either by name
    evict = variable(str, value='auto')

    @run_after('setup')
    def _evict_method(self):
        if self.evict == 'auto':
            self.evict = ('drop_caches' if 'dropcaches' in
                          self.current_partition.features else 'fadvise')
        if self.evict not in ('drop_caches', 'fadvise'):
            raise IogapError(f'evict must be auto, drop_caches or fadvise, '
                             f'got {self.evict!r}')

    def evict_function(self, dd, files):
        '''Shell function ``iogap_evict LABEL``: evict ``files`` (a shell
        word list) and report the method and the bytes still resident.'''
        if self.evict == 'drop_caches':
            how = f'sync {files}; echo 1 > /proc/sys/vm/drop_caches'
        else:
            how = (f'for f in {files}; do {dd} of="$f" oflag=nocache '
                   f'conv=notrunc,fdatasync count=0 status=none; {dd} '
                   f'if="$f" iflag=nocache count=0 status=none; done')

        return ('iogap_evict() { ' + how + '; res=unknown; if command -v '
                f'fincore >/dev/null; then res=$(fincore -bno RES {files} | '
                "awk '{s+=$1} END {print s+0}') || res=unknown; fi; "
                f'echo "iogap-evict: $1 {self.evict} resident=$res" >&2; }}')

    def check_evictions(self, text, expected):
        '''Sanity: ``expected`` maps each label to the bytes it evicted; all
        were evicted, none left more than :data:`MAX_RESIDENT` cached.
        Returns the residents, label by label, for the log.'''
        found = {label: (method, res)
                 for label, method, res in EVICTION.findall(text)}
        for label, nbytes in expected.items():
            if label not in found:
                raise SanityError(f'no page-cache eviction before the read '
                                  f'of {label}')

            method, res = found[label]
            if res.isdigit() and int(res) > MAX_RESIDENT * nbytes:
                raise SanityError(
                    f'{method} left {int(res)} of {nbytes} bytes of {label} '
                    f'in the page cache: read_once would measure memory, '
                    f'not the file system'
                )

        return ','.join(found[label][1] for label in expected)
