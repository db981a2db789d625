'''Re-baseline a system's references from its own runs.

    reframe -C reframe_config.py -r --repeat 5
    iogap rebaseline output/reports/run-report-*.json

Every figure the runs measured gets an absolute reference whose band comes
from its measured spread (iogap.judge.noise); ratios are refreshed
the same way (fits, tests over a sweep, are left alone); figures too noisy to judge are listed under
``unjudged``. Entries set by hand (provenance not starting with
``baseline``) are kept unless ``--force``. The diff is printed (``--patch
FILE`` also writes it as a patch ``git apply`` takes from the repository
root, each figure it changes said first with why); the new file is
validated before it is written, and ``--dry-run`` writes nothing.

A figure that failed its reference in the runs is never re-baselined (nor
moved to ``unjudged``): a regression stays one. ``unjudged`` entries for
figures the runs did not measure are kept. For each figure left unjudged,
what would let it be judged (more repetitions, a larger size) and its
cost in the plan's model is said (iogap.plan.judgeable).
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


def _pair(key, value, indent, first):
    '''``key: value`` as lines, its collections inline, the first line
    starting with ``first``.'''
    text = dump({key: value}, flow=isinstance(value, (dict, list)))
    text = text.splitlines(True)
    return [first + text[0]] + [' ' * indent + t for t in text[1:]]


def _plain(data):
    return json.loads(json.dumps(data))


def _ident(entry):
    '''What makes an entry of a section the one it is.'''
    if isinstance(entry, dict) and 'name' in entry:
        return entry['name']
    if isinstance(entry, dict) and {'test', 'var'} <= set(entry):
        return meaning.entry_key(entry)
    return json.dumps(entry, sort_keys=True)


def _spans(lines, nodes, end):
    '''The lines of each node, up to the next one's (comments with it).'''
    starts = [n.start_mark.line for n in nodes] + [end]
    return [(starts[i], starts[i + 1]) for i in range(len(nodes))]


def _mapping(lines, lo, hi, node, old, new):
    '''A mapping's lines, a changed key's dumped in place of its own.'''
    out = lines[lo:node.value[0][0].start_mark.line]
    keys = [k for k, _ in node.value]
    for (a, b), k in zip(_spans(lines, keys, hi), keys):
        col = k.start_mark.column
        if k.value not in new:
            continue
        if new[k.value] == old.get(k.value):
            out += lines[a:b]
            continue
        out += _pair(k.value, new[k.value], col, lines[a][:col])
    return out + [t for k, v in new.items() if k not in old
                  for t in _pair(k, v, col, ' ' * col)]


def _section(lines, lo, hi, node, old, new):
    '''A list's lines: entries that did not change as they were.'''
    spans = list(zip(_spans(lines, node.value, hi), node.value, old))
    out = lines[lo:spans[0][0][0]]
    for entry in new:
        found = [s for s in spans if _ident(s[2]) == _ident(entry)]
        if not found:
            out += dump([entry]).splitlines(True)
            continue
        spans.remove(found[0])
        (a, b), item, was = found[0]
        if was == entry:
            out += lines[a:b]
        elif isinstance(item, yaml.MappingNode) and not item.flow_style:
            out += _mapping(lines, a, b, item, was, entry)
        else:
            out += dump([entry]).splitlines(True)
    return out


def edited(text, new):
    '''``new`` written over the reference file's ``text``: what did not
    change keeps its lines, comments and hand formatting, so that the
    diff shows only what changed; else the whole file dumped.'''
    text = text if text.endswith('\n') or not text else text + '\n'
    lines = text.splitlines(True)
    header = ''.join(l for l in lines if l.startswith('#'))
    try:
        root, old = yaml.compose(text), _plain(yaml.safe_load(text))
    except yaml.YAMLError:
        root = None
    if not isinstance(root, yaml.MappingNode) or not root.value:
        return header + dump(new)
    out = lines[:root.value[0][0].start_mark.line]
    for (a, b), (k, v) in zip(_spans(lines, [k for k, _ in root.value],
                                     len(lines)), root.value):
        if k.value not in new:
            continue
        if new[k.value] == old[k.value]:
            out += lines[a:b]
        elif isinstance(v, yaml.SequenceNode) and v.value and \
                isinstance(new[k.value], list):
            out += _section(lines, a, b, v, old[k.value], new[k.value])
        else:
            out += dump({k.value: new[k.value]}).splitlines(True)
    out += [dump({k: v}) for k, v in new.items() if k not in old]
    try:
        if _plain(yaml.safe_load(''.join(out))) == _plain(new):
            return ''.join(out)
    except yaml.YAMLError:
        pass
    return header + dump(new)


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
    _rebaseline(reports, system, dry_run, force, patch)


def _rebaseline(reports, system, dry_run, force, patch):
    try:
        config = profile.load(['--system', system], os.environ)
        parts = profile.parts()
        path = references.path_for(config['systems'][0]['name'])
        old_text = open(path).read() if os.path.exists(path) else ''
        data = _plain(yaml.safe_load(old_text) or {})
        data.setdefault('system', system)
        stamp = (f'baseline {datetime.date.today()} '
                 f'host={socket.gethostname()} runs='
                 f'{",".join(r["session_info"].get("uuid", "?")[:8] for r in reports)}')
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
