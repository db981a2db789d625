'''Page-cache eviction before a read-once: the node's clean cache dropped
where the partition permits it (``+dropcaches``), else each file evicted
with GNU dd's ``nocache`` flags, no privileges needed; and its check.'''

import re

from reframe.core.exceptions import SanityError

from iogap.errors import IogapError
from iogap.site import hostinfo

#: Fraction of the data allowed to stay cached after an eviction
MAX_RESIDENT = 0.10
_EVICTION = re.compile(r'^iogap-evict: (\S+) (\S+) resident=(\S+)', re.M)


class Eviction:
    '''A case's eviction: ``auto`` (drop_caches where permitted, else
    fadvise), ``drop_caches`` or ``fadvise``.'''

    def __init__(self, test, method):
        if method == 'auto':
            method = ('drop_caches' if 'dropcaches' in
                      test.current_partition.features else 'fadvise')
        if method not in ('drop_caches', 'fadvise'):
            raise IogapError(f'evict must be auto, drop_caches or fadvise, '
                             f'got {method!r}')
        self.test, self.method = test, method

    def command(self, label, dd, files):
        '''The job line that evicts ``files`` (shell words) as ``label``.'''
        return f'iogap_evict {label} {self.method} {dd} {files}'

    def check(self, text, expected):
        '''Sanity: each label evicted its ``expected`` bytes; the residents.'''
        found = {label: (method, res)
                 for label, method, res in _EVICTION.findall(text)}
        for label, nbytes in expected.items():
            if label not in found:
                raise SanityError(f'no page-cache eviction before the read '
                                  f'of {label}')
            method, res = found[label]
            if res.isdigit() and int(res) > MAX_RESIDENT * nbytes:
                root = self.test.current_partition.extras['scratch_root']
                fstype = hostinfo.fs_type(root) if self.test.is_local else ''
                why = (f': the scratch root {root} is on {fstype}, which '
                       f'lives in memory and cannot be evicted'
                       if fstype in hostinfo.MEMORY_FS else '')
                raise SanityError(
                    f'{method} left {int(res)} of {nbytes} bytes of {label} '
                    f'in the page cache: read_once would measure memory, '
                    f'not the file system{why}'
                )
        return ','.join(found[label][1] for label in expected)
