'''ToolStack: a partition's tools, decided once per partition and environment:
the project's Spack environment built on ``+spack`` partitions, else the
overlay's view, ``IOGAP_SPACK_VIEW``'s or PATH, with its ``spack.lock``.'''

import os
import shutil
import sys

import reframe as rfm
import reframe.core.runtime as rt
import reframe.utility.sanity as sn
from reframe.core.builtins import (
    run_after,
    run_before,
    sanity_function,
    variable,
)

from iogap.site.spack import own
from iogap.site.spack import stack as spack

#: Tools the families call; the record says where each resolves
TOOLS = ('dd', 'numactl', 'fincore', 'mpirun', 'ior', 'mdtest', 'fio')


def stack_of(partition):
    '''``(view, provider kind, Environment or None)`` of a partition.'''
    env = spack.environment_for(partition.extras,
                                partition.fullname.split(':')[0])
    if 'spack' in partition.features:
        return env.view, 'spack-fixture', env
    view = spack.local_view(partition.extras['spack_overlay']) \
        if partition.extras['spack_overlay'] else \
        os.environ.get('IOGAP_SPACK_VIEW')
    if view:
        built = env if env is not None and view == env.view else None
        return view, 'spack-view', built
    return None, 'PATH', None


class ToolStack(rfm.CompileOnlyRegressionTest):
    '''Build or locate the tools of one partition.'''

    valid_systems = ['*']
    valid_prog_environs = ['+tools']
    sourcesdir = None

    #: View whose ``bin/`` holds the tools, or ``None`` for PATH
    view = variable(str, type(None), value=None)

    #: Where the tools come from: spack-fixture, spack-view or PATH
    provider = variable(str, value='PATH')

    @run_after('init')
    def where_to_build(self):
        # Before setup makes the build job; valid_systems names the partition
        part = next((p for p in rt.runtime().system.partitions
                     if p.fullname == self.valid_systems[0]), None)
        self.build_locally = not (part and 'spack' in part.features)

    @run_before('compile')
    def provide(self):
        part = self.current_partition
        self.view, self.provider, self.spack_env = stack_of(part)
        self.build_system = 'CustomBuild'
        self.keep_files = ['rfm_build.out', 'spack.lock']
        if self.provider == 'spack-fixture':
            self.build_time_limit = part.extras['build_time_limit']
            self.build_job.num_cpus_per_task = part.extras['build_cpus']
            self.build_system.commands = [
                *part.extras['spack_setup'],
                f'{sys.executable} -m iogap spack build '
                f'--system {part.fullname.split(":")[0]} '
                f'--partition {part.name}',
                f'cp {self.spack_env.path}/spack.lock .',
            ]
            return
        search = f'{self.view}/bin:$PATH' if self.view else '$PATH'
        self.build_system.commands = [
            f'echo "provider: {self.provider} {self.view or ""}"',
            f'for t in {" ".join(TOOLS)}; do echo "$t: $(PATH={search} '
            'command -v $t || echo missing)"; done',
            # The project's own tools: the view's package or the checkout
            f'echo "iogap-tools: $(ls -d {self.view or "/nonexistent"}/'
            f'{own.SUBDIR} 2>/dev/null || echo {own.ROOT})"',
        ]
        if self.spack_env:
            shutil.copy(os.path.join(self.spack_env.path, 'spack.lock'),
                        self.stagedir)

    @sanity_function
    def validate(self):
        if self.provider == 'spack-fixture':
            return sn.assert_true(self.spack_env.ready(),
                                  msg=f'the Spack build left no whole view '
                                      f'in {self.view}')
        lines = [sn.assert_found(rf'^provider: {self.provider}\b',
                                 self.build_stdout)]
        lines += [sn.assert_found(rf'^{t}: (/\S+|missing)$', self.build_stdout)
                  for t in (*TOOLS, 'iogap-tools')]
        return sn.all(lines)
