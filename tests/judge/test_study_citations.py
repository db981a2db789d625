'''Every citation of the study names a public source and a place in it
that docs/study.md lists, and a figure a Cori entry quotes is in the row
of docs/study.md's findings table that cites the same place.

A citation is a source's key (docs/study.md, "Sources") and a slide or a
section: ``CUG17 slide 14 "Same KNL IO Issue Confirmed at ANL"``,
``NERSC-KNL-IO §"Core Specialization"``. A place without a key belongs to
the key last named before it (``CUG17 slide 10 "Haswell vs KNL" and slide
14 "..."``); a slide without its title (``(slide 14)``) refers back to
one the same text cites in full. The findings table quotes each figure as
its source prints it; these tests hold the reference files and the docs
to it, reading this repository only.'''

import glob
import os
import re

import yaml

from conftest import ROOT

STUDY = os.path.join(ROOT, 'docs', 'study.md')

#: A place: ``slide 14 "title"``, ``slide 14`` or ``§"section"``, with the
#: word before it (a key, or none)
_PLACE = re.compile(r'(?:(\S+) )?(?:slide (\d+)(?: "([^"]+)")?|§"([^"]+)")')


def _norm(text):
    return re.sub(r'\s+', ' ', text).strip()


def _table(markdown, heading):
    '''The rows of the first table under ``## heading``, as cell lists.'''
    section = markdown.split(f'\n## {heading}\n', 1)[1].split('\n## ')[0]
    rows = [line for line in section.splitlines() if line.startswith('|')]
    return [[cell.strip() for cell in row.strip('|').split('|')]
            for row in rows[2:]]


def study():
    '''``(keys, places, findings)`` of docs/study.md: places maps
    ``(key, slide number)`` to its title and ``(key, '§', section)`` to
    True; findings is ``[(id, figures, {places})]``.'''
    with open(STUDY) as fp:
        markdown = fp.read()
    keys = [row[0] for row in _table(markdown, 'Sources')]
    places = {}
    for key, *pairs in _table(markdown, 'Places'):   # two places a row
        assert key in keys, (key, pairs)
        for place, heading in zip(pairs[::2], pairs[1::2]):
            if place == '§':
                places[(key, '§', heading)] = True
            elif place:
                places[(key, int(place.split()[1]))] = heading
    findings = []
    for fid, _, figures, source in _table(markdown, 'Findings'):
        cited = set()
        for part in source.split(';'):
            key, _, rest = part.strip().partition(' ')
            assert key in keys, (fid, part)
            numbers = re.fullmatch(r'slides? ([\d, ]+)', rest)
            if numbers:
                cited |= {(key, int(n))
                          for n in re.findall(r'\d+', numbers.group(1))}
            else:
                sections = re.findall(r'§"([^"]+)"', rest)
                assert sections, (fid, part)
                cited |= {(key, '§', s) for s in sections}
        assert cited <= set(places), (fid, cited - set(places))
        findings.append((fid, figures, cited))
    return keys, places, findings


def _looks_like_a_key(word):
    return bool(re.fullmatch(r'[A-Z][A-Za-z]*\d+|[A-Z]{2,}[A-Z0-9-]*', word))


def citations(text, keys, places):
    '''``(cited, problems)``: the places ``text`` cites and what in it is
    wrong (an unknown key, a place or title docs/study.md does not list).'''
    text = _norm(text)
    keyword = re.compile(r'\b(' + '|'.join(map(re.escape, keys)) + r')\b')
    cited, full, problems = [], set(), []
    for m in _PLACE.finditer(text):
        word, number, title, section = m.groups()
        word = word.strip('(,;:') if word else word
        if word in keys:
            key = word
        elif word and _looks_like_a_key(word):
            problems.append(f'unknown source key {word!r}: {m.group(0)}')
            continue
        else:
            named = keyword.findall(text[:m.start()])
            if not named:
                problems.append(f'no source key before {m.group(0)!r}')
                continue
            key = named[-1]
        if section is not None:
            place = (key, '§', section)
            if place not in places:
                problems.append(f'{key} §"{section}" is not in docs/study.md')
                continue
        else:
            place = (key, int(number))
            if place not in places:
                problems.append(f'{key} slide {number} is not in '
                                f'docs/study.md')
                continue
            if title is not None:
                if title != places[place]:
                    problems.append(f'{key} slide {number} is '
                                    f'"{places[place]}", not "{title}"')
                    continue
                full.add(place)
            elif place not in full:
                problems.append(f'{key} slide {number} without its title '
                                f'before a full citation of it')
                continue
        cited.append(place)
    return cited, problems


