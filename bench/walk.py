'''The walk of one case from its check to its figures: the files a reader
opens and the run hooks on the way, measured from the code.

    python bench/walk.py [--root DIR]   (DIR: a checkout, default this one)

A case's files are its check module, the modules of every iogap class of
its family (the check's bases), the iogap modules those import, and the
project's own job-side tools those modules name (and those tools name in
turn); its hooks are the run hooks of those classes.
'''

import argparse
import inspect
import os
import re
import runpy
import sys

#: The three cases of docs/architecture.md: check module, family
CASES = {'dd': ('checks/dd.py', 'DDSingleStream'),
         'IOR': ('checks/ior.py', 'IORCollective'),
         'OSU': ('checks/osu.py', 'OSULatency')}

#: Modules that list every shell tool (the package's manifest), whose
#: mention says nothing about which ones a case runs
_MANIFESTS = ('iogap/tools/own.py',)


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
    '''The project's job-side tools (iogap/tools/own.py) named by the
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


def walk(root, check, family):
    '''``(files, hooks, classes)`` of the case of ``family``.'''
    sys.path.insert(0, root)
    from iogap import profile
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


def main():
    args = argparse.ArgumentParser(description=__doc__)
    args.add_argument('--root', default=os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    root = os.path.abspath(args.parse_args().root)
    for name, (check, family) in CASES.items():
        files, hooks, classes = walk(root, check, family)
        print(f'{name} ({family}): {len(files)} files, {hooks} hooks, '
              f'{classes} classes')
        print('  ' + ' '.join(files))


if __name__ == '__main__':
    main()
