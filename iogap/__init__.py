'''iogap: nightly regression checks for the I/O and MPI performance gap
between the partitions of an HPC system, after the CUG 2017 KNL/Haswell
study.

The library follows a night's data flow, one package a stage, each behind
the names its ``__init__`` exports: ``site`` (the system's profile, its
Spack stack, its Slurm), ``history`` (run reports and the results
database), ``core`` (the measuring harness) with the families ``dd``,
``pio``, ``osu`` and ``fio``, ``judge`` (every verdict), ``plan`` (what a
night runs and costs), ``report`` (the morning page) and ``night`` (the
nightly driver). ``iogap`` (``__main__``) is the command. Site data lives
only in ``systems/`` and ``reference/``; the decorated checks in
``checks/``.
'''

import os

__version__ = '0.3.0'

#: The checkout the suite runs from (its systems/, reference/, checks/ and
#: reframe_config.py); ``IOGAP_HOME`` names another
HOME = os.path.abspath(os.environ.get('IOGAP_HOME') or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), os.pardir))