def texts():
    for path in sorted(glob.glob(os.path.join(ROOT, 'reference', '*.yaml'))):
        with open(path) as fp:
            data = yaml.safe_load(fp)
        for kind in ('absolute', 'ratios', 'fits', 'mechanisms', 'effects',
                     'noise'):
            for entry in data.get(kind) or []:
                text = entry.get('provenance') or entry.get('source')
                yield os.path.basename(path), kind, entry, text


def comments(path):
    '''The comment blocks of a YAML file, each joined into one text.'''
    blocks, block = [], []
    with open(path) as fp:
        for line in fp:
            stripped = line.strip()
            if stripped.startswith('#'):
                block.append(stripped.lstrip('#'))
            elif block:
                blocks.append(' '.join(block))
                block = []
    return blocks + ([' '.join(block)] if block else [])


def test_study_md_lists_every_source_place_and_finding():
    keys, places, findings = study()
    assert keys == ['CUG17', 'NERSC-KNL-IO', 'NUG17', 'Allinea', 'EPCC']
    assert len([p for p in places if p[0] == 'CUG17']) == 34
    ids = {fid for fid, _, _ in findings}
    with open(os.path.join(ROOT, 'docs', 'research', 'findings.md')) as fp:
        listed = set(re.findall(r'^\| ([SMBPX]\d+) \|', fp.read(), re.M))
    assert len(listed) == 57 and listed <= ids, listed - ids


def test_every_reference_citation_is_in_study_md():
    keys, places, _ = study()
    count = 0
    for name, kind, entry, text in texts():
        cited, problems = citations(text or '', keys, places)
        assert not problems, (name, kind, problems, text)
        count += len(cited)
    for path in sorted(glob.glob(os.path.join(ROOT, 'reference', '*.yaml'))):
        for block in comments(path):
            _, problems = citations(block, keys, places)
            assert not problems, (os.path.basename(path), problems, block)
    assert count > 150


def test_every_docs_citation_is_in_study_md():
    keys, places, _ = study()
    count = 0
    for name in ('research/findings.md', 'study.md'):
        with open(os.path.join(ROOT, 'docs', name)) as fp:
            markdown = fp.read()
        # a table row, or a paragraph, is one text (study.md's tables are
        # the list itself, read by study())
        for block in markdown.split('\n\n'):
            if block.startswith('|') and name == 'study.md':
                continue
            for text in (block.splitlines() if block.startswith('|')
                         else [block]):
                cited, problems = citations(text.replace('`', ''), keys,
                                            places)
                assert not problems, (name, problems, text[:200])
                count += len(cited)
    assert count > 100


def test_every_cori_judgement_cites_a_place():
    keys, places, _ = study()
    for name, kind, entry, text in texts():
        if name == 'cori.yaml' and kind != 'noise':
            cited, _ = citations(text, keys, places)
            assert cited, (kind, entry.get('name'), text)
        # the KNL 7250's turbo clock is in no source: only as an inference
        if '1.6 GHz' in (text or ''):
            assert 'inference' in text and 'no source' in text, text


def _held(text, keys, places, findings):
    '''The figures of the findings rows that cite a place ``text`` cites,
    spaces removed.'''
    cited, problems = citations(text, keys, places)
    assert not problems, problems
    return [figures.replace(' ', '') for _, figures, rows in findings
            if rows & set(cited)]


