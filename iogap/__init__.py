'''iogap: regression checks for the I/O and MPI performance gap between
partitions, after the CUG'17 KNL/Haswell study.

The package holds the undecorated library: base tests, parsers, probes,
statistics and the reference/ratio engine. Site-facing decorated checks live
in ``checks/``; site data lives only in ``systems/`` and ``reference/``.
'''

__version__ = '0.1.0'
