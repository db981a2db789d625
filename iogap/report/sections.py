'''The page's sections and rendering them into ``figures.json``.'''

import dataclasses
import json
import os
from dataclasses import dataclass, field

from iogap.history.load import JUDGEMENTS, latest
from iogap.report import (
    family,
    plot_darshan,
    plot_history,
    plot_judge,
    plot_sweep,
    study,
    style,
    verdict,
)
from iogap.report.family import Section


@dataclass
class Context:
    '''What a section draws from: the newest session of each system
    (``rows``), every session (``history``), and where figures go.'''

    rows: list
    history: list
    sessions: list
    outdir: str
    look: style.Look = None
    study: list = field(default_factory=list)
    #: The results database, if any: the verdicts judge across nights too
    db: str = None


def sections():
    '''Every section, the families' and the page's own, numbered.'''
    found = sorted(family.sections() + [
        Section(2, 'sweep', 'Bandwidth against CPU clock',
                tuple(f for f, _, _ in family.sweeps()), plot_sweep.draw,
                'partitions with +cpufreq run them'),
        Section(5, 'ratios', 'Judgements: ratios, fits and absolute '
                'references', JUDGEMENTS, plot_judge.draw,
                'a reference/<system>.yaml with entries for the system'),
        Section(6, 'darshan', 'Darshan: what reached the file system',
                family.darshan(), plot_darshan.draw,
                'their darshan=on cases, on +darshan partitions'),
        Section(7, 'history', 'History across nights', (),
                plot_history.draw,
                'two or more sessions of a system: --db, or several '
                'reports')], key=lambda s: s.order)
    return [dataclasses.replace(s, title=f'{i}. {s.title}')
            for i, s in enumerate(found, 1)]


def missing_note(section):
    '''What a section without data needed.'''
    what = f'{", ".join(section.families)} cases' if section.families \
        else section.needs
    extra = f' ({section.needs})' if section.families and section.needs \
        else ''
    return f'No data: this section needs {what}{extra}.'


def render(sessions, rows, outdir, db=None):
    '''Draw every section into existing ``outdir``; returns the manifest.'''
    _remove_previous(outdir)
    current = latest(rows)
    ctx = Context(current, rows, sessions, outdir, style.Look(rows), db=db)
    for system in sorted({r.system for r in current}):
        ctx.study += study.values(system)
    drawn = []
    for section in sections():
        found = section.draw(ctx) or {}
        drawn.append({'key': section.key, 'title': section.title,
                      'families': list(section.families),
                      'figures': found.get('figures', []),
                      'notes': found.get('notes', []),
                      'table': found.get('table'),
                      'missing': None if found.get('figures') or
                      found.get('table') else missing_note(section)})
    systems = {}
    for row in rows:
        systems.setdefault(row.session.uuid, set()).add(row.system)
    manifest = {'verdicts': verdict.judged(ctx) if current else [],
                'sessions': [_session(s, systems.get(s.uuid, ()))
                             for s in sessions],
                'study_example': any(s.study_example for s in sessions),
                'sections': drawn}
    with open(os.path.join(outdir, 'figures.json'), 'w') as fp:
        json.dump(manifest, fp, indent=1)
    return manifest


def _session(s, systems):
    info = s.info
    return {'uuid': s.uuid, 'when': s.when, 'source': s.source,
            'host': info.get('hostname'), 'cmdline': info.get('cmdline'),
            'cases': info.get('num_cases'),
            'failures': info.get('num_failures'),
            'skipped': info.get('num_skipped'),
            'systems': sorted(systems),
            'node_hours': {p: round(c[1], 3) for p, c in sorted(
                s.cost.items())},
            'plan': f'night {info["plan_night"]} of '
                    f'{info.get("plan_rotation")} ({info["plan_digest"]})'
            if 'plan_digest' in info else 'all selected',
            'study_example': s.study_example,
            'study': {'file': info.get('source'),
                      'source': info.get('study_source'),
                      'unplaced': info.get('study_unplaced') or []}
            if s.study_example else None}


def _remove_previous(outdir):
    # Figures of an earlier render into the same directory would linger
    try:
        with open(os.path.join(outdir, 'figures.json')) as fp:
            files = [os.path.basename(f['file']) for s in
                     json.load(fp)['sections'] for f in s['figures']]
    except (OSError, ValueError, KeyError, TypeError):
        return
    for name in files:
        try:
            os.remove(os.path.join(outdir, name))
        except OSError:
            pass
