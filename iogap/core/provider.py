'''Where a check's binaries come from, decided in one place.

Order: an explicit install prefix the caller names (e.g. ``$IOGAP_OSU_PREFIX``),
then the partition's tool stack (the ToolStack fixture: the Spack view, or
the OS tools the Spack environment declares as externals, such as dd), then
PATH; for the project's own tools (:mod:`iogap.site.spack.own`) the checkout's
copy instead of PATH. A tool the prefix, the view or the environment names
but that cannot run here (:mod:`iogap.core.runnable`) fails the case,
saying why: nothing else is run in its place.
Tools that install outside ``bin/`` (OSU puts its binaries in
``libexec/osu-micro-benchmarks/mpi/<category>/``) pass ``subdirs``: they are
searched under the prefix, the view and the parent of every PATH entry. A
missing binary is a skip that names it and every place looked in. On remote
partitions the lookup happens on the compute node, so the name is only
resolved against the prefix or view, in the first sub-directory given.
'''

import os
import re
import shutil

from reframe.core.exceptions import SkipTestError

from iogap.core import runnable
from iogap.errors import IogapError


def find_tool(test, name, subdirs=('bin',), prefixes=(), what=None,
              checkout=None, runs=True):
    '''Return ``(command, provider)`` for ``name`` or skip ``test``.

    ``prefixes`` are explicit install prefixes tried first (a prefix that is
    given but lacks the tool is a skip: it is never silently bypassed);
    ``what`` names the package in skip messages; ``checkout`` is the
    project's own copy of a tool it builds, taken when the stack lacks it;
    ``runs`` is false for a file the job reads (a library, a script it
    sources) rather than runs.
    '''
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
        # A view this host sees (shared file systems) is checked even for
        # remote partitions: an OS tool is an external, not in the view
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


def _under(prefix, subdirs, name, local):
    '''``prefix/<subdir>/name`` for the first subdir holding it runnable;
    remotely (nothing to check) the first subdir.'''
    paths = [os.path.join(prefix, sub, name) for sub in subdirs]
    if not local:
        return paths[0]

    return next((p for p in paths if os.access(p, os.X_OK)), None)


def _named(prefix, subdirs, name, local):
    '''``prefix/<subdir>/name`` for the first subdir that names it,
    usable or not (a broken link too); remotely the first subdir.'''
    paths = [os.path.join(prefix, sub, name) for sub in subdirs]
    if not local:
        return paths[0]

    return next((p for p in paths if os.path.lexists(p)), None)


def _usable(label, where, path, runs, seen, local):
    '''``path``, once it can be used (``seen``: this host can check it;
    ``local``: it runs here, so its machine must be this host's); else the
    case fails naming it and why.'''
    why = runnable.why_not(path, runs, local) if seen else None
    if why:
        raise IogapError(f'{label} from {where} cannot be used: {why}: '
                         f'repair or rebuild it; no other {label} is run '
                         f'in its place')

    return path


def _on_path_prefixes(name, subdirs):
    '''Look below the parent of each PATH entry, e.g. ``/opt/osu/bin`` ->
    ``/opt/osu/libexec/...``.'''
    for entry in os.environ.get('PATH', '').split(os.pathsep):
        if entry:
            path = _under(os.path.dirname(entry.rstrip('/')), subdirs, name,
                          True)
            if path:
                return path

    return None


#: What the job says of each tool it executes (job.sh's iogap_tool)
_RESOLVED = re.compile(r'^iogap-tool: (\S+) path=(\S+) sha256=(\S+) '
                       r'version=(\S+)\s*$', re.M)


def resolved(stdout):
    '''``{name: "path sha256:digest version"}`` of every tool the job
    resolved on its node, from its ``stdout``.'''
    return {name: f'{path} sha256:{digest} {version.replace("_", " ")}'
            for name, path, digest, version in _RESOLVED.findall(stdout)}


def on_node(provider, found):
    '''``provider`` with a name left to the compute node's PATH replaced
    by the path the node resolved (``found``: :func:`resolved`'s).'''
    prefix = 'PATH (resolved on the compute node)'
    if not provider.startswith(prefix) or not found:
        return provider
    return f'PATH:{found.split()[0]} (resolved on the compute node)'
