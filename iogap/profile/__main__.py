'''python -m iogap.profile new <system>: write a site's profile from its
Slurm (iogap.profile.generate); with no arguments, print the tables of
docs/profile.md.'''

import sys

from iogap.profile import generate, schema

if sys.argv[1:2] == ['new']:
    generate.main(sys.argv[2:])
elif sys.argv[1:]:
    sys.exit('usage: python -m iogap.profile [new <system> [options]]')
else:
    print(schema.markdown(), end='')
