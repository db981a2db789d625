'''Where the nightly is: the repository's root, and a path as it is shown
from there.'''

import os

import iogap

ROOT = iogap.HOME


def shown(path):
    '''``path`` from the repository root when it is inside it.'''
    rel = os.path.relpath(path, ROOT)
    return path if rel.startswith('..') else rel
