'''Lustre striping as a variant, and the check that it applied.'''

import re

from reframe.core.exceptions import SanityError

from iogap.core.variants import size_bytes
from iogap.errors import IogapError


class Striping:
    '''``lfs setstripe`` of a ``striping=tuned`` case's directory, checked.'''

    def __init__(self, test):
        self.test, self.striping = test, getattr(test, 'striping', 'default')
        self.stripe_count = None

    def commands(self, layout):
        if self.striping == 'default':
            return []
        conf = self.test.current_partition.extras['lustre_stripes'][layout]
        if size_bytes(conf['size']) % 65536:
            raise IogapError(f'Lustre stripe size {conf["size"]} is not a '
                             f'multiple of 64 KiB')
        self.stripe_count = int(conf['count'])
        self.test.note(f'stripe={conf["count"]}x{conf["size"]}')
        return [f'lfs setstripe -c {conf["count"]} -S {conf["size"]} '
                f'"$IOGAP_DIR"', 'lfs getstripe -d "$IOGAP_DIR"']

    def check(self, stdout):
        '''Sanity: the directory got the stripe count asked for.'''
        if self.striping == 'default':
            return
        m = re.search(r'stripe_count:\s*(-?\d+)', stdout)
        if not m or int(m.group(1)) != self.stripe_count:
            raise SanityError(f'lfs setstripe -c {self.stripe_count} did not '
                              f'apply: lfs getstripe printed '
                              f'{m.group(0) if m else "no stripe_count"}')
