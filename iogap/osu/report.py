'''OSU on the page: section 4, two-rank latency and bandwidth per
placement and partition, and collective latency against ranks.'''

from iogap.history.load import median
from iogap.osu.figures import (
    BW_PEAK,
    LATENCY_AT,
    LATENCY_SMALLEST,
    SMALLEST_SIZE,
)
from iogap.report import bars, labels, style
from iogap.report.family import Section

PLACEMENTS = ('same_socket', 'cross_socket', 'inter_node')
BANDWIDTH = {'OSUBandwidth': 'osu_bw', 'OSUBiBandwidth': 'osu_bibw'}
COLLECTIVES = {'OSUAlltoall': 'all-to-all', 'OSUAllreduce': 'allreduce'}


def grouped_bars(ax, ctx, rows, figure, group_of, groups, keys):
    '''Bars of ``figure``, grouped on x by ``group_of(row)``, one slot per
    partition and variant.'''
    slots, later = style.slots(rows, keys), []
    bands = bars.bands_of(ctx.rows)
    few = len(slots) * len(groups) <= 12
    for (where, label, slot), figures in bars.in_slots(rows, keys, slots):
        if figure not in figures:
            continue
        first = figures[figure][0]
        x, width = style.bar_x(groups.index(group_of(first)), slot, len(slots))
        value = median(figures[figure])
        ax.bar(x, value, width, color=ctx.look.color(where),
               edgecolor='white', hatch=style.hatch(slots, slot),
               label=', '.join(filter(None, [ctx.look.part(where), label])))
        band = bars.band_of(bands, first, figure)
        if band:
            later.append((ax, x, width, band))
        if few:     # above the bar, or above a ceiling that is higher
            top = max(value, (band and band.band()[1]) or value)
            ax.annotate(labels.number(value), (x, top), xytext=(0, 2),
                        textcoords='offset points', ha='center',
                        va='bottom', fontsize=7)
    bars.draw_bands(later)
    ax.set_xticks(range(len(groups)), [g.replace('_', ' ') for g in groups])
    ax.set_xlim(-0.6, len(groups) - 0.4)
    ax.grid(axis='x', visible=False)


def pt2pt(ctx, lat, bw):
    panels = [p for p, rows in (('smallest', lat), ('sizes', lat),
                                ('bw', bw)) if rows]
    if not any(LATENCY_AT.parse(r.figure) for r in lat) and 'sizes' in panels:
        panels.remove('sizes')
    plt = style.pyplot()
    fig, axes = plt.subplots(1, len(panels), squeeze=False,
                             figsize=(4.2 * len(panels) + 1, 4.4),
                             layout='constrained')
    axes = dict(zip(panels, axes[0]))
    if 'smallest' in axes:
        keys = style.varying(lat, skip=('placement',))
        groups = style.ordered((r.params.get('placement') for r in lat),
                               PLACEMENTS)
        ax = axes['smallest']
        grouped_bars(ax, ctx, lat, LATENCY_SMALLEST.name(),
                     lambda r: r.params['placement'], groups, keys)
        ax.set_title('latency at the smallest message (0 or 1 B)')
        ax.set_ylabel('latency (us)')
        ax.set_xlabel('rank placement')
    if 'sizes' in axes:
        sizes(axes['sizes'], ctx, lat)
    if 'bw' in axes:
        keys = style.varying(bw, skip=('placement',))

        def group(r):
            return f'{BANDWIDTH[r.family]} {r.params.get("placement")}'
        groups = list(dict.fromkeys(map(group, bw)))
        ax = axes['bw']
        grouped_bars(ax, ctx, bw, BW_PEAK.name(), group, groups, keys)
        ax.set_xticks(range(len(groups)),
                      [g.replace(' ', '\n').replace('_', ' ') for g in groups])
        ax.set_title('peak bandwidth')
        ax.set_ylabel('bandwidth (MB/s)')
        ax.set_xlabel('benchmark, rank placement')
    style.legend(fig, list(axes.values()), title='partition, placement, '
                 'variant')
    return style.save(fig, ctx.outdir, 'osu_pt2pt', 'osu',
                      'OSU point to point: latency and bandwidth per '
                      'placement', 'Two ranks on one socket, on two sockets '
                      'or on two nodes.')


