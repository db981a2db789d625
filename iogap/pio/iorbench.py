'''The IOR sweep: bandwidth over file layout, API and I/O mode at each
point of nodes x processes per node, and the study's HDF5 clock sweep.'''

from reframe.core.builtins import parameter

from iogap.core import family, variant
from iogap.pio import base
from iogap.pio.ior import IORBase

#: The case the study measured at its points between powers of two
STUDY_POINT = ('fpp', 'POSIX', 'buffered')


@family
class IORBench(IORBase):
    '''IOR over file layout, API and I/O mode at one point of the sweep;
    MPI-IO and HDF5 use independent I/O here. IOR 4.0.0 does O_DIRECT only
    through its POSIX backend (it silently ignores ``--posix.odirect``
    elsewhere), so direct cases of the other APIs are never generated.'''

    #: Nodes of the case (the selected system's extras['ior_nodes'])
    num_nodes = base.num_nodes()
    #: Processes per node of the case (:func:`iogap.pio.base.ppn_sweep`)
    procs_per_node = base.procs_per_node()
    #: File per process (``-F``) or one single shared file
    layout = parameter(['fpp', 'ssf'])
    #: IOR backend (``-a``)
    api = parameter(['POSIX', 'MPIIO', 'HDF5'])
    #: Page cache (buffered), fsync at close (``-e``) or O_DIRECT
    mode = parameter(['buffered', 'fsync', 'direct'])
    # The sweep is the study's scaling figure: core specialization and
    # striping are studied where they were measured (IORCollective)
    core_spec = parameter(inherit_params=True, filter_params=lambda p: p[:1])

    CONSTRAINTS = (
        base.on_nodes,
        # The study's points between the powers of two (KNL's 48) are
        # where it read three times: the FPP POSIX buffered case only
        lambda p, part: p['procs_per_node'] in base.ppn_sweep(
            part, p['core_spec'], study_points=(p['layout'], p['api'],
                                                p['mode']) == STUDY_POINT),
        variant.feature('hdf5', when=lambda p: p['api'] == 'HDF5'),
        variant.feature('odirect', when=lambda p: p['mode'] == 'direct'),
        lambda p, part: p['mode'] != 'direct' or p['api'] == 'POSIX',
    )

    def size_tasks(self):
        base.size_point(self)


@family
class IORFrequencySweep(IORBench):
    '''One process writing and reading a shared file through parallel HDF5
    at one CPU clock: the study's HDF5 sweep (r² 0.89 on Haswell, 0.96 on
    KNL; Haswell/KNL 1.83 at the same clock).'''

    layout = parameter(inherit_params=True, filter_params=lambda p: ['ssf'])
    api = parameter(inherit_params=True, filter_params=lambda p: ['HDF5'])
    mode = parameter(inherit_params=True, filter_params=lambda p: ['buffered'])
    num_nodes = parameter(inherit_params=True,
                          filter_params=lambda p: [n for n in p if n == 1])
    procs_per_node = parameter(inherit_params=True,
                               filter_params=lambda p: [n for n in p
                                                        if n == 1])
    cpu_bind = parameter(inherit_params=True, filter_params=lambda p: p[:1])
    darshan = parameter(inherit_params=True, filter_params=lambda p: p[:1])
    #: The CPU clock of the case (kHz), checked in the job
    cpu_freq = variant.cpu_freq()
