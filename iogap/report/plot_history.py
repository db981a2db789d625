'''Section 6: each figure across nights, regressed figures first: those
whose newest judgement failed, then those whose newest value moved most
the wrong way against the median of the earlier nights. Beside the
band's verdict, each figure's series is judged for a recent step change
(iogap.judge.changepoint), as the nightly pipeline does.'''

import statistics

from iogap.core import registry
from iogap.core.figures import HIGHER, LOWER
from iogap.judge import changepoint
from iogap.report import plot_dd, style
from iogap.report.load import JUDGEMENTS, median

#: Small multiples drawn (the table lists every figure)
DRAWN = 12

#: A move the wrong way beyond this fraction is marked as a regression
MARKED = 0.1



def better(row):
    '''``'higher'``, ``'lower'`` or ``None``: as the family declares the
    figure (iogap.core.figures).'''
    return registry.better(row.family, row.figure)


class Series:
    '''One figure of one case on one partition, session after session:
    ``points[session index] = (value, row, judging row or None)``.'''

    def __init__(self, key, label):
        self.key, self.label, self.points = key, label, {}

    def earlier(self, newest):
        return [v for i, (v, _, _) in self.points.items() if i < newest]

    def change(self, newest):
        '''Fractional change of the newest value against the median of
        the earlier ones, or ``None``.'''
        earlier = self.earlier(newest)
        if newest not in self.points or not earlier or \
                not statistics.median(earlier):
            return None
        base = statistics.median(earlier)
        return (self.points[newest][0] - base) / abs(base)

    def step(self, newest):
        '''``(status, step or None)``: the change-point verdict on the
        series up to ``newest``: 'step', 'steady', 'short' or ''.'''
        if newest not in self.points:
            return '', None
        values = [self.points[i][0] for i in sorted(self.points)]
        found, why = changepoint.recent_step(values,
                                             better(self.points[newest][1]))
        return ('step' if found else 'short' if 'a step needs' in why else
                'steady' if why.startswith('no step') else ''), found

    def score(self, newest):
        '''``(failed, worse)``: the newest judgement failed; the change
        the wrong way (0 when the figure has no better direction).'''
        if newest not in self.points:
            return False, 0.0
        _, row, judge = self.points[newest]
        change, way = self.change(newest) or 0.0, better(row)
        return (judge is not None and judge.verdict == 'fail',
                -change if way == HIGHER else
                change if way == LOWER else 0.0)


def collect(ctx, system):
    '''``(sessions, [Series])`` of one system.'''
    rows = [r for r in ctx.history if r.system == system and
            not style.auxiliary(r.figure)]
    sessions = sorted({r.session for r in rows}, key=lambda s: s.start)
    judges, grouped = {}, {}
    for r in rows:
        if r.family == 'AbsoluteCheck':   # the band of what it judges
            family, part, params = r.target()
            judges[(r.session, f'{system}:{part}', family,
                    tuple(sorted(params.items())), r.figure)] = r
        else:
            grouped.setdefault((r.session, r.where, r.case, r.figure),
                               []).append(r)
    keys = {f: style.varying([r for r in rows if r.family == f])
            for f in {r.family for r in rows}}
    series = {}
    for (session, where, case, figure), found in grouped.items():
        first = found[0]
        name = first.judgement if first.family in JUDGEMENTS else \
            style.case_label(first.family, first.params,
                             keys[first.family]) + f': {figure}'
        s = series.setdefault((where, case, figure), Series(
            (where, case, figure), f'[{ctx.look.part(where)}] {name}'))
        judge = judges.get((session, where, first.family,
                            plot_dd.case_key(first), figure))
        s.points[sessions.index(session)] = (
            median(found), first, judge or (first if first.judged else None))
    return sessions, list(series.values())


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
    failed, worse = series.score(newest)
    change = series.change(newest)
    status, step = series.step(newest)
    if step is not None:
        start = sorted(series.points)[step.start]
        ax.axvline(start - 0.5, color=style.FAIL, ls='--', lw=1)
        ax.annotate(f'step {step.size:+.0%}', (start - 0.45, 0.05),
                    xycoords=('data', 'axes fraction'), fontsize=7,
                    color=style.FAIL)
    if newest in series.points and (failed or worse > MARKED):
        ax.plot(xs[-1], ys[-1], 'o', color=style.FAIL, ms=7)
    if change is not None:
        ax.annotate(f'{100 * change:+.0f}% vs earlier median', (0.98, 0.92),
                    xycoords='axes fraction', ha='right', fontsize=7,
                    color=style.FAIL if worse > MARKED else 'black')
    gaps = [i for i in range(len(sessions)) if i not in series.points]
    if gaps:
        ax.plot(gaps, [ax.get_ylim()[0]] * len(gaps), 'x', color='grey',
                clip_on=False, label='no value (failed or skipped)')
    ax.set_title(series.label, fontsize=8, wrap=True)
    ax.set_xticks(range(len(sessions)), [s.when[5:16] for s in sessions],
                  rotation=30, fontsize=7)
    ax.set_xlim(-0.5, len(sessions) - 0.5)
    ax.set_ylabel(series.points[xs[-1]][1].unit)


def small_multiples(ctx, system, shown, sessions):
    plt = style.pyplot()
    cols, rows = 3, (len(shown) + 2) // 3
    fig, axes = plt.subplots(rows, cols, squeeze=False,
                             figsize=(12, 0.8 + 2.6 * rows),
                             layout='constrained')
    for ax, series in zip(axes.flat, shown):
        panel(ax, ctx, series, sessions)
    for ax in list(axes.flat)[len(shown):]:
        ax.set_visible(False)
    return style.save(fig, ctx.outdir, f'history_{system}', 'history',
                      f'{system}: the {len(shown)} most regressed figures '
                      f'across {len(sessions)} sessions',
                      'Red dot: the newest value failed its judgement or is '
                      f'over {MARKED:.0%} worse than the earlier median; '
                      'grey bars: the reference band where one judged it; '
                      'grey x: no value that night (failed or skipped); '
                      'red dashes: a step change across nights starts '
                      'there.')


def draw(ctx):
    figures, table, notes = [], [], []
    for system in sorted({r.system for r in ctx.history}):
        sessions, series = collect(ctx, system)
        if len(sessions) < 2:
            continue
        newest = len(sessions) - 1
        series.sort(key=lambda s: (not s.score(newest)[0],
                                   s.step(newest)[0] != 'step',
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
                s.label, len(s.points), latest and latest[0],
                statistics.median(earlier) if earlier else None,
                round(100 * worse, 1) if earlier and latest else None,
                'fail' if failed else '', _across(status, step, sessions, s),
                latest[1].unit if latest else ''])
    if not figures:
        return {'notes': notes}
    return {'figures': figures, 'notes': notes, 'table': {
        'head': ['figure', 'nights', 'newest', 'earlier median',
                 'worse by (%)', 'newest verdict', 'across nights', 'unit'],
        'rows': table, 'classes': [r[5] or ('fail' if r[6].startswith(
            'step') else '') for r in table], 'verdict': 5,
        'shown': 25}}


def _across(status, step, sessions, series):
    '''The change-point verdict as the table shows it.'''
    if step is None:
        return status
    start = sessions[sorted(series.points)[step.start]]
    return f'step {step.describe()} from {start.when[:16]}'
