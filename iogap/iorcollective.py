'''IORCollective: MPI-IO and HDF5 on one shared file, independent against
collective I/O, with a sweep of collective buffer sizes passed as ROMIO
hints (the seeds' "hand-tuned cb_buffer_size helps").
'''

import reframe.utility.typecheck as typ
from reframe.core.builtins import parameter, run_before, variable

from iogap import iorparse
from iogap.ior import IORBase


class IORCollective(IORBase):
    '''One shared file through MPI-IO or HDF5: independent I/O, collective
    I/O (``-c``) with the library's defaults, and collective I/O with each
    ROMIO collective buffer size of the partition (a hints file).'''

    PERF_VARS = (r'(write|read_3x)_(bw|bw_max|bw_min|iops|time)_'
                 r'(independent|collective|cb\w+)',
                 r'read_once_(bw|iops|time)_(independent|collective|cb\w+)')

    #: MPI-IO directly, or HDF5 over MPI-IO
    api = parameter(['MPIIO', 'HDF5'])

    #: Collective buffering aggregates one shared file
    layout = variable(str, value='ssf')

    #: Buffered I/O: what collective buffering is tuned for
    mode = variable(str, value='buffered')

    #: ``cb_buffer_size`` values; ``None`` takes extras['ior_cb_buffer_sizes']
    cb_buffer_sizes = variable(typ.List[str], type(None), value=None)

    def sweep(self):
        '''One point: extras['ior_collective_nodes'/'_ppn'], else the
        largest of the sweep.'''
        nodes, ppn = super().sweep()
        return ([nodes[-1] if self.node_counts else
                 self.extra('ior_collective_nodes', nodes[-1])],
                [ppn[-1] if self.procs_per_node else
                 self.extra('ior_collective_ppn', ppn[-1])])

    def cases(self):
        [(n, p)] = self.points()
        sizes = self.cb_buffer_sizes or self.extra('ior_cb_buffer_sizes', [])
        hints = f'--{self.api.lower()}.hintsFileName=hints_cb'
        return [('independent', n, p, []), ('collective', n, p, ['-c'])] + [
            (f'cb{s.lower()}', n, p, ['-c', f'{hints}{s.lower()}.txt'])
            for s in sizes]

    @run_before('run')
    def _hints_files(self):
        sizes = self.cb_buffer_sizes or self.extra('ior_cb_buffer_sizes', [])
        for size in sizes:
            nbytes = iorparse.size_bytes(size, 'cb_buffer_size')
            self.prerun_cmds += [
                f"printf '%s\\n' IOR_HINT__MPI__cb_buffer_size={nbytes} "
                f'IOR_HINT__MPI__romio_cb_write=enable '
                f'IOR_HINT__MPI__romio_cb_read=enable > '
                f'hints_cb{size.lower()}.txt'
            ]

        self.note('hints are ROMIO\'s; other MPI-IO layers may ignore them')
