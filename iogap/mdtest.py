'''mdtest: file create, stat, read and remove rates over the same sweep.

Every point of the nodes x processes-per-node sweep is one mdtest step
with files only (``-F``), in a directory per task (``-u``) or one shared
directory. Files carry a few KiB written at creation and read back and
verified (``-X``), so *read* really reads. Rates are the SUMMARY table's
means over the iterations, in operations per second.
'''

from reframe.core.builtins import (parameter, run_after, run_before,
                                   sanity_function, variable)
from reframe.core.exceptions import SanityError

from iogap import iorparse, steps
from iogap.sweep import ParallelIOTest


class MDTestBench(ParallelIOTest):
    '''mdtest metadata rates, unique or shared directory.'''

    PERF_VARS = (r'(create|stat|read|remove)_rate_n\d+_p\d+',)

    TOOL = 'mdtest'

    #: A working directory per task (``-u``), or all tasks in one
    directory = parameter(['unique', 'shared'])

    #: Files per task (``-n``); ``None`` takes extras['mdtest_files_per_proc']
    files_per_proc = variable(int, type(None), value=None)

    #: Bytes written into and read back from each file; ``None`` takes
    #: extras['mdtest_file_bytes'] (0: read is open/close only)
    file_bytes = variable(int, type(None), value=None)

    #: Iterations (``-i``); ``None`` takes extras['repetitions']
    repetitions = variable(int, type(None), value=None)

    @run_after('setup')
    def _mdtest_setup(self):
        self.files_per_proc = (self.files_per_proc or
                               self.extra('mdtest_files_per_proc', 1000))
        if self.file_bytes is None:
            self.file_bytes = self.extra('mdtest_file_bytes', 4096)
        self.repetitions = self.repetitions or self.extra('repetitions', 3)
        self.mdtest = self.tool('mdtest')

    def cases(self):
        return [(f'n{n}_p{p}', n, p) for n, p in self.points()]

    @run_before('run')
    def _mdtest_commands(self):
        opts = ['-F -C -T -E -r', f'-n {self.files_per_proc}',
                f'-i {self.repetitions}']
        opts += ['-u'] if self.directory == 'unique' else []
        if self.file_bytes:
            opts += [f'-w {self.file_bytes} -e {self.file_bytes} -X']
            self.note(f'create writes and read reads and verifies '
                      f'{self.file_bytes} bytes per file')
        else:
            self.note('read is open/close only (no bytes)')

        for key, nodes, ppn in self.cases():
            self.postrun_cmds += [
                steps.label(step=f'mdtest_{key}'),
                f'{self.launch_step(nodes, ppn)} {self.mdtest} '
                f'-d "$IOGAP_DIR/md_{key}" {" ".join(opts)}',
            ]

    @sanity_function
    def validate(self):
        runs = iorparse.mdtest_runs(self.check_run())
        figures = {}
        for key, nodes, ppn in self.cases():
            run = runs.get(f'mdtest_{key}', {})
            if run.get('tasks') != nodes * ppn:
                raise SanityError(f'mdtest_{key} ran {run.get("tasks")} '
                                  f'tasks, expected {nodes * ppn}')
            if run.get('iterations') != self.repetitions:
                raise SanityError(f'mdtest_{key} printed no complete SUMMARY '
                                  f'of {self.repetitions} iterations')

            for op in iorparse.MDTEST_OPS:
                if not run.get(op):
                    raise SanityError(f'mdtest_{key} has no {op} rate '
                                      f'(missing or zero)')

                figures[f'{op}_rate_{key}'] = (run[op], 'ops/s')

        return self.report(figures)
