'''Every judgement at a glance: a dot (green pass, red fail) on its
reference band, measured over reference on one log axis; the table gives
the numbers, the provenance and the judgements N/A on the host.'''

import math
import os

import yaml

from iogap.history import load
from iogap.history.load import JUDGEMENTS, NOT_APPLICABLE
from iogap.judge import coverage, references
from iogap.report import labels, style

KINDS = {'AbsoluteCheck': 'absolute references',
         'RatioCheck': 'ratios', 'FitCheck': 'fits over the CPU clock',
         'MechanismCheck': 'mechanisms observed directly'}
LIMIT = 2 ** 4      # the axis spans at most 1/16x to 16x the reference


def label(row):
    '''A judgement in a few words: its name, or what an absolute judges.'''
    if row.verdict == NOT_APPLICABLE:
        return row.figure
    if row.family != 'AbsoluteCheck':
        return row.judgement
    family, part, params = row.target()
    return f'{part} {labels.case_label(family, params)}: {row.figure}'


def normalised(row):
    '''``(value, low, high)`` over the reference (open sides ``None``).'''
    low, high = row.band()
    return tuple(None if v is None else v / row.ref
                 for v in (row.value, low, high))


def limits(shown):
    '''Log-axis limits symmetric about 1 that hold every value, to LIMIT.'''
    finite = [abs(math.log2(v)) for s in shown for v in s if v and v > 0]
    span = min(max(finite + [1]) + 0.5, math.log2(LIMIT))
    return 2 ** -span, 2 ** span


def chart(ctx, kind, rows):
    plt = style.pyplot()
    height = 1.6 + 0.27 * len(rows)
    fig, ax = plt.subplots(figsize=(11, height), layout='constrained')
    shown = [normalised(r) for r in rows]
    lo, hi = limits(shown)
    for y, (row, (value, low, high)) in enumerate(zip(rows, shown)):
        left, right = max(low or lo, lo), min(high or hi, hi)
        ax.barh(y, right - left, left=left, height=0.6, color=style.BAND,
                alpha=0.35, label='reference band')
        ok = row.verdict != 'fail'
        ax.plot(min(max(value, lo), hi), y, 'o', ms=7,
                color=style.PASS if ok else style.FAIL,
                label='pass' if ok else 'fail')
        ax.annotate(f'{labels.number(row.value)} {row.unit}', (1.005, y),
                    xycoords=('axes fraction', 'data'), va='center',
                    fontsize=7)
    ax.axvline(1, color='black', lw=0.8, ls=':')
    ax.set_xscale('log', base=2)
    ticks = [2.0 ** k for k in range(math.ceil(math.log2(lo)),
                                      math.floor(math.log2(hi)) + 1)]
    ax.set_xticks(ticks, [f'{t:g}' for t in ticks])
    ax.minorticks_off()
    ax.set_xlim(lo, hi)
    ax.set_yticks(range(len(rows)), [label(r) for r in rows], fontsize=7.5)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlabel('measured / reference (log scale; 1 = the reference)')
    failed = sum(r.verdict == 'fail' for r in rows)
    ax.set_title(f'{len(rows)} judged, {failed or "none"} failed')
    style.legend(fig, [ax])
    return style.save(fig, ctx.outdir, f'judge_{kind.lower()}', 'ratios',
                      f'Judgements: {KINDS[kind]}',
                      'Grey: the band the reference allows (one-sided bands '
                      'run to the edge); the number at the right is the '
                      'measured value.')


def rate(value):
    '''A false-alarm rate as the audit prints it (docs/reference/audit.md).'''
    if value is None:
        return ''
    if value < 5e-5:
        return '0'
    return f'{100 * value:.2g} %' if value < 0.1 else f'{100 * value:.0f} %'


def draw(ctx):
    rows = [r for r in ctx.rows if r.family in JUDGEMENTS and r.judged and
            r.ref and math.isfinite(r.value)]
    na = [r for r in ctx.rows if r.family in JUDGEMENTS and
          r.verdict == NOT_APPLICABLE]
    if not rows and not na:
        return {'notes': coverage_notes(ctx.rows)} if ctx.rows else {}
    rows.sort(key=lambda r: (JUDGEMENTS.index(r.family), r.verdict != 'fail',
                             label(r)))
    figures = [chart(ctx, kind, [r for r in rows if r.family == kind])
               for kind in JUDGEMENTS if any(r.family == kind for r in rows)]
    rows.sort(key=lambda r: r.verdict != 'fail')
    rows += sorted(na, key=label)
    table = {'head': ['judgement', 'what', 'partition', 'measured',
                      'reference', 'low', 'high', 'unit',
                      'false alarms / night', 'verdict', 'provenance'],
             'rows': [[r.family, label(r), r.partition, r.value, r.ref,
                       *r.band(), r.unit, rate(r.false_alarms), r.verdict,
                       r.method]
                      if r.verdict != NOT_APPLICABLE else
                      [r.family, label(r), r.partition, None, None, None,
                       None, '', None, 'N/A', r.method] for r in rows],
             'classes': ['na' if r.verdict == NOT_APPLICABLE else
                         r.verdict or '' for r in rows],
             'verdict': 9, 'shown': 40}
    return {'figures': figures, 'table': table,
            'notes': coverage_notes(ctx.rows)}


def coverage_notes(rows):
    '''A line per system: what its newest session judged of what its
    reference file holds.'''
    notes = []
    for system in sorted({r.system for r in rows}):
        path = references.path_for(system)
        if not os.path.exists(path):
            continue
        with open(path) as fp:
            data = yaml.safe_load(fp) or {}
        found = [coverage.Reading(
            (r.case, r.partition), r.family, r.judgement,
            None if r.verdict == NOT_APPLICABLE else r.figure,
            r.verdict in ('pass', 'fail'), r.verdict == NOT_APPLICABLE)
            for r in load.latest(rows) if r.system == system and
            r.family in JUDGEMENTS]
        notes.append(f'{system}: ' + coverage.measure(found, data).line())
    return notes
