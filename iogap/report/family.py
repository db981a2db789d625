'''What a family package's ``report`` module (if any) gives the page:
``SECTIONS``, ``SHORT`` (short family names), ``SWEEPS`` (``(family, panel
title, figure)`` drawn against the CPU clock) and ``DARSHAN`` (families
whose ``darshan=on`` cases are drawn).'''

import functools
import importlib
from dataclasses import dataclass

from iogap.core import registry


@dataclass
class Section:
    '''One section of the page, placed by ``order`` and drawn by
    ``draw(ctx)``; ``needs``: what it needs besides its families' cases.'''

    order: float
    key: str
    title: str
    families: tuple
    draw: object
    needs: str = ''


@functools.lru_cache(maxsize=None)
def modules():
    '''The family packages' ``report`` modules (optional), in order.'''
    found = []
    for name in registry.packages():
        try:
            found.append(importlib.import_module(f'{name}.report'))
        except ModuleNotFoundError as err:
            if err.name != f'{name}.report':
                raise
    return tuple(found)


def sections():
    return [s for m in modules() for s in getattr(m, 'SECTIONS', ())]


@functools.lru_cache(maxsize=None)
def short_names():
    return {k: v for m in modules() for k, v in
            getattr(m, 'SHORT', {}).items()}


def sweeps():
    return [s for m in modules() for s in getattr(m, 'SWEEPS', ())]


def darshan():
    return tuple(f for m in modules() for f in getattr(m, 'DARSHAN', ()))
