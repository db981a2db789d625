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


def dump(data):
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, width=1000,
                     default_flow_style=False)


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
        header = ''.join(l for l in old_text.splitlines(True)
                         if l.startswith('#'))
        data = json.loads(json.dumps(yaml.safe_load(old_text) or {}))
        data.setdefault('system', system)
        stamp = (f'baseline {datetime.date.today()} '
                 f'host={socket.gethostname()} runs='
                 f'{",".join(r["session_info"].get("uuid", "?")[:8] for r in reports)}')
        old_data = json.loads(json.dumps(data))
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
        new_text = header + dump(data)
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
