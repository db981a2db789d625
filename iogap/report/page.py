'''``index.html``: one self-contained page (figures embedded) from the
manifest that :func:`iogap.report.sections.render` returns.'''

import base64
import html
import os

from iogap.history.runguard import replace_file

CSS = '''
body { font-family: system-ui, sans-serif; max-width: 1200px; margin: 1em auto;
       padding: 0 1em; color: #212121; }
h1 { font-size: 1.5em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
.disclaimer { background: #fff3cd; border: 2px solid #b58100; padding: .8em;
              font-size: 1.1em; }
.missing { color: #8d6e00; font-style: italic; }
table { border-collapse: collapse; font-size: .85em; margin: .5em 0; }
td, th { border: 1px solid #ddd; padding: 2px 6px; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.fail td { background: #fdecea; } tr.pass td.verdict { color: #2e7d32; }
tr.fail td.verdict { color: #c62828; font-weight: bold; }
tr.na td.verdict { color: #757575; font-style: italic; }
figure { margin: 1em 0; } img { max-width: 100%; }
figcaption, .note { font-size: .9em; color: #555; }
.verdict { border-radius: 6px; padding: .6em 1em; margin: .6em 0;
           color: #fff; }
.verdict .status { margin: 0; font-size: 1.6em; font-weight: bold; }
.verdict p { margin: .3em 0 0; }
.GREEN { background: #2e7d32; } .RED { background: #c62828; }
.NOT-JUDGED, .UNDER-JUDGED { background: #8d6e00; }
ul.problems { list-style: none; padding: 0; }
ul.problems li { margin: .2em 0; }
.kind { font-weight: bold; color: #c62828; display: inline-block;
        min-width: 8em; }
svg.spark { vertical-align: middle; margin-left: .5em; }
'''
NO_HISTORY = '; not judged across nights (no history given: --db)'


def esc(text):
    return html.escape(str(text))


def _image(outdir, entry):
    with open(os.path.join(outdir, entry['file']), 'rb') as fp:
        data = base64.b64encode(fp.read()).decode()
    return (f'<figure><img alt="{esc(entry["title"])}" '
            f'src="data:image/png;base64,{data}">'
            f'<figcaption>{esc(entry["caption"])} '
            f'({esc(entry["file"])})</figcaption></figure>')


def _table(table):
    '''``{'head', 'rows', 'classes', 'verdict', 'shown'}`` as a table, its
    first ``shown`` rows open and all of them folded below.'''
    head = '<table><tr>' + ''.join(
        f'<th>{esc(h)}</th>' for h in table['head']) + '</tr>\n'
    body = []
    for cells, cls in zip(table['rows'], table.get('classes') or
                          [''] * len(table['rows'])):
        tds = ''.join(
            f'<td class="{"num" if isinstance(c, (int, float)) else ""}'
            f'{" verdict" if i == table.get("verdict") else ""}">'
            f'{esc(_fmt(c))}</td>' for i, c in enumerate(cells))
        body.append(f'<tr class="{esc(cls)}">{tds}</tr>')
    whole = head + '\n'.join(body) + '</table>'
    shown = table.get('shown')
    if shown and len(body) > shown:
        return (head + '\n'.join(body[:shown]) + '</table><details><summary>'
                f'all {len(body)} rows</summary>{whole}</details>')
    return whole


def _fmt(value):
    if isinstance(value, float):
        return f'{value:.4g}'
    return '' if value is None else value


def _spark(values, width=120, height=22):
    '''A series of nights as a small inline line, the newest marked.'''
    if len(values) < 2:
        return ''
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    step = width / (len(values) - 1)
    points = ' '.join(
        f'{i * step:.1f},{height - 2 - (v - low) / span * (height - 4):.1f}'
        for i, v in enumerate(values))
    x, y = points.split()[-1].split(',')
    return (f'<svg class="spark" width="{width}" height="{height}" '
            f'role="img" aria-label="{len(values)} nights">'
            f'<polyline fill="none" stroke="#555" points="{points}"/>'
            f'<circle cx="{x}" cy="{y}" r="2.5" fill="#c62828"/></svg>')


