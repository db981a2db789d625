'''What each family package gives the page, found through the registry:
its ``report`` module (``iogap/<package>/report.py``; a package without
one draws nothing of its own) states

- ``SECTIONS``: its :class:`Section` s, placed among the others by
  ``order``;
- ``SHORT``: its families' short names in labels;
- ``SWEEPS``: ``(family, panel title, figure)`` of each family whose
  figure the CPU-clock section draws against the clock;
- ``DARSHAN``: the families whose ``darshan=on`` cases the Darshan
  section draws.

The page's own sections (the clock sweep, judgements, Darshan, history)
name no family: they take them from here.'''

import functools
import importlib
from dataclasses import dataclass

from iogap.core import registry


@dataclass
class Section:
    '''One section of the page: its place, its key in ``figures.json``,
    its title (the page numbers it), the families it draws, its drawing
    (``draw(ctx)``) and what it needs when a family is not enough.'''

    order: float
    key: str
    title: str
    families: tuple
    draw: object
    needs: str = ''


@functools.lru_cache(maxsize=None)
def modules():
    '''The ``report`` modules of the family packages, in package order.'''
    found = []
    for name in registry.packages():
        try:
            found.append(importlib.import_module(f'{name}.report'))
        except ModuleNotFoundError as err:
            if err.name != f'{name}.report':
                raise
    return tuple(found)


def sections():
    '''Every family package's sections.'''
    return [s for m in modules() for s in getattr(m, 'SECTIONS', ())]


@functools.lru_cache(maxsize=None)
def short_names():
    '''``{family: short name}`` of every family that states one.'''
    return {k: v for m in modules() for k, v in
            getattr(m, 'SHORT', {}).items()}


def sweeps():
    '''``(family, panel title, figure)`` of every clock sweep.'''
    return [s for m in modules() for s in getattr(m, 'SWEEPS', ())]


def darshan():
    '''The families whose ``darshan=on`` cases the page draws.'''
    return tuple(f for m in modules() for f in getattr(m, 'DARSHAN', ()))
