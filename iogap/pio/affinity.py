'''IORAffinity: the NERSC tip ``srun -n 4 -c 64 --cpu-bind=cores`` on an
under-packed node, each task bound to extras['affinity_cores_per_task']
cores or placed by the launcher's default ("otherwise the processes will go
to the same core"); IOR file per process, buffered. Needs ``+cpubind``.'''

from reframe.core.builtins import parameter, variable

from iogap.core import family
from iogap.pio.ior import IORBase


def geometry(part):
    '''``(tasks, cores per task)`` of the under-packed node, or ``None``
    where the partition cannot bind or hold them with cores to spare.'''
    tasks = part.extras['affinity_tasks']
    cores = part.extras['affinity_cores_per_task']
    if 'cpubind' not in part.features or tasks * cores > part.num_cores \
            or cores < 2:
        return None
    return tasks, cores


@family
class IORAffinity(IORBase):
    '''IOR file per process on an under-packed node, bound or not.'''

    # One placement question: the other variants stay at their default
    core_spec = parameter(inherit_params=True, filter_params=lambda p: p[:1])
    darshan = parameter(inherit_params=True, filter_params=lambda p: p[:1])
    #: POSIX file per process, through the page cache: the tip's case
    api = variable(str, value='POSIX')
    layout = variable(str, value='fpp')
    mode = variable(str, value='buffered')
    CONSTRAINTS = (lambda p, part: geometry(part) is not None,)

    def geometry(self):
        return geometry(self.part)

    def size_job(self):
        # -c counts hardware threads: 16 KNL cores are the tip's -c 64
        self.num_tasks = self.num_tasks_per_node = self.geometry()[0]
        self.cores_per_task = self.geometry()[1]
