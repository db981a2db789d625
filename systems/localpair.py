'''Local two-partition profile (system "localpair"): this host seen as an
all-cores partition and a one-core partition, so cross-partition ratios run
for real on one machine. Never matched by hostname: select it with
``--system localpair``.
'''

import copy
import os
import runpy

from iogap import hostinfo

# Same detection as the generic profile: reuse its partition
_generic = runpy.run_path(os.path.join(os.path.dirname(__file__),
                                       'generic.py'))['site_configuration']
_base = _generic['systems'][0]['partitions'][0]


def _partition(name, descr, cpus, prepare_cmds):
    part = copy.deepcopy(_base)
    part.update(name=name, descr=descr, prepare_cmds=prepare_cmds)
    part['processor'] = dict(part['processor'], num_cpus=cpus,
                             num_sockets=1, num_cpus_per_socket=cpus)
    part["extras"].update(cores=cpus, dd_count=128)
    return part


site_configuration = {
    'systems': [
        {
            'name': 'localpair',
            'descr': 'This host as two partitions: all cores and one core',
            'hostnames': [r'^iogap-localpair-never-matches$'],
            'modules_system': 'nomod',
            'partitions': [
                _partition('all', 'Every core of this host',
                           hostinfo.cpus(), []),
                # The job's shell and all it starts stay on one CPU
                _partition('one', 'One core of this host', 1,
                           ['taskset -p -c 0 $$ >/dev/null']),
            ],
        },
    ],
}
