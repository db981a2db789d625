'''Page-cache eviction before a read-once, one mechanism for every family.

Where the partition permits it (``+dropcaches``) the node's clean cache is
dropped; otherwise each file is written back and evicted on its own with
GNU dd's ``nocache`` flags (posix_fadvise DONTNEED), which needs no
privileges. Either way the job reports the bytes still resident (fincore,
``iogap_evict`` in core/job.sh) and sanity refuses a read-once that would
have measured memory.
'''

import re

import reframe as rfm
from reframe.core.builtins import run_after, variable
from reframe.core.exceptions import SanityError

from iogap.errors import IogapError
from iogap.profile import hostinfo

#: Fraction of the data allowed to stay cached after an eviction
MAX_RESIDENT = 0.10

_EVICTION = re.compile(r'^iogap-evict: (\S+) (\S+) resident=(\S+)', re.M)


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

    def check_evictions(self, text, expected):
        '''Sanity: ``expected`` maps each label to the bytes it evicted; all
        were evicted, none left more than :data:`MAX_RESIDENT` cached.
        Returns the residents, label by label, for the log.'''
        found = {label: (method, res)
                 for label, method, res in _EVICTION.findall(text)}
        for label, nbytes in expected.items():
            if label not in found:
                raise SanityError(f'no page-cache eviction before the read '
                                  f'of {label}')

            method, res = found[label]
            if res.isdigit() and int(res) > MAX_RESIDENT * nbytes:
                root = self.current_partition.extras['scratch_root']
                fstype = hostinfo.fs_type(root) if self.is_local else ''
                why = (f': the scratch root {root} is on {fstype}, which '
                       f'lives in memory and cannot be evicted'
                       if fstype in hostinfo.MEMORY_FS else '')
                raise SanityError(
                    f'{method} left {int(res)} of {nbytes} bytes of {label} '
                    f'in the page cache: read_once would measure memory, '
                    f'not the file system{why}'
                )

        return ','.join(found[label][1] for label in expected)
