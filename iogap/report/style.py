'''What every figure shares: one color per partition, short parameter
labels, log scales where values span decades, and saving a figure with its
manifest entry (title, axes, series) for the page and the tests.'''

import math
import os

#: Short names of parameters in legends and titles
ABBREV = {'core_spec': 'cs', 'cpu_bind': 'bind', 'memory': 'mem',
          'striping': 'stripe', 'procs_per_node': 'ppn', 'num_nodes': 'nodes',
          'ranks_per_node': 'rpn', 'directory': 'dir', 'cpu_freq': 'clock'}

#: Parameters whose value alone says what it is (``fpp``, ``POSIX``)
BARE = ('mode', 'layout', 'api', 'placement', 'io')

#: Spread and bookkeeping figures that are never plotted on their own
AUXILIARY = ('_min', '_max', '_cv', '_iops', '_time', '_size')

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


def param_label(key, value):
    return str(value) if key in BARE else f'{ABBREV.get(key, key)}={value}'


def variant(params, keys):
    '''``bind=cores, cs=4``: the ``keys`` of ``params``, abbreviated.'''
    return ', '.join(param_label(k, params[k]) for k in keys if k in params)


def varying(rows, skip=()):
    '''Parameters that take more than one value among ``rows``.'''
    values = {}
    for row in rows:
        for key, value in row.params.items():
            values.setdefault(key, set()).add(str(value))

    return [k for k, v in values.items() if len(v) > 1 and k not in skip]


def auxiliary(figure):
    return figure.endswith(AUXILIARY) or '_pass' in figure


def log_if_wide(ax, values, axis='y', decades=1.3):
    '''A log scale when positive values span more than ``decades``.'''
    values = [v for v in values if v and v > 0]
    if values and math.log10(max(values) / min(values)) > decades:
        (ax.set_yscale if axis == 'y' else ax.set_xscale)('log')


def pow2_axis(ax, ticks):
    '''A base-2 log x axis with the swept values as ticks.'''
    ticks = sorted(set(ticks))
    if len(ticks) > 1:
        ax.set_xscale('log', base=2)
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(t) for t in ticks])
    ax.minorticks_off()


def legend(fig, axes, **kw):
    '''One legend for the figure, each label once, below the panels (the
    figure needs ``layout='constrained'``).'''
    seen = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(label, handle)
    if seen:
        fig.legend(list(seen.values()), list(seen),
                   loc='outside lower center', frameon=False,
                   ncol=min(len(seen), kw.pop('ncol', 4)), **kw)


def save(fig, outdir, name, section, title, caption=''):
    '''Write ``name``.png and return its manifest entry.'''
    panels = []
    for ax in fig.axes:
        if not ax.get_visible() or not ax.has_data():
            continue
        labels = list(dict.fromkeys(
            lb for lb in ax.get_legend_handles_labels()[1]
            if not lb.startswith('_')))
        panels.append({'title': ax.get_title(), 'xlabel': ax.get_xlabel(),
                       'ylabel': ax.get_ylabel(), 'xscale': ax.get_xscale(),
                       'yscale': ax.get_yscale(), 'series': labels})
    fig.suptitle(title, fontsize=11, fontweight='bold')
    path = os.path.join(outdir, f'{name}.png')
    fig.savefig(path, dpi=100)
    import matplotlib.pyplot as plt
    plt.close(fig)
    return {'file': f'{name}.png', 'section': section, 'title': title,
            'caption': caption, 'panels': panels}
