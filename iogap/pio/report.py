'''IOR and mdtest on the page: section 3, the study's scaling figures (a
figure per API, a panel per I/O mode and phase), IORCollective and mdtest,
and the families' places in the shared sections.'''

from iogap.history.load import median
from iogap.pio.figures import BW, LABELS, MDTEST_OPS, RATE
from iogap.report import bars, labels, style
from iogap.report.family import Section

PHASES = tuple((BW.name(phase=p), LABELS[p]) for p in LABELS)
MODES = ('buffered', 'fsync', 'direct')
APIS = ('POSIX', 'MPIIO', 'HDF5')
LAYOUT_STYLE = {'fpp': '-', 'ssf': '--'}
MARKERS = 'os^Dv'
X_LABEL = {'procs_per_node': 'processes per node', 'num_nodes': 'nodes'}


def lines(rows, x, keys, by='layout'):
    '''``{(where, by, variant): {x: median}}`` of one panel, in the rows'
    order.'''
    found = {}
    for row in rows:
        key = (row.where, row.params.get(by, ''),
               labels.variant(row.params, keys))
        found.setdefault(key, {}).setdefault(int(row.params[x]), []).append(
            row)
    return {k: {p: median(v) for p, v in sorted(pts.items())}
            for k, pts in found.items()}


def scaling(ctx, bench, api, x):
    '''One figure: modes (rows) by phases (columns) for ``api``.'''
    rows = [r for r in bench if r.params.get('api') == api]
    modes = style.ordered((r.params.get('mode') for r in rows), MODES)
    keys = style.varying(bench, skip=('api', 'mode', 'layout', x))
    variants = list(dict.fromkeys(labels.variant(r.params, keys)
                                  for r in bench))
    plt = style.pyplot()
    fig, axes = plt.subplots(len(modes), len(PHASES), sharex=True,
                             sharey=True, squeeze=False,
                             figsize=(12, 1.2 + 2.6 * len(modes)),
                             layout='constrained')
    values = []
    for ax_row, mode in zip(axes, modes):
        for ax, (figure, title) in zip(ax_row, PHASES):
            here = [r for r in rows if r.params.get('mode') == mode and
                    r.figure == figure]
            # Partition by partition, fpp before ssf, variants in order
            for (where, layout, label), pts in sorted(
                    lines(here, x, keys).items(), key=lambda f: f[0][:2]):
                ax.plot(list(pts), list(pts.values()),
                        LAYOUT_STYLE.get(layout, ':'),
                        marker=MARKERS[variants.index(label) % 5],
                        color=ctx.look.color(where),
                        label=', '.join(filter(None, [
                            ctx.look.part(where), layout, label])))
                values += pts.values()
            ax.set_title(f'{api} {mode}: {title}')
            style.pow2_axis(ax, [int(r.params[x]) for r in rows])
        ax_row[0].set_ylabel(f'bandwidth ({rows[0].unit})')
    for ax in axes[-1]:
        ax.set_xlabel(X_LABEL[x])
    style.log_if_wide(axes[0][0], values)
    style.legend(fig, axes.flat, title='partition, layout, variant')
    by = 'processes per node' if x == 'procs_per_node' else 'nodes'
    return style.save(fig, ctx.outdir, f'ior_{api.lower()}_{x}', 'ior',
                      f'IOR {api}: bandwidth against {by}',
                      'Solid: file per process (fpp); dashed: single shared '
                      'file (ssf). Each point is one case (IOR mean over '
                      'its iterations).')


