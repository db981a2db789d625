'''mdtest: file create, stat, read and remove rates at one sweep point,
in a directory per task (``-u``) or one shared. Files carry a few KiB
written and read back verified (``-X``), so *read* really reads.'''

from reframe.core.builtins import parameter, sanity_function, variable
from reframe.core.exceptions import SanityError

from iogap.core import Figures, family, variant
from iogap.pio import base, parse
from iogap.pio.figures import RATE


@family
class MDTestBench(base.ParallelIOTest):
    '''mdtest metadata rates, unique or shared directory.'''

    TOOL = 'mdtest'
    figures = Figures(RATE, *variant.darshan_figures)
    #: Nodes of the case (the selected system's extras['ior_nodes'])
    num_nodes = base.num_nodes()
    #: Processes per node of the case (:func:`iogap.pio.base.ppn_sweep`)
    procs_per_node = base.procs_per_node()
    CONSTRAINTS = base.SWEEP_CONSTRAINTS
    #: mdtest under darshan-runtime, or bare
    darshan = variant.darshan()
    #: A working directory per task (``-u``), or all tasks in one
    directory = parameter(['unique', 'shared'])
    # Metadata rates over the sweep; core specialization is studied elsewhere
    core_spec = parameter(inherit_params=True, filter_params=lambda p: p[:1])
    #: Files per task (``-n``); ``None``: extras['mdtest_files_per_proc']
    files_per_proc = variable(int, type(None), value=None)
    #: Bytes written into and read back from each file; ``None`` takes
    #: extras['mdtest_file_bytes'] (0: read is open/close only)
    file_bytes = variable(int, type(None), value=None)
    #: Iterations (``-i``); ``None`` takes extras['repetitions']
    repetitions = variable(int, type(None), value=None)

    def size_tasks(self):
        base.size_point(self)

    def configure(self):
        super().configure()
        self.files_per_proc = (self.files_per_proc or
                               self.extra('mdtest_files_per_proc'))
        if self.file_bytes is None:
            self.file_bytes = self.extra('mdtest_file_bytes')
        self.repetitions = self.repetitions or self.extra('repetitions')
        self.executable = ' '.join([*self.darshan_run.env('mdtest'),
                                    self.tool('mdtest')])
        self.executable_opts = ['-d "$IOGAP_DIR/md"', '-F -C -T -E -r',
                                f'-n {self.files_per_proc}',
                                f'-i {self.repetitions}']
        if self.directory == 'unique':
            self.executable_opts.append('-u')
        if self.file_bytes:
            self.executable_opts.append(f'-w {self.file_bytes} '
                                        f'-e {self.file_bytes} -X')
            self.note(f'create writes and read reads and verifies '
                      f'{self.file_bytes} bytes per file')
        else:
            self.note('read is open/close only (no bytes)')

    def plan_steps(self):
        super().plan_steps()
        self.job_sections.step(step='mdtest')

    @sanity_function
    def validate(self):
        run = parse.mdtest_runs(self.check_run()).get('mdtest', {})
        if run.get('tasks') != self.num_tasks:
            raise SanityError(f'mdtest ran {run.get("tasks")} tasks, '
                              f'expected {self.num_tasks}')
        if run.get('iterations') != self.repetitions:
            raise SanityError(f'mdtest printed no complete SUMMARY of '
                              f'{self.repetitions} iterations')
        # Every file is written once and read back once per iteration
        nbytes = (self.num_tasks * self.files_per_proc * self.file_bytes *
                  self.repetitions)
        figures = self.darshan_run.figures(
            {'mdtest': ('POSIX', nbytes, nbytes, 0)})
        for op in parse.MDTEST_OPS:
            if not run.get(op):
                raise SanityError(f'mdtest has no {op} rate (missing or '
                                  f'zero)')
            figures[RATE.name(op=op)] = (run[op], RATE.unit)
        return self.report(figures)
