'''The README and docs/ as a reader follows them: every relative link and
its #anchor resolve, every repository path a page names in backticks is
there, the README stays one screen and shows the two set-up commands.'''

import glob
import os
import re

import pytest

from iogap.__main__ import COMMANDS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGES = sorted([os.path.join(ROOT, 'README.md')] + glob.glob(
    os.path.join(ROOT, 'docs', '**', '*.md'), recursive=True))
LINK = re.compile(r'\]\(([^)\s]+)\)')
#: A path into the repository, as a page names it in backticks
PATH = re.compile(r'`((?:iogap|tests|ci|bench|systems|reference|docs|checks'
                  r'|spack)/[\w./-]*\w)[`:]')


def anchors(path):
    '''The GitHub anchors of a page's headings.'''
    with open(path) as fp:
        heads = re.findall(r'^#+ (.+)$', fp.read(), re.MULTILINE)
    return {re.sub(r'[^\w\- ]', '', h.strip().lower()).replace(' ', '-')
            for h in heads}


def rel(path):
    return os.path.relpath(path, ROOT)


@pytest.mark.parametrize('page', PAGES, ids=rel)
def test_every_relative_link_resolves(page):
    with open(page) as fp:
        text = fp.read()
    broken = []
    for target in LINK.findall(text):
        if re.match(r'[a-z]+:', target):         # http:, mailto:
            continue
        file, _, anchor = target.partition('#')
        dest = os.path.normpath(os.path.join(os.path.dirname(page), file)) \
            if file else page
        if not os.path.exists(dest):
            broken.append(target)
        elif anchor and dest.endswith('.md') and anchor not in anchors(dest):
            broken.append(target)
    assert not broken, (rel(page), broken)


@pytest.mark.parametrize('page', [p for p in PAGES if not p.endswith(
    # rewritten on its own branch: its test names follow the tests' move
    os.path.join('docs', 'faults.md'))], ids=rel)
def test_every_path_a_page_names_is_there(page):
    with open(page) as fp:
        named = PATH.findall(fp.read())
    missing = sorted({p for p in named if '<' not in p and not
                      os.path.exists(os.path.join(ROOT, p))})
    assert not missing, (rel(page), missing)


def test_the_readme_is_one_screen_and_shows_both_commands():
    with open(os.path.join(ROOT, 'README.md')) as fp:
        text = fp.read()
    assert len(text.splitlines()) <= 200
    for command in ('./setup.sh suite', './setup.sh tests',
                    'reframe -C reframe_config.py -r'):
        assert command in text, command
    # every page of docs/ is reachable from the index
    with open(os.path.join(ROOT, 'docs', 'index.md')) as fp:
        index = fp.read()
    linked = {os.path.normpath(os.path.join(ROOT, 'docs', t.split('#')[0]))
              for t in LINK.findall(index)}
    assert {p for p in PAGES if '/docs/' in p} - linked == \
        {os.path.join(ROOT, 'docs', 'index.md')}


def test_every_iogap_command_a_page_names_is_one_it_has():
    '''``iogap <word>`` in the README and docs/ is a command of the parser
    (the README's list of them included).'''
    commands = set(COMMANDS)
    named = {}
    for page in PAGES:
        with open(page) as fp:
            text = fp.read()
        for line in re.findall(r'^ {4}iogap (\w+(?: \| \w+)*)$', text,
                               re.MULTILINE):
            for word in line.split(' | '):
                named.setdefault(word, rel(page))
        for word in re.findall(r'`iogap (\w+)', text):
            named.setdefault(word, rel(page))
    assert {w: p for w, p in named.items() if w not in commands} == {}