def sizes(ax, ctx, lat):
    '''Latency against message size (the smallest size included), one
    line per partition, placement and variant.'''
    keys = style.varying(lat, skip=('placement',))
    variants = list(dict.fromkeys(labels.variant(r.params, keys) for r in lat))
    ticks = set()
    for (where, case), figures in bars.cases(lat).items():
        pts = {LATENCY_AT.parse(f)['size']: median(rows)
               for f, rows in figures.items() if LATENCY_AT.parse(f)}
        smallest, size = LATENCY_SMALLEST.name(), SMALLEST_SIZE.name()
        if size in figures and smallest in figures:
            pts[int(median(figures[size]))] = median(figures[smallest])
        pts = sorted((s, v) for s, v in pts.items() if s > 0)
        if not pts:
            continue
        ticks.update(s for s, _ in pts)
        first = next(iter(figures.values()))[0]
        place = first.params.get('placement', '')
        label = labels.variant(first.params, keys)
        ax.plot(*zip(*pts), '-' if place != 'inter_node' else '--',
                marker='os^Dv'[variants.index(label) % 5],
                color=ctx.look.color(where), label=', '.join(filter(None, [
                    ctx.look.part(where), place.replace('_', ' '), label])))
    ax.set_xscale('log', base=2)
    ax.set_xticks(sorted(ticks), [labels.size_label(t) for t in sorted(ticks)])
    ax.minorticks_off()
    ax.set_yscale('log')
    style.plain_log(ax)
    ax.set_title('latency against message size')
    ax.set_xlabel('message size (bytes)')
    ax.set_ylabel('latency (us)')


def collectives(ctx, rows):
    families = [f for f in COLLECTIVES if any(r.family == f for r in rows)]
    plt = style.pyplot()
    fig, axes = plt.subplots(1, len(families), squeeze=False, sharey=True,
                             figsize=(5.5 * len(families) + 1, 4.4),
                             layout='constrained')
    for ax, family in zip(axes[0], families):
        here = [r for r in rows if r.family == family and LATENCY_AT.parse(
            r.figure)]
        keys = style.varying(here, skip=('num_nodes', 'ranks_per_node'))
        variants = list(dict.fromkeys(labels.variant(r.params, keys)
                                      for r in here))
        found = {}
        for r in here:
            key = (r.where, LATENCY_AT.parse(r.figure)['size'],
                   labels.variant(r.params, keys))
            ranks = int(r.params['num_nodes']) * \
                int(r.params['ranks_per_node'])
            found.setdefault(key, {}).setdefault(ranks, []).append(r)
        sizes_ = sorted({k[1] for k in found})
        for (where, size, label), pts in sorted(
                found.items(), key=lambda kv: (kv[0][0], kv[0][1])):
            xs = sorted(pts)
            ax.plot(xs, [median(pts[x]) for x in xs],
                    marker='os^Dv'[sizes_.index(size) % 5],
                    ls='-' if label == variants[0] else '--',
                    color=ctx.look.color(where), label=', '.join(filter(
                        None, [ctx.look.part(where),
                               f'{labels.size_label(size)} B', label])))
        style.pow2_axis(ax, [x for pts in found.values() for x in pts])
        ax.set_yscale('log')
        style.plain_log(ax)
        ax.set_title(f'{COLLECTIVES[family]} latency')
        ax.set_xlabel('ranks (nodes x ranks per node)')
    axes[0][0].set_ylabel('latency (us)')
    style.legend(fig, axes[0], title='partition, message size, variant')
    return style.save(fig, ctx.outdir, 'osu_collective', 'osu',
                      'OSU collectives: latency against ranks',
                      'One marker per message size; dashed: the variant.')


def draw(ctx):
    lat = [r for r in ctx.rows if r.family == 'OSULatency']
    bw = [r for r in ctx.rows if r.family in BANDWIDTH]
    coll = [r for r in ctx.rows if r.family in COLLECTIVES]
    figures = ([pt2pt(ctx, lat, bw)] if lat or bw else []) + \
        ([collectives(ctx, coll)] if coll else [])
    smallest = {r.value for r in lat if r.figure == SMALLEST_SIZE.name()}
    sizes_ = ', '.join(f'{s:g} B' for s in sorted(smallest))
    notes = [f'Smallest message: {sizes_} (OSU 7.x starts at 1 B, the '
             f'study quotes 0 B).'] if smallest else []
    return {'figures': figures, 'notes': notes}


# The families' places on the page (iogap.report.family)
SHORT = {'OSULatency': 'osu_latency', **BANDWIDTH,
         'OSUAlltoall': 'osu_alltoall', 'OSUAllreduce': 'osu_allreduce'}
SECTIONS = (Section(4, 'osu', 'OSU: MPI latency and bandwidth',
                    ('OSULatency', *BANDWIDTH, *COLLECTIVES), draw),)
