'''A figure across nights, as the history section draws and ranks it: one
figure of one case on one partition, session after session, with what
judged it each night, its change and its change-point verdict.'''

import statistics

from iogap.core import registry
from iogap.core.figures import HIGHER, LOWER
from iogap.history.load import JUDGEMENTS, median
from iogap.judge import breakage, changepoint
from iogap.report import bars, labels, style


def better(row):
    '''``'higher'``, ``'lower'`` or ``None``, as the family declares.'''
    return registry.better(row.family, row.figure)


class Series:
    '''One figure of one case on one partition, session after session:
    ``points[session index] = (value, row, judging row or None)``.'''

    def __init__(self, key, label, declared=None):
        self.key, self.label, self.points = key, label, {}
        #: Why the reference file judges it for breakage only, if it does
        self.declared = declared

    def earlier(self, newest):
        return [v for i, (v, _, _) in self.points.items() if i < newest]

    def change(self, newest):
        '''The newest value's change as a fraction of the earlier median.'''
        earlier = self.earlier(newest)
        base = statistics.median(earlier) if earlier else 0
        if newest not in self.points or not base:
            return None
        return (self.points[newest][0] - base) / abs(base)

    def step(self, newest):
        '''The change-point verdict on the series up to ``newest``:
        ``('step' | 'steady' | 'short' | '', step or None)``.'''
        if newest not in self.points:
            return '', None
        values = [self.points[i][0] for i in sorted(self.points)]
        found, why = changepoint.recent_step(
            values, better(self.points[newest][1]), breakage=self.declared)
        return ('step' if found else 'short' if 'a step needs' in why else
                'steady' if why.startswith('no step') else ''), found

    @property
    def internal(self):
        row = next(iter(self.points.values()))[1]
        return internal(row.family, row.figure)

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


def internal(family, figure):
    '''Whether a figure is the harness's, below the study's: a control and
    its pair, a counter, Darshan's bytes, or one with no better side.'''
    return figure.endswith('_paired') or figure.startswith(
        ('memory_', 'darshan_')) or (family not in JUDGEMENTS and (
            registry.better(family, figure) not in (HIGHER, LOWER)))


def collect(ctx, system):
    '''``(sessions, [Series])`` of one system.'''
    ref, _ = breakage.reference(system)
    rows = [r for r in ctx.history if r.system == system and
            not style.auxiliary(r.figure)]
    sessions = sorted({r.session for r in rows}, key=lambda s: s.start)
    judges, grouped = {}, {}
    for r in rows:
        if r.family == 'AbsoluteCheck':   # the band of what it judges
            judges[(r.session, *bars.target_key(r))] = r
        else:
            grouped.setdefault((r.session, r.where, r.case, r.figure),
                               []).append(r)
    keys = {f: style.varying([r for r in rows if r.family == f])
            for f in {r.family for r in rows}}
    series = {}
    for (session, where, case, figure), found in grouped.items():
        first = found[0]
        name = first.judgement if first.family in JUDGEMENTS else \
            labels.case_label(first.family, first.params,
                              keys[first.family]) + f': {figure}'
        s = series.setdefault((where, case, figure), Series(
            (where, case, figure), f'[{ctx.look.part(where)}] {name}',
            breakage.declared(ref, where, case, figure)))
        judge = judges.get((session, first.family, where,
                            bars.case_key(first), figure))
        s.points[sessions.index(session)] = (
            median(found), first, judge or (first if first.judged else None))
    return sessions, list(series.values())
