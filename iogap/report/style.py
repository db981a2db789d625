'''What every figure shares: colors, hatches, axes, one legend, and saving
a figure with its manifest entry (title, axes, series).'''

import math
import os

from iogap.report.labels import variant

#: Spread and bookkeeping figures that are never plotted on their own
AUXILIARY = ('_min', '_max', '_cv', '_iops', '_time', '_size')

HATCHES = ('', '//', '..', 'xx', '\\\\')
PASS, FAIL, STUDY, BAND = '#2e7d32', '#c62828', 'black', '#9e9e9e'


def pyplot():
    '''matplotlib's pyplot on the Agg backend, imported on first use.'''
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    plt.rcParams.update({'font.size': 9, 'axes.titlesize': 10,
                         'legend.fontsize': 8, 'figure.dpi': 100,
                         'axes.grid': True, 'grid.alpha': 0.3})
    return plt


class Look:
    '''Colors and labels of the partitions of a set of rows: the same
    partition has the same color in every figure of a page.'''

    def __init__(self, rows):
        self.wheres = sorted({r.where for r in rows})
        self.systems = {r.system for r in rows}
        cycle = ['#1f77b4', '#ff7f0e', '#2ca02c', '#9467bd', '#8c564b',
                 '#e377c2', '#17becf', '#bcbd22']
        self.colors = {w: cycle[i % len(cycle)]
                       for i, w in enumerate(self.wheres)}

    def color(self, where):
        return self.colors.get(where, 'grey')

    def part(self, where):
        '''``knl`` on a one-system page, ``cori:knl`` otherwise.'''
        return where if len(self.systems) > 1 else where.split(':', 1)[1]


def varying(rows, skip=()):
    '''Parameters that take more than one value among ``rows``.'''
    values = {}
    for row in rows:
        for key, value in row.params.items():
            values.setdefault(key, set()).add(str(value))
    return [k for k, v in values.items() if len(v) > 1 and k not in skip]


def ordered(values, preferred):
    '''The distinct ``values``, those in ``preferred`` first, then others.'''
    values = list(dict.fromkeys(values))
    return [v for v in preferred if v in values] + \
        [v for v in values if v not in preferred]


def slots(rows, keys):
    '''``[(where, variant label)]`` by partition, variants in run order.'''
    found = dict.fromkeys((r.where, variant(r.params, keys)) for r in rows)
    return sorted(found, key=lambda s: s[0])


def hatch(slots, slot):
    '''The hatch of a bar: a partition's color, its variant's pattern.'''
    same = [s for s in slots if s[0] == slots[slot][0]]
    return HATCHES[same.index(slots[slot]) % len(HATCHES)]


def bar_x(group, slot, count):
    '''``(x, width)`` of bar ``slot`` of ``count`` around ``group``.'''
    width = min(0.8 / count, 0.3)
    return group + width * (slot - (count - 1) / 2), width


def auxiliary(figure):
    return figure.endswith(AUXILIARY) or '_pass' in figure


def plain_log(ax, axis='y'):
    '''A decimal log axis labelled 0.2, 0.5, 1, 2, 5 (not 10^0).'''
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    target = ax.yaxis if axis == 'y' else ax.xaxis
    target.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    target.set_major_formatter(FuncFormatter(lambda v, _: f'{v:g}'))
    target.set_minor_formatter(NullFormatter())


def log_if_wide(ax, values, axis='y', decades=1.3):
    '''A log scale when positive values span more than ``decades``.'''
    values = [v for v in values if v and v > 0]
    if values and math.log10(max(values) / min(values)) > decades:
        (ax.set_yscale if axis == 'y' else ax.set_xscale)('log')
        plain_log(ax, axis)


def pow2_axis(ax, ticks):
    '''A base-2 log x axis with the swept values as ticks.'''
    ticks = sorted(set(ticks))
    if len(ticks) > 1:
        ax.set_xscale('log', base=2)
    ax.set_xticks(ticks, [str(t) for t in ticks])
    ax.minorticks_off()


def legend(fig, axes, title=None, ncol=4):
    '''One legend below the panels (needs ``layout='constrained'``).'''
    seen = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(label, handle)
    if seen:
        fig.legend(list(seen.values()), list(seen),
                   loc='outside lower center', frameon=False,
                   title=title, title_fontsize=8, ncol=min(
                       len(seen), ncol, max(1, int(fig.get_figwidth() / 2.6))))


def _color(handle):
    '''A legend handle's color as ``#rrggbb`` (bars: their face).'''
    from matplotlib.colors import to_hex
    for get in (lambda: handle.patches[0].get_facecolor(),
                lambda: handle.get_color(), lambda: handle.get_facecolor()):
        try:
            return to_hex(get(), keep_alpha=False)
        except (AttributeError, IndexError, ValueError, TypeError):
            continue
    return None


def save(fig, outdir, name, section, title, caption=''):
    '''Write ``name``.png and return its manifest entry.'''
    panels = []
    for ax in fig.axes:
        if not ax.get_visible() or not ax.has_data():
            continue
        series = {}
        for handle, label in zip(*ax.get_legend_handles_labels()):
            series.setdefault(label, _color(handle))
        panels.append({'title': ax.get_title(), 'xlabel': ax.get_xlabel(),
                       'ylabel': ax.get_ylabel(), 'xscale': ax.get_xscale(),
                       'yscale': ax.get_yscale(), 'series': list(series),
                       'colors': series})
    fig.suptitle(title, fontsize=11, fontweight='bold')
    fig.savefig(os.path.join(outdir, f'{name}.png'), dpi=100)
    pyplot().close(fig)
    return {'file': f'{name}.png', 'section': section, 'title': title,
            'caption': caption, 'panels': panels}
