'''What reached the file system, as Darshan saw it: I/O time per module
and the dominant access size of every ``darshan=on`` case.'''

from iogap.report import labels, style

LABELS = {'posix': 'POSIX', 'mpiio': 'MPI-IO', 'stdio': 'STDIO'}


def instrumented(rows):
    '''``{(where, case label): {figure: value}}`` of the darshan=on cases.'''
    cases = {}
    for r in rows:
        if r.params.get('darshan') == 'on' and r.figure.startswith('darshan_'):
            keys = [k for k in ('layout', 'api', 'mode', 'procs_per_node',
                                'directory') if k in r.params]
            label = labels.case_label(r.family, r.params, keys)
            cases.setdefault((r.where, label), {})[r.figure] = r.value
    return cases


def draw(ctx):
    cases = instrumented(ctx.rows)
    if not cases:
        return {}
    plt = style.pyplot()
    names = sorted(cases)
    fig, (time_ax, size_ax) = plt.subplots(
        1, 2, figsize=(13, 1.2 + 0.32 * len(names)), sharey=True,
        layout='constrained')
    ys = range(len(names))
    # Side by side, not stacked: MPI-IO's time holds the POSIX time it causes
    shown = [m for m in LABELS if any(cases[n].get(f'darshan_{m}_io_time')
                                       for n in names)]
    height = 0.8 / max(len(shown), 1)
    for i, module in enumerate(shown):
        widths = [cases[n].get(f'darshan_{module}_io_time', 0.0)
                  for n in names]
        time_ax.barh([y - 0.4 + height * (i + 0.5) for y in ys], widths,
                     height=height, label=LABELS[module])
    time_ax.set_yticks(list(ys), [ctx.look.part(w) + ' ' + label
                                  if len(ctx.look.systems) > 1 or
                                  len({n[0] for n in names}) > 1 else label
                                  for w, label in names])
    time_ax.invert_yaxis()
    time_ax.set_xlabel('I/O time summed over ranks and steps (s)')
    time_ax.set_title('Darshan I/O time per module')
    time_ax.legend(loc='lower right', fontsize=8)
    sizes = [cases[n].get('darshan_posix_access_size', 0) for n in names]
    size_ax.barh(ys, sizes, color='tab:gray')
    size_ax.set_xscale('log')
    size_ax.set_xlabel('largest access in the dominant bucket (B)')
    size_ax.set_title('POSIX: most frequent access size')
    for y, n in zip(ys, names):
        seq = cases[n].get('darshan_posix_sequential_share')
        if seq is not None:
            size_ax.annotate(f'{seq:.0f}% sequential', (sizes[y], y),
                             xytext=(4, 0), textcoords='offset points',
                             va='center', fontsize=8)
    return {'figures': [style.save(
        fig, ctx.outdir, 'darshan', 'darshan',
        'Darshan: what reached the file system',
        'Cases run with darshan-runtime preloaded (darshan=on); the bytes '
        'Darshan saw were checked against the tool\'s. MPI-IO time '
        'includes the POSIX time its calls cause.')]}
