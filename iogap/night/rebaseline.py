'''Re-baseline a system's references from its own runs
(``iogap rebaseline output/reports/run-report-*.json``): each figure
measured gets a band from its spread (iogap.judge.noise), ratios likewise
(fits are left alone); figures too noisy go under ``unjudged`` with what
would let them be judged (iogap.plan.judgeable). Hand-set entries are kept
unless ``--force``; a figure that failed its reference never moves. The
file is edited where it changes, so the diff (``--patch FILE`` for ``git
apply``, each change said first) shows only that; ``--dry-run`` writes
nothing.
'''

import datetime
import difflib
import json
import os
import socket
import sys

import yaml

from iogap.errors import IogapError
from iogap.history import load
from iogap.history.runguard import replace_file
from iogap.judge import baselinediff, meaning, noise, references
from iogap.judge.samples import samples
from iogap.plan import judgeable
from iogap.site import profile


class _Dumper(yaml.SafeDumper):
    '''Entries one per line, like the hand-written files.'''


def _represent_dict(dumper, data):
    flow = 'test' in data or 'numerator' in data or 'name' in data
    return dumper.represent_mapping('tag:yaml.org,2002:map', data,
                                    flow_style=flow or None)


_Dumper.add_representer(dict, _represent_dict)


def dump(data, flow=False):
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, width=2**30,
                     default_flow_style=None if flow else False)


def _plain(data):
    return json.loads(json.dumps(data))


def _ident(entry):
    '''What makes an entry of a section the one it is.'''
    if isinstance(entry, dict) and ('name' in entry or 'var' in entry):
        return entry.get('name') or meaning.entry_key(entry)
    return json.dumps(entry, sort_keys=True)


def _pair(key, value, col, first):
    '''``key: value``, collections inline, its first line after ``first``.'''
    text = dump({key: value}, isinstance(value, (dict, list)))
    text = text.splitlines(True)
    return [first + text[0]] + [' ' * col + t for t in text[1:]]


def _mapping(lines, lo, hi, node, old, new):
    '''A block mapping's ``lines`` holding ``new``: a key that did not
    change keeps its own (comments too), a list is edited entry by entry,
    the rest is dumped in place.'''
    starts = [k.start_mark.line for k, _ in node.value] + [hi]
    out = lines[lo:starts[0]]
    for (k, v), a, b in zip(node.value, starts, starts[1:]):
        key, col = k.value, k.start_mark.column
        if key not in new:
            continue
        if new[key] == old.get(key):
            out += lines[a:b]
        elif not getattr(v, 'flow_style', True) and v.value and \
                type(new[key]) is type(old[key]):
            out += (_section if isinstance(v, yaml.SequenceNode) else
                    _mapping)(lines, a, b, v, old[key], new[key])
        else:
            out += _pair(key, new[key], col, lines[a][:col])
    return out + [t for k, v in new.items() if k not in old
                  for t in _pair(k, v, col, ' ' * col)]


def _section(lines, lo, hi, node, old, new):
    '''A list's ``lines`` holding ``new``: its entries by identity kept,
    edited or dumped.'''
    starts = [n.start_mark.line for n in node.value] + [hi]
    spans = list(zip(starts, starts[1:], node.value, old))
    out = lines[lo:starts[0]]
    for entry in new:
        found = next((s for s in spans if _ident(s[3]) == _ident(entry)),
                     None)
        a, b, item, was = found or (0, 0, None, None)
        if found:
            spans.remove(found)
        if was == entry:
            out += lines[a:b]
        elif isinstance(item, yaml.MappingNode) and not item.flow_style:
            out += _mapping(lines, a, b, item, was, entry)
        else:
            out += dump([entry]).splitlines(True)
    return out


def edited(text, new):
    '''``new`` over the reference file's ``text``, edited where it
    changed, comments and hand formatting kept (a diff a site reviews);
    else dumped whole.'''
    lines = (text + '\n' * (not text.endswith('\n'))).splitlines(True)
    try:
        root, old = yaml.compose(text), _plain(yaml.safe_load(text))
        if isinstance(root, yaml.MappingNode) and root.value:
            out = ''.join(_mapping(lines, 0, len(lines), root, old, new))
            if _plain(yaml.safe_load(out)) == _plain(new):
                return out
    except yaml.YAMLError:
        pass
    return ''.join(l for l in lines if l.startswith('#')) + dump(new)


def rebaseline(paths, dry_run=False, force=False, patch=None):
    '''Re-baseline the references of the system that ran ``paths`` (run
    reports): print the diff; write the patch, and unless ``dry_run`` the
    file.'''
    reports = [load.read_report(path) for path in paths]
    try:
        system = reports[0]['runs'][0]['testcases'][0]['system'].split(':')[0]
    except (KeyError, IndexError, TypeError) as err:
        raise load.InputError(f'{paths[0]} is a run report with no test '
                              f'cases ({err})') from None
    try:
        config = profile.load(['--system', system], os.environ)
        parts = profile.parts()
        path = references.path_for(config['systems'][0]['name'])
        old_text = open(path).read() if os.path.exists(path) else ''
        data = _plain(yaml.safe_load(old_text) or {})
        data.setdefault('system', system)
        runs = ','.join(r['session_info'].get('uuid', '?')[:8]
                        for r in reports)
        stamp = (f'baseline {datetime.date.today()} '
                 f'host={socket.gethostname()} runs={runs}')
        old_data = _plain(data)
        # a regression is never re-baselined: its values are left out
        kept = baselinediff.failed(reports)
        measuring = baselinediff.without(reports, *kept)
        before = data.pop('unjudged', None) or []
        notes = noise.rebaseline(data, measuring, stamp, force=force)
        measured, _ = samples(measuring)
        tonight = data.get('unjudged') or []
        data['unjudged'] = baselinediff.merge_unjudged(before, tonight,
                                                       measured)
        data = {k: v for k, v in data.items() if v not in ([], None)}
        why = baselinediff.explain(old_data, data, kept)
        why += [f'JUDGEABLE {judgeable.advice(ident, *measured[ident][::2])}'
                for ident in map(meaning.entry_key, tonight)
                if ident in measured]
        new_text = edited(old_text, data)
        check = path + '.new'
        replace_file(check, new_text)
        try:
            references.File(check, system, parts)
        finally:
            os.remove(check)
    except IogapError as err:
        raise IogapError(f'the new references would not load: {err}') from None

    rel = os.path.relpath(path, profile.ROOT)
    diff = ''.join(difflib.unified_diff(old_text.splitlines(True),
                                        new_text.splitlines(True),
                                        f'a/{rel}', f'b/{rel}'))
    sys.stdout.write(diff)
    for line in why + notes:
        print(f'rebaseline: {line}')
    if patch:
        # git apply reads past the lines before the diff: what it changes
        replace_file(patch, ''.join(f'# {line}\n' for line in why) +
                     diff)
    if not dry_run:
        replace_file(path, new_text)
        print(f'rebaseline: wrote {path}')
