'''Local two-partition profile: this host seen as an all-cores partition and
a one-core partition, so cross-partition ratios run for real on one
machine. Never matched by hostname: select it with ``--system localpair``.
The two partitions share the host's disk; their jobs take turns on it (each
I/O job holds the scratch root's I/O lock).
'''

import copy
import os
import runpy

HOSTNAMES = []

# The same detection as the generic profile: reuse its partition
_base = runpy.run_path(os.path.join(os.path.dirname(__file__),
                                    'generic.py'))['partition']


def _partition(name, descr, cpus, prepare_cmds):
    part = copy.deepcopy(_base)
    part.update(name=name, descr=descr, prepare_cmds=prepare_cmds)
    part['processor'] = dict(part['processor'], num_cpus=cpus,
                             num_sockets=1, num_cpus_per_socket=cpus)
    part['extras']['dd_count'] = 128
    return part


site_configuration = {
    'systems': [{
        'name': 'localpair',
        'descr': 'This host as two partitions: all cores and one core',
        'hostnames': HOSTNAMES,
        'modules_system': 'nomod',
        'partitions': [
            _partition('all', 'Every core of this host',
                       _base['processor']['num_cpus'], []),
            # The job's shell and all it starts stay on one CPU
            _partition('one', 'One core of this host', 1,
                       ['taskset -p -c 0 $$ >/dev/null']),
        ],
    }],
}
