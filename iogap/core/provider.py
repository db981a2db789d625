'''Where a check's binaries come from, decided in one place: a prefix the
caller names, the partition's Spack view or externals, the checkout for the
project's own tools, then PATH. A tool named but unusable here fails the
case, saying why: nothing else runs in its place.'''

import os
import re
import shutil

from reframe.core.exceptions import SkipTestError

from iogap.core import runnable
from iogap.errors import IogapError


def find_tool(test, name, subdirs=('bin',), prefixes=(), what=None,
              checkout=None, runs=True):
    '''``(command, provider)`` for ``name``, or skip ``test``: a given
    prefix lacking it is never bypassed; ``subdirs`` are searched under
    prefix, view and PATH entries' parents; ``checkout``: the project's
    copy; ``runs=False``: a file the job reads.'''
    local = test.current_partition.scheduler.registered_name == 'local'
    label = f'{name} ({what})' if what else name
    for prefix in filter(None, prefixes):
        path = _named(prefix, subdirs, name, local)
        if path is None:
            raise SkipTestError(f'{label} not found under the prefix '
                                f'{prefix} (looked in {", ".join(subdirs)})')
        return _usable(label, f'the prefix {prefix}', path, runs, local,
                       local), f'prefix:{path}'

    stack = test.tools
    if stack.view:
        # A view this host sees is checked for remote partitions too
        seen = local or os.path.isdir(stack.view)
        path = _named(stack.view, subdirs, name, seen)
        if path is not None:
            return _usable(label, f'the Spack view {stack.view}', path,
                           runs, seen, local), f'{stack.provider}:{path}'
    external = stack.spack_env.external(name) if stack.spack_env else None
    if external:
        where = f'the Spack environment\'s external {external[1]}'
        return _usable(label, where, external[0], runs, local, local), \
            f'spack-external:{external[1]}:{external[0]}'
    if checkout:
        return checkout, f'checkout:{checkout}'
    if not local:
        return name, 'PATH (resolved on the compute node)'
    path = shutil.which(name) or _on_path_prefixes(name, subdirs)
    if path is None:
        where = ('' if tuple(subdirs) == ('bin',) else
                 f', nor under a PATH entry\'s parent in '
                 f'{" or ".join(subdirs)},')
        looked = (f'not in the Spack view {stack.view}, ' if stack.view
                  else 'no Spack view is built (./setup.sh with a Spack), ')
        raise SkipTestError(f'{label} not found: {looked}not on PATH{where} '
                            f'(install {what or name} or set '
                            f'IOGAP_SPACK_VIEW)')
    return path, f'PATH:{path}'


def _named(prefix, subdirs, name, local):
    '''The first ``prefix/<subdir>/name`` there, even broken; remote: 1st.'''
    paths = [os.path.join(prefix, sub, name) for sub in subdirs]
    if not local:
        return paths[0]
    return next((p for p in paths if os.path.lexists(p)), None)


def _usable(label, where, path, runs, seen, local):
    '''``path`` if usable (``seen``: checkable here), else fail saying why.'''
    why = runnable.why_not(path, runs, local) if seen else None
    if why:
        raise IogapError(f'{label} from {where} cannot be used: {why}: '
                         f'repair or rebuild it; no other {label} is run '
                         f'in its place')
    return path


def _on_path_prefixes(name, subdirs):
    '''Look below each PATH entry's parent (``/opt/osu/libexec/...``).'''
    for entry in filter(None, os.environ.get('PATH', '').split(os.pathsep)):
        parent = os.path.dirname(entry.rstrip('/'))
        for sub in subdirs:
            path = os.path.join(parent, sub, name)
            if os.access(path, os.X_OK):
                return path
    return None


#: What the job says of each tool it executes (job.sh's iogap_tool)
_RESOLVED = re.compile(r'^iogap-tool: (\S+) path=(\S+) sha256=(\S+) '
                       r'version=(\S+)\s*$', re.M)


def resolved(stdout):
    '''``{name: 'path sha256:digest version'}`` as the node resolved each.'''
    return {name: f'{path} sha256:{digest} {version.replace("_", " ")}'
            for name, path, digest, version in _RESOLVED.findall(stdout)}


def on_node(provider, found):
    '''``provider``, a name the node's PATH resolved given its path.'''
    prefix = 'PATH (resolved on the compute node)'
    if not provider.startswith(prefix) or not found:
        return provider
    return f'PATH:{found.split()[0]} (resolved on the compute node)'