def collective(ctx, rows):
    '''IORCollective: write and read once per collective-I/O setting.'''
    apis = style.ordered((r.params.get('api') for r in rows), APIS)
    keys = style.varying(rows, skip=('api', 'io'))
    slots = style.slots(rows, keys)
    ios = list(dict.fromkeys(str(r.params.get('io')) for r in rows))
    phases = [f for f, _ in PHASES[:2] if any(r.figure == f for r in rows)]
    plt = style.pyplot()
    fig, axes = plt.subplots(len(phases), len(apis), sharey=True,
                             squeeze=False, layout='constrained',
                             figsize=(4 + 3.2 * len(apis),
                                      0.8 + 2.8 * len(phases)))
    bands, later = bars.bands_of(ctx.rows), []
    for r_i, figure in enumerate(phases):
        for ax, api in zip(axes[r_i], apis):
            for (where, label, slot), figures in bars.in_slots(
                    rows, keys, slots):
                first = next(iter(figures.values()))[0]
                if first.params.get('api') != api or \
                        figure not in figures:
                    continue
                x, width = style.bar_x(ios.index(str(first.params['io'])),
                                       slot, len(slots))
                ax.bar(x, median(figures[figure]), width,
                       color=ctx.look.color(where),
                       hatch=style.hatch(slots, slot), edgecolor='white',
                       label=', '.join(filter(None, [ctx.look.part(where),
                                                     label])))
                band = bars.band_of(bands, first, figure)
                if band:
                    later.append((ax, x, width, band))
            ax.set_xticks(range(len(ios)), ios)
            ax.set_xlim(-0.6, len(ios) - 0.4)
            ax.set_title(f'{api}: {dict(PHASES)[figure]}')
            ax.grid(axis='x', visible=False)
        axes[r_i][0].set_ylabel(f'bandwidth ({rows[0].unit})')
    bars.draw_bands(later)
    for ax in axes[-1]:
        ax.set_xlabel('collective I/O (cb<size>: ROMIO cb_buffer_size)')
    style.legend(fig, axes.flat, title='partition, variant')
    return style.save(fig, ctx.outdir, 'ior_collective', 'ior',
                      'IORCollective: independent against collective I/O',
                      'One shared file at the partition\'s collective point.')


def mdtest(ctx, rows):
    '''mdtest rates against processes per node.'''
    keys = style.varying(rows, skip=('procs_per_node', 'directory'))
    variants = list(dict.fromkeys(labels.variant(r.params, keys)
                                  for r in rows))
    plt = style.pyplot()
    ops = tuple(MDTEST_OPS)
    fig, axes = plt.subplots(1, 4, squeeze=False, figsize=(13, 4),
                             layout='constrained')
    for ax, op in zip(axes[0], ops):
        here = [r for r in rows if r.figure == RATE.name(op=op)]
        for (where, directory, label), pts in lines(
                here, 'procs_per_node', keys, 'directory').items():
            ax.plot(list(pts), list(pts.values()),
                    '-' if directory == 'unique' else '--',
                    marker=MARKERS[variants.index(label) % 5],
                    color=ctx.look.color(where), label=', '.join(filter(
                        None, [ctx.look.part(where), f'{directory} dir',
                               label])))
        style.log_if_wide(ax, [v.value for v in here])
        style.pow2_axis(ax, [int(r.params['procs_per_node']) for r in here])
        ax.set_title(f'{op}')
        ax.set_xlabel('processes per node')
        if ax.get_yscale() == 'linear':
            ax.set_ylim(bottom=0)
    axes[0][0].set_ylabel('operations per second (ops/s)')
    style.legend(fig, axes[0], title='partition, directory, variant')
    return style.save(fig, ctx.outdir, 'mdtest', 'ior',
                      'mdtest: metadata rates against processes per node',
                      'Solid: a directory per task; dashed: one shared '
                      'directory.')


def draw(ctx):
    bench = [r for r in ctx.rows if r.family == 'IORBench']
    figures = []
    for x in ('procs_per_node', 'num_nodes'):
        xs = {r.params.get(x) for r in bench}
        if bench and (x == 'procs_per_node' or len(xs) > 1):
            figures += [scaling(ctx, bench, api, x) for api in
                        style.ordered((r.params.get('api') for r in bench),
                                      APIS)]
    coll = [r for r in ctx.rows if r.family == 'IORCollective']
    if coll:
        figures.append(collective(ctx, coll))
    md = [r for r in ctx.rows if r.family == 'MDTestBench']
    if md:
        figures.append(mdtest(ctx, md))
    notes = [] if not bench or len({r.params.get('num_nodes')
                                    for r in bench}) > 1 else \
        ['One node per case in this run: no scaling over nodes to draw.']
    return {'figures': figures, 'notes': notes}


# The families' places on the page (iogap.report.family)
SHORT = {'IORBench': 'IOR', 'IORCollective': 'IOR coll',
         'IORFrequencySweep': 'IOR sweep', 'MDTestBench': 'mdtest'}
SECTIONS = (Section(3, 'ior', 'IOR scaling, collective I/O and mdtest',
                    ('IORBench', 'IORCollective', 'MDTestBench'), draw),)
SWEEPS = (('IORFrequencySweep', 'IOR parallel HDF5 write (one process)',
           BW.name(phase='write')),)
DARSHAN = ('IORBench', 'MDTestBench')
