'''A family is one place: the planner and the page name none (each family
package states its own cost model and its own section of the page, found
through the registry), and no import runs in a circle.'''

import ast
import os
import re
import sys

import pytest

from conftest import ROOT
from iogap.core import registry
from iogap.errors import IogapError

sys.path.insert(0, os.path.join(ROOT, 'bench'))
import walk  # noqa: E402 (bench/ is no package)

#: Where no family may be named
GENERIC = ('iogap/plan', 'iogap/report')

#: The project's packages whose imports the circle check follows
PROJECT = ('iogap', 'ci', 'checks')


def _files(*tops):
    return sorted(os.path.relpath(os.path.join(d, f), ROOT)
                  for top in tops for d, _, fs in
                  os.walk(os.path.join(ROOT, top)) for f in fs
                  if f.endswith('.py'))


def _tree(path):
    with open(os.path.join(ROOT, path)) as fp:
        return ast.parse(fp.read(), path)


def _module_file(name):
    '''The project's file of module ``name``, as the walk finds it.'''
    return walk.module_file(ROOT, name)


def _imported(tree):
    '''The modules each import statement of ``tree``, anywhere in it,
    binds: ``from a import b`` binds ``a.b`` where that is a module.'''
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                name = f'{node.module}.{a.name}'
                yield name if _module_file(name) else node.module


def test_the_planner_and_the_page_name_no_family():
    packages, families = registry.packages(), registry.names()
    assert packages and families
    for path in _files(*GENERIC):
        tree = _tree(path)
        for name in _imported(tree):
            assert not any(name == p or name.startswith(p + '.')
                           for p in packages), (path, name)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                named = [f for f in families
                         if re.search(rf'\b{f}\b', node.value)]
                assert not named, (path, named)


def test_every_family_package_states_its_cost_and_its_section():
    from iogap.plan import cost
    from iogap.report import family, sections
    assert set(cost.models()) == set(registry.packages())
    assert all(callable(m.geometry) for m in cost.models().values())
    drawn = {f for s in sections.sections() for f in s.families}
    # every family with a report module is on the page
    assert set(family.short_names()) <= drawn
    assert [s.title.split('.')[0] for s in sections.sections()] == \
        [str(i) for i in range(1, len(sections.sections()) + 1)]


def test_a_family_package_without_a_cost_model_is_one_line(monkeypatch):
    from iogap.plan import cost
    cost.models.cache_clear()
    monkeypatch.setattr(registry, 'packages', lambda: ['iogap.judge'])
    try:
        with pytest.raises(IogapError, match=r'^iogap.judge states no cost '
                           r'model: add iogap/judge/cost.py with '
                           r'geometry\(case\)'):
            cost.models()
    finally:
        cost.models.cache_clear()


def _circles(graph):
    '''The strongly connected groups of more than one module (Tarjan).'''
    index, low, stack, found = {}, {}, [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = stack[stack.index(v):]
            del stack[stack.index(v):]
            if len(group) > 1:
                found.append(sorted(group))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_no_import_runs_in_a_circle():
    '''Over iogap/, ci/nightly/ and checks/, imports inside functions
    included: night.py and provenance.py, plan/__main__.py and
    plan/doc.py, plan/ran.py and report/load.py each were one.'''
    files = _files('iogap', os.path.join('ci', 'nightly'), 'checks')
    graph = {path: set() for path in files}
    for path in files:
        for name in _imported(_tree(path)):
            target = name.split('.')[0] in PROJECT and _module_file(name)
            if target in graph and target != path:
                graph[path].add(target)
    assert _circles(graph) == []


def test_the_walk_follows_imports_and_the_tools_they_name(tmp_path):
    '''An import inside a function is followed as well, with the
    package's ``__init__`` it runs, and so are the job-side tools the
    modules name; on the real dd case every file of the family's walk is
    among those followed, and the verdict starts at checks/judge.py.'''
    for path, text in {
            'checks/one.py': 'from iogap.fam import a\n',
            'iogap/__init__.py': '', 'iogap/fam/__init__.py': '',
            'iogap/fam/a.py': 'def f():\n    from iogap.fam import b\n',
            'iogap/fam/b.py': "TOOL = 'probe.sh'\n",
            'iogap/fam/probe.sh': 'echo\n', 'iogap/fam/unused.py': '',
            'iogap/site/spack/own.py': "FILES = {'probe.sh': "
                                  "'iogap/fam/probe.sh'}\n"}.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    followed = walk.follow(str(tmp_path), ['checks/one.py'])
    assert followed == ['checks/one.py', 'iogap/__init__.py',
                        'iogap/fam/__init__.py', 'iogap/fam/a.py',
                        'iogap/fam/b.py', 'iogap/fam/probe.sh']
    assert walk.lines(str(tmp_path), followed) == 5
    dd = walk.follow(ROOT, ['checks/dd.py'])
    files, _, _ = walk.walk(ROOT, 'checks/dd.py', 'DDSingleStream')
    assert set(files) <= set(dd)
    assert 'iogap/judge/judgement.py' in walk.follow(ROOT, [walk.VERDICT])
