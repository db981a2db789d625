'''Lustre striping as a variant (``lfs setstripe`` on the case's
directory, in the job's set-up), and the check that it applied.'''

import re

import reframe as rfm
from reframe.core.builtins import parameter
from reframe.core.exceptions import SanityError

from iogap.core.cases import feature
from iogap.core.variants import size_bytes
from iogap.errors import IogapError


class LustreStriping(rfm.RegressionTestPlugin):
    #: Lustre striping of the test directory: the file system's default,
    #: or the partition's extras['lustre_stripes'][layout] count and size
    striping = parameter(['default', 'tuned'])

    CONSTRAINTS = (feature('lustre', when=lambda p: p['striping'] == 'tuned'),)

    def stripe_commands(self, layout):
        if self.striping == 'default':
            return []

        conf = self.extra('lustre_stripes')[layout]
        if size_bytes(conf['size']) % 65536:
            raise IogapError(f'Lustre stripe size {conf["size"]} is not a '
                             f'multiple of 64 KiB')

        self.stripe_count = int(conf['count'])
        self.note(f'stripe={conf["count"]}x{conf["size"]}')
        return [f'lfs setstripe -c {conf["count"]} -S {conf["size"]} '
                f'"$IOGAP_DIR"', 'lfs getstripe -d "$IOGAP_DIR"']

    def check_striping(self, stdout):
        '''Sanity: the directory got the stripe count asked for.'''
        if self.striping == 'default':
            return

        m = re.search(r'stripe_count:\s*(-?\d+)', stdout)
        if not m or int(m.group(1)) != self.stripe_count:
            raise SanityError(f'lfs setstripe -c {self.stripe_count} did not '
                              f'apply: lfs getstripe printed '
                              f'{m.group(0) if m else "no stripe_count"}')
