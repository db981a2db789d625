'''Where a check's binaries come from, decided in one place.

Order: a Spack view (the ``spack`` environment, ``$IOGAP_SPACK_VIEW``), then
PATH. A missing binary is a skip that names it and both places looked in.
On remote partitions the lookup happens on the compute node, so the name is
only resolved against the view.
'''

import os
import shutil

from reframe.core.exceptions import SkipTestError


def find_tool(test, name):
    '''Return ``(command, provider)`` for ``name`` or skip ``test``.'''
    view = (os.environ.get('IOGAP_SPACK_VIEW') or
            test.current_partition.extras.get('spack_view'))
    in_spack_env = test.current_environ.name == 'spack'
    local = test.current_partition.scheduler.registered_name == 'local'
    if in_spack_env:
        if not view:
            raise SkipTestError(f'{name}: the spack environment needs a Spack '
                                f'view: set IOGAP_SPACK_VIEW or the '
                                f'partition\'s extras["spack_view"]')

        path = os.path.join(view, 'bin', name)
        if local and not os.access(path, os.X_OK):
            raise SkipTestError(f'{name} not found in the Spack view {view}')

        return path, f'spack-view:{view}'

    if not local:
        return name, 'PATH (resolved on the compute node)'

    path = shutil.which(name)
    if path is None:
        raise SkipTestError(f'{name} not found: not on PATH and no Spack '
                            f'view given (set IOGAP_SPACK_VIEW or install '
                            f'{name})')

    return path, f'PATH:{path}'
