'''The history section: each figure across nights, those that stepped
first, then those whose newest judgement failed, then the largest moves the
wrong way, the harness's own figures below the study's; each drawn as
NERSC's UMAMI shows a metric, its nights beside a box of the past ones.'''

import statistics

from iogap.core.figures import HIGHER, LOWER
from iogap.report import style
from iogap.report.trends import better, collect

#: Small multiples drawn (the table lists every figure)
DRAWN = 12


def panel(ax, ctx, series, sessions):
    newest = len(sessions) - 1
    xs = sorted(series.points)
    ys = [series.points[i][0] for i in xs]
    ax.plot(xs, ys, '-o', color=ctx.look.color(series.key[0]), ms=4,
            label=series.key[0])
    for i in xs:
        judge = series.points[i][2]
        if judge is not None:
            low, high = judge.band()
            ax.vlines(i, min(ys) / 2 if low is None else low,
                      max(ys) * 1.5 if high is None else high,
                      color=style.BAND, lw=9, alpha=0.4)
    failed, change = series.score(newest)[0], series.change(newest)
    step = series.step(newest)[1]
    if step is not None:
        start = sorted(series.points)[step.start]
        ax.axvline(start - 0.5, color=style.FAIL, ls='--', lw=1)
        ax.annotate(f'step {step.size:+.0%}', (start - 0.45, 0.05),
                    xycoords=('data', 'axes fraction'), fontsize=7,
                    color=style.FAIL)
    if newest in series.points and (failed or step is not None):
        ax.plot(xs[-1], ys[-1], 'o', color=style.FAIL, ms=7)
    if change is not None:
        ax.annotate(f'{100 * change:+.0f}% vs earlier median', (0.98, 0.92),
                    xycoords='axes fraction', ha='right', fontsize=7)
    gaps = [i for i in range(len(sessions)) if i not in series.points]
    if gaps:
        ax.plot(gaps, [ax.get_ylim()[0]] * len(gaps), 'x', color='grey',
                clip_on=False, label='no value (failed or skipped)')
    ax.set_title(series.label, fontsize=8, wrap=True)
    ax.set_xticks(range(len(sessions)), [s.when[5:16] for s in sessions],
                  rotation=30, fontsize=7)
    ax.set_xlim(-0.5, len(sessions) - 0.5)
    ax.set_ylabel(series.points[xs[-1]][1].unit)


#: Tonight's place among the past nights, lowest quartile first
QUARTILES = ('below Q1', 'between Q1 and the median',
             'between the median and Q3', 'above Q3')


def placed(past, value, way):
    '''``(words, colour)``: the quartile of the ``past`` nights ``value``
    falls in; red on the figure's worse side, green on its better one.'''
    q1, q2, q3 = statistics.quantiles(past, n=4) if len(past) > 1 else \
        past * 3
    index = sum(value > q for q in (q1, q2, q3))
    good = index if way == HIGHER else 3 - index if way == LOWER else None
    colour = 'grey' if good is None else style.FAIL if good == 0 else \
        style.PASS if good == 3 else 'black'
    return f'tonight {QUARTILES[index]} of the {len(past)} past nights', \
        colour


def box(ax, series, sessions):
    '''The past nights as a box, tonight's value placed on it.'''
    newest = len(sessions) - 1
    past = series.earlier(newest)
    ax.set_xticks([])
    if not past or newest not in series.points:
        ax.set_title('no past nights' if not past else 'no value tonight',
                     fontsize=7)
        return
    ax.boxplot(past, widths=0.5, showfliers=True)
    ax.set_xticks([])
    value, row, _ = series.points[newest]
    words, colour = placed(past, value, better(row))
    ax.plot(1, value, 'D', color=colour, ms=8, zorder=3)
    ax.set_title(words, fontsize=7, color=colour, wrap=True)


def small_multiples(ctx, system, shown, sessions):
    plt = style.pyplot()
    fig = plt.figure(figsize=(12, 0.8 + 2.4 * len(shown)),
                     layout='constrained')
    grid = fig.add_gridspec(len(shown), 2, width_ratios=(5, 1))
    for row, series in enumerate(shown):
        ax = fig.add_subplot(grid[row, 0])
        panel(ax, ctx, series, sessions)
        box(fig.add_subplot(grid[row, 1], sharey=ax), series, sessions)
    return style.save(fig, ctx.outdir, f'history_{system}', 'history',
                      f'{system}: {len(shown)} figures across '
                      f'{len(sessions)} sessions, the stepped and failed '
                      f'first',
                      'Left, each figure night by night: red dot, the newest '
                      'value failed its judgement or the series stepped '
                      '(the change-point verdict); '
                      'grey bars: the reference band where one judged it; '
                      'grey x: no value that night (failed or skipped); '
                      'red dashes: a step change across nights starts '
                      'there. Right, as UMAMI shows it: the past nights as '
                      'a box (median, quartiles, whiskers) and tonight as a '
                      'diamond, in red on the worse quartile, green on the '
                      'better.')


def draw(ctx):
    figures, table, notes = [], [], []
    for system in sorted({r.system for r in ctx.history}):
        sessions, series = collect(ctx, system)
        if len(sessions) < 2:
            continue
        newest = len(sessions) - 1
        series.sort(key=lambda s: (s.internal,
                                   s.step(newest)[0] != 'step',
                                   not s.score(newest)[0],
                                   -s.score(newest)[1]))
        gone = [s for s in series if newest not in s.points]
        if gone:
            notes.append(f'{system}: {len(gone)} figures measured earlier '
                         f'have no value in the newest session (failed or '
                         f'skipped there).')
        shown = [s for s in series if len(s.points) > 1][:DRAWN]
        if shown:
            figures.append(small_multiples(ctx, system, shown, sessions))
        for s in series:
            failed, worse = s.score(newest)
            status, step = s.step(newest)
            earlier, latest = s.earlier(newest), s.points.get(newest)
            table.append([
                s.label, 'harness' if s.internal else 'study',
                len(s.points), latest and latest[0],
                statistics.median(earlier) if earlier else None,
                round(100 * worse, 1) if earlier and latest else None,
                'fail' if failed else '', _across(status, step, sessions, s),
                latest[1].unit if latest else ''])
    if not figures:
        return {'notes': notes}
    return {'figures': figures, 'notes': notes, 'table': {
        'head': ['figure', 'of', 'nights', 'newest', 'earlier median',
                 'worse by (%)', 'newest verdict', 'across nights', 'unit'],
        'rows': table, 'classes': [r[6] or ('fail' if r[7].startswith(
            'step') else '') for r in table], 'verdict': 6,
        'shown': 25}}


def _across(status, step, sessions, series):
    '''The change-point verdict as the table shows it.'''
    if step is None:
        return status
    start = sessions[sorted(series.points)[step.start]]
    return f'step {step.describe()} from {start.when[:16]}'