def test_a_quoted_figure_is_in_its_places_findings_row():
    # the reference value of an absolute entry or a ratio the source
    # states, e.g. 306 MB/s, 45.21 MB/s, 3.46 (a percentage as printed)
    # (MiB/s are converted from the source's GB/s)
    keys, places, findings = study()
    checked = 0
    for name, kind, entry, text in texts():
        if name != 'cori.yaml' or kind not in ('absolute', 'ratios') or \
                entry['unit'] == 'MiB/s' or 'inference' in text.lower() or \
                'derived' in text or 'no figure' in text \
                or 'ref' not in entry:
            continue
        value = f'{entry["ref"][0]:g}'
        printed = {value, value.rstrip('0'), f'{entry["ref"][0]:.2f}',
                   f'{100 * entry["ref"][0]:.0f}%'}
        held = _held(text, keys, places, findings)
        assert any(p in figures for p in printed for figures in held), \
            (name, entry.get('name') or entry['test'], value, text)
        checked += 1
    assert checked > 20


def test_a_quoted_r_square_is_in_its_places_findings_row():
    # Effects and clock gains quote the study's r² ("r2 0.95 -> 0.16")
    # without a reference value of their own: the r² must be in a findings
    # row that cites a place the entry cites
    keys, places, findings = study()
    checked = 0
    for name, kind, entry, text in texts():
        quoted = re.findall(r'r2 (0\.\d+)(?: -> (0\.\d+))?', text or '')
        if not quoted:
            continue
        held = _held(text, keys, places, findings)
        for value in (v for pair in quoted for v in pair if v):
            assert any(value in figures for figures in held), \
                (name, kind, entry.get('name'), value, text)
            checked += 1
    assert checked > 5


def test_a_curves_figure_is_in_its_places_findings_row():
    # a curve (a ratio over a sweep) quotes the study's one figure for the
    # whole curve (1.52X for the FPP 1-32 processes), its reading marked
    # an inference: the figure itself must still be in the row
    keys, places, findings = study()
    checked = 0
    for name, kind, entry, text in texts():
        if kind != 'ratios' or 'over' not in entry:
            continue
        value = f'{entry["ref"][0]:g}'
        held = _held(text, keys, places, findings)
        assert any(f'{value}X' in figures for figures in held), \
            (name, entry['name'], value, text)
        checked += 1
    assert checked >= 1


def test_no_file_points_into_this_machines_copies_of_the_sources():
    # the study's texts are cited by public title (docs/study.md), never
    # by a path or line of a local copy
    found = []
    for folder in ('reference', 'docs', 'iogap', 'systems'):
        for path in glob.glob(os.path.join(ROOT, folder, '**', '*'),
                              recursive=True):
            if not os.path.isfile(path) or path.endswith(('.pyc', '.png')):
                continue
            with open(path, errors='replace') as fp:
                text = fp.read()
            if 'seeds/' in text or 'STUDY.md' in text or \
                    re.search(r"`00[0-4]:\d", text):
                found.append(os.path.relpath(path, ROOT))
    assert not found, found


def test_a_wrong_key_place_or_title_fails():
    keys, places, findings = study()
    good = 'CUG17 slide 14 "Same KNL IO Issue Confirmed at ANL": 306 MB/s'
    assert citations(good, keys, places) == ([('CUG17', 14)], [])
    for bad in ('CUG18 slide 14 "Same KNL IO Issue Confirmed at ANL"',
                'CUG17 slide 15 "Same KNL IO Issue Confirmed at ANL"',
                'CUG17 slide 99 "Same KNL IO Issue Confirmed at ANL"',
                'NERSC-KNL-IO §"Core specialisation"',
                'slide 14 "Same KNL IO Issue Confirmed at ANL"',
                'CUG17 slide 10 "Haswell vs KNL": 306 (slide 14)'):
        assert citations(bad, keys, places)[1], bad
