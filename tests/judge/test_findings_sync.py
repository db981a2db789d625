'''docs/research/findings.md takes its numbers from the reference files: every entry
its tables name exists, and every number it states beside one (a ratio's
value and bounds, an effect's healthy and gone values and nights) is the
file's, to the digits it prints.'''

import glob
import os
import re

import pytest
import yaml

from conftest import ROOT

FINDINGS = os.path.join(ROOT, 'docs', 'research', 'findings.md')
NUMBER = r'(-?\d+(?:\.\d+)?)'


def entries():
    '''``{name: (kind, entry)}`` of every reference file's named entries,
    and the figures the files judge (``kind`` ``None``).'''
    found = {}
    for path in glob.glob(os.path.join(ROOT, 'reference', '*.yaml')):
        with open(path) as fp:
            data = yaml.safe_load(fp)
        for kind in ('ratios', 'effects', 'fits', 'mechanisms'):
            for entry in data.get(kind) or []:
                found.setdefault(entry['name'], (kind, entry))
        for kind in ('absolute', 'ratios', 'fits', 'mechanisms'):
            for entry in data.get(kind) or []:
                for side in (entry, entry.get('numerator') or {},
                             entry.get('denominator') or {}):
                    if 'var' in side:
                        found.setdefault(side['var'], (None, None))
    return found


def expand(name):
    '''``{knl,haswell}_x`` as the names it stands for.'''
    m = re.search(r'\{([^{}]*)\}', name)
    if not m:
        return [name]
    return [n for part in m.group(1).split(',') for n in
            expand(name[:m.start()] + part + name[m.end():])]


def mentions():
    '''``[(line, name, text after it in its table cell)]`` of the names
    the tables' reference column gives.'''
    found = []
    with open(FINDINGS) as fp:
        for number, line in enumerate(fp, 1):
            if not re.match(r'\| [SMBPX]\d+ \|', line):
                continue
            cells = line.split(' | ')
            for cell in cells[4:5]:
                for m in re.finditer(r'`([\w{},]+)`', cell):
                    if m.group(1).count('_') < 2:
                        continue        # a figure or a parameter
                    after = cell[m.end():].split('`')[0]
                    names = expand(m.group(1))
                    found += [(number, n, after, (i, len(names)))
                              for i, n in enumerate(names)]
    return found


def same(printed, value):
    '''``printed`` is ``value`` to the digits it shows.'''
    decimals = len(printed.split('.')[1]) if '.' in printed else 0
    return abs(float(printed) - value) <= 0.5 * 10 ** -decimals + 1e-9


def test_every_named_entry_exists():
    known = entries()
    missing = sorted({f'{line}: {name}' for line, name, _, _ in mentions()
                      if name not in known})
    assert not missing, f'docs/research/findings.md names entries no reference ' \
        f'file holds: {missing}'


def test_the_numbers_beside_an_entry_are_the_files():
    known, wrong = entries(), []
    for line, name, after, (i, of) in mentions():
        kind, entry = known.get(name, (None, None))
        said = after.split(')')[0]
        if of > 1 and len(re.findall(r'[≥≤–]', said)) == of:
            said = said.split(',')[i]       # {a,b} (≥ x, ≥ y): by place
        if kind == 'ratios':
            value, lower, upper = entry['ref']
            m = re.match(r'\s+' + NUMBER + r'\b', after)
            if m and of == 1 and not same(m.group(1), value):
                wrong.append(f'{line}: {name} {m.group(1)}, the file {value}')
            lo = None if lower is None else value * (1 + lower)
            hi = None if upper is None else value * (1 + upper)
            for sign, bound in (('≥', lo), ('≤', hi)):
                for printed in re.findall(sign + r' ' + NUMBER, said):
                    if bound is None or not same(printed, bound):
                        wrong.append(f'{line}: {name} {sign} {printed}, the '
                                     f'file {bound}')
            m = re.search(NUMBER + r'–' + NUMBER, said)
            if m and not (lo and hi and same(m.group(1), lo) and
                          same(m.group(2), hi)):
                wrong.append(f'{line}: {name} {m.group(0)}, the file '
                             f'{lo}-{hi}')
        elif kind == 'effects':
            for key, pattern in (('healthy', r'healthy ' + NUMBER),
                                 ('vanished', r'gone ' + NUMBER),
                                 ('nights', NUMBER + r' nights?\b')):
                m = re.search(pattern, said)
                want = entry.get(key, 1.0)
                if m and not same(m.group(1), want):
                    wrong.append(f'{line}: {name} {key} {m.group(1)}, the '
                                 f'file {want}')
    assert not wrong, 'docs/research/findings.md disagrees with the reference ' \
        'files:\n' + '\n'.join(wrong)


@pytest.mark.parametrize('text,names', [
    ('{knl,haswell}_a_b', ['knl_a_b', 'haswell_a_b']),
    ('x_{dram,mcdram}_{a,b}', ['x_dram_a', 'x_dram_b', 'x_mcdram_a',
                               'x_mcdram_b'])])
def test_braces_expand(text, names):
    assert expand(text) == names