def _verdicts(manifest):
    '''Each system's night: its verdict, coverage and what went wrong.'''
    out = []
    for night in manifest.get('verdicts', []):
        status, lines = night['status'], night['lines']
        coverage = [line for line in lines if line.startswith('COVERAGE')]
        out.append(
            f'<div class="verdict {status.replace(" ", "-")}" '
            f'id="verdict-{esc(night["system"])}"><p class="status">'
            f'{esc(status)}: {esc(night["system"])}, night of '
            f'{esc(night["when"])}</p>'
            f'<p>{esc(lines[-1])}</p>' +
            ''.join(f'<p>{esc(c)}</p>' for c in coverage) +
            f'<p>partitions {esc(", ".join(night["partitions"]))}; '
            f'sessions {esc(", ".join(night["sessions"]))}'
            f'{"" if night["across"] else NO_HISTORY}'
            f'</p></div>')
        if night['problems']:
            out.append('<ul class="problems">' + ''.join(
                f'<li><span class="kind">{esc(p["kind"])}</span>'
                f'{esc(p["text"])}{_spark(p["series"])}</li>'
                for p in night['problems']) + '</ul>')
    return out


def _header(manifest):
    out = []
    for study in [s['study'] for s in manifest['sessions'] if s['study']]:
        out.append(
            '<p class="disclaimer"><strong>Drawn from the study\'s published '
            'figures, not from a run.</strong> Cori was retired in 2023; '
            'every value of system <code>cori</code> on this page is a '
            'figure of the CUG\'17 study as recorded, each with its source, '
            f'in <code>{esc(study["file"])}</code> (a few are derived from '
            'the study\'s figures; their provenance says so). Bars and dots '
            'therefore sit on their references by construction. Sources: '
            f'{esc(study["source"])}.</p>')
        if study['unplaced']:
            out.append('<p class="note">Entries the example could not place '
                       'on a figure: ' + esc('; '.join(study['unplaced'])) +
                       '</p>')
    out.append('<p class="note">The sections draw the newest night of '
               'each system (every session of a night split per '
               'partition); the history draws every night. Inputs: at the '
               'end of the page.</p>')
    missing = [s for s in manifest['sections'] if s['missing']]
    if missing:
        out.append('<p>Sections without data:</p><ul>' + ''.join(
            f'<li>{esc(s["title"])}: {esc(s["missing"])}</li>'
            for s in missing) + '</ul>')
    return out


def write(manifest, outdir):
    '''Write ``index.html`` into ``outdir``; returns its path.'''
    systems = sorted({n for s in manifest['sessions'] for n in s['systems']})
    parts = [f'<h1>iogap report: {esc(", ".join(systems) or "no data")}</h1>']
    parts += _verdicts(manifest)
    parts += _header(manifest)
    for section in manifest['sections']:
        parts.append(f'<h2 id="{section["key"]}">{esc(section["title"])}</h2>')
        if section['missing']:
            parts.append(f'<p class="missing">{esc(section["missing"])}</p>')
        parts += [f'<p class="note">{esc(n)}</p>' for n in section['notes']]
        parts += [_image(outdir, e) for e in section['figures']]
        if section['table']:
            parts.append(_table(section['table']))
    rows = [[s['when'], ', '.join(s['systems']), s['host'], s['cases'],
             s['failures'], s['skipped'], ', '.join(
                 f'{p} {h:.3g}' for p, h in s['node_hours'].items()),
             s['plan'], s['source'], s['uuid']]
            for s in manifest['sessions']]
    parts.append('<h2 id="inputs">Inputs</h2>' + _table({
        'head': ['session start', 'systems', 'host', 'cases', 'failures',
                 'skipped', 'node-hours (measured)', 'plan', 'source',
                 'uuid'], 'rows': rows, 'shown': 12}))
    path = os.path.join(outdir, 'index.html')
    # Whole or not at all: a full disk keeps the last page
    replace_file(path, '<!DOCTYPE html>\n<html lang="en"><head>'
                 '<meta charset="utf-8">'
                 f'<title>iogap report: {esc(", ".join(systems))}</title>'
                 f'<style>{CSS}</style></head><body>\n' +
                 '\n'.join(parts) + '\n</body></html>\n')
    return path
