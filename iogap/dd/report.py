'''dd on the page: section 1, single-stream bandwidth per I/O mode and
pattern, and the dd families' places in the shared sections.'''

from iogap.dd.figures import BW, LABELS
from iogap.history.load import median
from iogap.report import bars, style
from iogap.report.family import Section

FAMILY = 'DDSingleStream'
MODES = ('buffered', 'dsync', 'direct')
PATTERNS = tuple((BW.name(pattern=p), LABELS[p]) for p in LABELS)


def draw(ctx):
    '''The dd figure and the notes under it; nothing without dd cases.'''
    rows, study = ctx.rows, ctx.study
    dd = [r for r in rows if r.family == FAMILY]
    if not dd:
        return {}
    plt = style.pyplot()
    keys = style.varying(dd, skip=('mode',))
    slots = style.slots(dd, keys)
    bands = bars.bands_of(rows)
    patterns = [p for p in PATTERNS if any(r.figure == p[0] for r in dd)]
    fig, axes = plt.subplots(1, len(patterns), sharey=True, squeeze=False,
                             figsize=(4 + 2.6 * len(patterns), 4.6),
                             layout='constrained')
    modes = style.ordered((r.params.get('mode') for r in dd), MODES)
    later, values = [], []
    for ax, (figure, title) in zip(axes[0], patterns):
        unit, bands_drawn, shown = panel(ax, figure, title, dd,
                                         (keys, slots, modes), bands, ctx)
        later += bands_drawn
        values += shown
    axes[0][0].set_ylabel(f'bandwidth ({unit})')
    style.log_if_wide(axes[0][0], values)
    bars.draw_bands(later)
    style.legend(fig, axes[0], title='partition (variant)')
    entry = style.save(fig, ctx.outdir, 'dd', 'dd',
                       'dd single stream: bandwidth per I/O mode',
                       'Median of the repetitions; error bars span min to '
                       'max; grey: the band of the AbsoluteCheck that judged '
                       'the bar (a one-sided band runs to the edge).')
    return {'figures': [entry], 'notes': notes(dd, study)}


def panel(ax, figure, title, dd, layout, bands, ctx):
    '''One pattern's bars, a group per mode (``layout``: keys, slots,
    modes): ``(unit, [(ax, x, width, band)] to draw later, [values])``.'''
    keys, slots, modes = layout
    later, values = [], []
    for (where, label, slot), figures in bars.in_slots(dd, keys, slots):
        if figure not in figures:
            continue
        first = figures[figure][0]
        x, width = style.bar_x(modes.index(first.params.get('mode')),
                               slot, len(slots))
        value, unit = median(figures[figure]), first.unit
        err = bars.spread(figures, figure, value)
        band = bars.band_of(bands, first, figure)
        failed = band is not None and band.verdict == 'fail'
        ax.bar(x, value, width, yerr=err, capsize=2,
               color=ctx.look.color(where), hatch=style.hatch(slots, slot),
               edgecolor=style.FAIL if failed else 'white',
               linewidth=2 if failed else 0.5,
               label=ctx.look.part(where) + (f' ({label})' if label else ''))
        values += [value] + ([value - err[0][0], value + err[1][0]]
                             if err else [])
        if band:
            later.append((ax, x, width, band))
        ref = bars.study_value(ctx.study, first, figure)
        if ref is not None:
            ax.plot(x, ref, 'D', color=style.STUDY, markersize=6,
                    label="study's value (CUG'17)", zorder=5)
            values.append(ref)
    ax.set_xticks(range(len(modes)), modes)
    ax.set_xlim(-0.6, len(modes) - 0.4)
    ax.set_title(title)
    ax.set_xlabel('I/O mode')
    ax.grid(axis='x', visible=False)
    return unit, later, values


def notes(dd, study):
    parts = sorted({r.where for r in dd})
    mine = [s for s in study if s[0] == FAMILY]
    swept = any(s[0] == 'DDFrequencySweep' for s in study)
    if mine or swept:
        return [f"Black diamonds: the study's published value, where "
                f"reference/cori.yaml records one for the case "
                f"({len(mine)} {FAMILY} figure(s))." +
                (' It records more dd figures per CPU clock: see section 2.'
                 if swept else '')]
    return [f'No study figure applies to {", ".join(parts)}: the study '
            f'measured Cori Haswell and KNL only, so only Cori runs carry '
            f"the study's values."]


# The dd families' places on the page (iogap.report.family)
SHORT = {FAMILY: 'dd', 'DDFrequencySweep': 'dd sweep'}
SECTIONS = (Section(1, 'dd', 'dd: single-stream bandwidth', (FAMILY,), draw),)
SWEEPS = (('DDFrequencySweep', 'dd write (single stream)',
           BW.name(pattern='write')),)
DARSHAN = (FAMILY,)
