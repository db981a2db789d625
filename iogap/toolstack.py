'''ToolStack: where a partition's benchmark tools come from, decided once
per partition and environment in a run (a fixture of every iogap test).

On partitions with the ``+spack`` feature it builds the project's Spack
environment (``spack.yaml`` plus the system's overlay from
``systems/spack/``) with ReFrame's Spack build system, as a build job on the
partition itself, in a persistent per-partition directory, and keeps the
resulting ``spack.lock`` with the run's output. Elsewhere it records where
the tools will come from: a Spack view the user gave or the repository's
own built view, else PATH.
'''

import os

import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.builtins import (run_after, run_before, sanity_function,
                                   variable)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: Tools the suite calls; the record lists where each resolves (OSU keeps
#: its binaries under libexec, where the checks look for them themselves)
TOOLS = ('dd', 'numactl', 'fincore', 'mpirun', 'ior', 'mdtest')


def user_view():
    '''A Spack view given by the user, or the repository's built-in-place
    one (``spack -e . install``), or ``None``.'''
    view = os.environ.get('IOGAP_SPACK_VIEW')
    if view:
        return view

    local = os.path.join(ROOT, 'view')
    return local if os.path.isdir(local) else None


class ToolStack(rfm.CompileOnlyRegressionTest):
    '''Build or locate the tools of one partition.'''

    valid_systems = ['*']
    valid_prog_environs = ['+tools']
    sourcesdir = None
    build_locally = False

    #: View whose ``bin/`` holds the tools, or ``None`` for PATH
    view = variable(str, type(None), value=None)

    #: Where the tools come from: spack-fixture, spack-view or PATH
    provider = variable(str, value='PATH')

    @run_after('setup')
    def _where_to_build(self):
        # Decided before the compile stage: ReFrame schedules on this value
        self.build_locally = 'spack' not in self.current_partition.features

    @run_before('compile')
    def _provide(self):
        if 'spack' in self.current_partition.features:
            self._build_spack_environment()
            return

        self.view = user_view()
        self.provider = 'spack-view' if self.view else 'PATH'
        self.build_system = 'CustomBuild'
        search = f'{self.view}/bin:$PATH' if self.view else '$PATH'
        self.keep_files = ['rfm_build.out']
        self.build_system.commands = [
            f'echo "provider: {self.provider}"',
            f'for t in {" ".join(TOOLS)}; do echo "$t: $(PATH={search} '
            'command -v $t || echo missing)"; done',
        ]

    def _build_spack_environment(self):
        extras = self.current_partition.extras
        env_dir = extras['spack_env']
        self.view, self.provider = f'{env_dir}/view', 'spack-fixture'
        self.env_vars.update({
            'IOGAP_SPACK_OVERLAY': os.path.join(
                ROOT, 'systems', 'spack', f'{extras["spack_overlay"]}.yaml'),
            'IOGAP_SPACK_TARGET': extras.get('spack_target', ''),
            # Compute nodes may lack $HOME; concurrent builds need their own
            'SPACK_USER_CONFIG_PATH': f'{env_dir}/.spack-user',
            'SPACK_USER_CACHE_PATH': f'{env_dir}/.spack-cache',
        })
        self.prebuild_cmds = [
            *extras.get('spack_setup', []),
            f'mkdir -p {env_dir}',
            f'cp {ROOT}/spack.yaml {env_dir}/spack.yaml',
        ]
        self.build_system = 'Spack'
        self.build_system.environment = env_dir
        self.build_system.preinstall_cmds = [
            f'spack -e {env_dir} concretize -f'
        ]
        self.build_system.install_opts = ['--fail-fast']
        self.postbuild_cmds = [f'cp {env_dir}/spack.lock spack.lock']
        self.keep_files = ['spack.lock', 'rfm_build.out']

    @sanity_function
    def validate(self):
        if self.provider == 'spack-fixture':
            return sn.assert_true(os.path.isdir(f'{self.view}/bin'),
                                  msg=f'the Spack build left no {self.view}')

        # The record names the provider and where every tool resolved
        lines = [sn.assert_found(rf'^provider: {self.provider}$',
                                 self.build_stdout)]
        lines += [sn.assert_found(rf'^{t}: (/\S+|missing)$', self.build_stdout)
                  for t in TOOLS]
        return sn.all(lines)
