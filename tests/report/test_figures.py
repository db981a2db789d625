'''Each figure is declared once: docs/reference/figures.md is what the
declarations say, and no module outside a family package spells a declared
figure's name (the report, the plan, the judgements, the pipeline and the
benchmarks import the declaration).'''

import itertools
import os
import re
import runpy

from conftest import ROOT

#: The doc generator (docs/generate.py): the page, and what it lists
GENERATE = runpy.run_path(os.path.join(ROOT, 'docs', 'generate.py'))
catalog = GENERATE['catalog']

#: Where figures are used, never declared
USERS = ('iogap/report', 'iogap/plan', 'iogap/judge', 'iogap/night',
         'iogap/site', 'iogap/history', 'bench')


def names(fig):
    '''Every concrete name of a figure whose fields are finite.'''
    if any(not isinstance(v, tuple) for v in fig.fields.values()):
        return []
    keys = list(fig.fields)
    return [fig.template.format(**dict(zip(keys, combo)))
            for combo in itertools.product(*(fig.fields[k] for k in keys))]


def sources():
    for top in USERS:
        path = os.path.join(ROOT, top)
        if path.endswith('.py'):
            yield path
        for folder, _, files in os.walk(path):
            yield from (os.path.join(folder, n) for n in files
                        if n.endswith('.py'))


def test_the_doc_is_what_the_declarations_say():
    with open(os.path.join(ROOT, 'docs', 'reference', 'figures.md')) as fp:
        assert fp.read() == GENERATE['figures'](), (
            'regenerate docs/reference/figures.md: python docs/generate.py '
            'figures > docs/reference/figures.md')


def test_every_figure_has_a_meaning():
    assert [f.template for _, f in catalog() if not f.meaning] == []


def test_no_user_of_a_figure_spells_its_name():
    declared = {n for _, f in catalog() for n in names(f)}
    assert {'write_bw', 'read_once_bw', 'latency_smallest'} <= declared
    # and templates built by hand: f'{phase}_bw'
    tails = {f.template.rsplit('}', 1)[1] for _, f in catalog()
             if f.fields and len(f.template.rsplit('}', 1)[1]) > 2}
    assert '_bw' in tails
    spelled = []
    for path in sources():
        with open(path) as fp:
            text = fp.read()
        for literal in re.findall(r'''['"]([a-z0-9_]+)['"]''', text):
            if literal in declared:
                spelled.append(f'{os.path.relpath(path, ROOT)}: {literal}')
        spelled += [f'{os.path.relpath(path, ROOT)}: {{...}}{tail}'
                    for tail in tails if f"}}{tail}'" in text or
                    f'}}{tail}"' in text]
    assert spelled == []
