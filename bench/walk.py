'''The walk of one case from its check to its figures: the files a reader
opens and the run hooks on the way, measured from the code.

    python bench/walk.py [--root DIR] [--verdict]   (DIR: a checkout,
                                                     default this one)

A case's files are its check module, the modules of every iogap class of
its family (the check's bases), the iogap modules those import, and the
project's own job-side tools those modules name (and those tools name in
turn); its hooks are the run hooks of those classes.

Then the files a reader reaches by following imports (``followed``):
every project module (``iogap.*``, ``checks.*``) the check imports, and
those they import in turn, anywhere in a module (an import inside a
function is a file to open as well), with the packages' ``__init__``
they run; read with :mod:`ast`, nothing imported or run. The job-side
tools they name are counted as above. ``--verdict`` adds the judgement's
path: ``checks/judge.py`` and what it imports, beyond the case's files.
'''

import argparse
import ast
import inspect
import os
import re
import runpy
import sys

#: The three cases of docs/architecture.md: check module, family
CASES = {'dd': ('checks/dd.py', 'DDSingleStream'),
         'IOR': ('checks/ior.py', 'IORCollective'),
         'OSU': ('checks/osu.py', 'OSULatency')}

#: Where a judgement starts: the check that judges every case
VERDICT = 'checks/judge.py'

#: The project's top-level packages whose imports the walk follows
PROJECT = ('iogap', 'checks')

#: Modules that list every shell tool (the package's manifest), whose
#: mention says nothing about which ones a case runs
_MANIFESTS = ('iogap/site/spack/own.py',)


def _imported(modules, root):
    files = set()
    for mod in modules:
        files.add(os.path.relpath(inspect.getfile(mod), root))
        for value in vars(mod).values():
            other = inspect.getmodule(value)
            if other and other.__name__.startswith('iogap.') and \
                    other.__name__ != 'iogap.errors':
                files.add(os.path.relpath(inspect.getfile(other), root))
    return files


def _shell_tools(files, root):
    '''The project's job-side tools (iogap/site/spack/own.py) named by the
    modules ``files``, and those the named tools name in turn.'''
    tools = runpy.run_path(os.path.join(root, _MANIFESTS[0]))['FILES']
    texts = [open(os.path.join(root, f)).read() for f in files
             if f.endswith('.py') and f not in _MANIFESTS]
    named, fresh = set(), texts
    while fresh:
        found = {path for name, path in tools.items() if path not in named
                 and any(re.search(rf"[/'\"]{re.escape(name)}['\"]", text)
                         for text in fresh)}
        named |= found
        fresh = [open(os.path.join(root, path)).read() for path in found]
    return named


def module_file(root, name):
    '''The project's file of module ``name`` (relative), or ``None``.'''
    base = os.path.join(*name.split('.'))
    for path in (base + '.py', os.path.join(base, '__init__.py')):
        if os.path.isfile(os.path.join(root, path)):
            return path
    return None


def _named(path, tree):
    '''Dotted names every import statement of ``tree`` (the file
    ``path``) may load: a module, or a name in one.'''
    here = os.path.splitext(path)[0].replace(os.sep, '.').split('.')
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = '.'.join(here[:-node.level] + [node.module or ''] if
                            node.level else [node.module]).strip('.')
            names |= {base} | {f'{base}.{a.name}' for a in node.names}
    return names


def imports(root, path):
    '''The project's files the file ``path`` imports, with the packages'
    ``__init__`` an import runs.'''
    with open(os.path.join(root, path)) as fp:
        tree = ast.parse(fp.read(), path)
    found = set()
    for name in _named(path, tree):
        parts = name.split('.')
        if parts[0] in PROJECT:
            found |= {module_file(root, '.'.join(parts[:i]))
                      for i in range(1, len(parts) + 1)}
    return found - {None}


def follow(root, starts):
    '''Every file reached from ``starts`` by following imports, and the
    job-side tools they name.'''
    seen, todo = set(), list(starts)
    while todo:
        path = todo.pop()
        if path not in seen:
            seen.add(path)
            todo += imports(root, path) - seen
    return sorted(seen | _shell_tools(seen, root))


def lines(root, files):
    '''Lines in ``files``, together.'''
    total = 0
    for path in files:
        with open(os.path.join(root, path), 'rb') as fp:
            total += fp.read().count(b'\n')
    return total


def walk(root, check, family):
    '''``(files, hooks, classes)`` of the case of ``family``.'''
    sys.path.insert(0, root)
    from iogap.site import profile
    from iogap.core import registry
    if profile.current() is None:    # the tests have loaded it already
        profile.load(['--system', 'cori'], {})
    cls = registry.get(family)
    classes = [k for k in cls.__mro__ if k.__module__.startswith('iogap')]
    files = _imported({sys.modules[k.__module__] for k in classes}, root)
    files |= _shell_tools(files, root)
    hooks = sum(1 for k in classes for v in vars(k).values()
                if hasattr(v, '_rfm_attach'))
    return sorted({check, *files}), hooks, len(classes)


def family_dir(family):
    '''The directory of the package that holds ``family`` (after
    :func:`walk` loaded the registry).'''
    from iogap.core import registry
    return registry.get(family).__module__.rpartition('.')[0].replace(
        '.', '/')


def main():
    args = argparse.ArgumentParser(description=__doc__)
    args.add_argument('--root', default=os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    args.add_argument('--verdict', action='store_true',
                      help=f'also follow the judgement ({VERDICT} and what '
                           f'it imports)')
    given = args.parse_args()
    root = os.path.abspath(given.root)
    for name, (check, family) in CASES.items():
        files, hooks, classes = walk(root, check, family)
        print(f'{name} ({family}): {len(files)} files, {hooks} hooks, '
              f'{classes} classes, {lines(root, files)} lines')
        print('  ' + ' '.join(files))
        followed = follow(root, [check])
        own = [f for f in followed if f == check or
               f.startswith(family_dir(family) + '/')]
        print(f'  followed: {len(followed)} files, '
              f'{lines(root, followed)} lines, of which the family\'s own '
              f'(its check and package) {len(own)} files, '
              f'{lines(root, own)} lines')
        print('  ' + ' '.join(followed))
        if given.verdict:
            more = sorted(set(follow(root, [VERDICT])) - set(followed))
            print(f'  verdict: +{len(more)} files, {lines(root, more)} '
                  f'lines ({VERDICT} and what it imports)')
            print('  ' + ' '.join(more))


if __name__ == '__main__':
    main()
