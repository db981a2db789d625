'''Tonight's effects: each ``effects:`` entry of the reference file judged
over the nights of the history database (:mod:`iogap.judge.effects`),
reading the nightly values of the ratios it names. An effect that is gone
turns the night red (``GONE``) and fails in its own JUnit suite.'''

from ci.nightly import changepoint
from ci.nightly.junit import add_suite
from iogap.judge import audit, effects


def values_of(found):
    '''``name -> {night: value}``: each ratio's nightly value from the
    series of :func:`ci.nightly.changepoint.series`.'''
    by_name = {}
    for (_, case, figure), points in found.items():
        if case.startswith('RatioCheck'):
            by_name.setdefault(figure, {}).update(points)
    return lambda name: by_name.get(name, {})


def verdicts(ref, rows, found, tonight):
    '''``[(name, status, message)]``: ``gone``, ``held`` or ``short`` for
    each effect one of whose ratios was judged ``tonight``.'''
    limits = audit.budget(ref)
    values = values_of(found)
    out = []
    for row in rows:
        if row.kind != 'effects' or not any(
                tonight in values(row.entry[k]) for k in ('ratio', 'over')
                if k in row.entry):
            continue
        passed, why = effects.judge(
            row.entry, effects.series(row.entry, values), row.noise,
            limits['effect'], limits['stress'])
        out.append((row.name, 'short' if passed is None else
                    'held' if passed else 'gone', why))
    return out


def judge(db_path, uuid, ref_path):
    '''``(lines, gone)``: the summary's lines and whether an effect is
    gone; the JUnit cases are the third item.'''
    from iogap.judge.audit.__main__ import load
    ref, rows = load(ref_path)
    nights = changepoint.sessions(db_path, uuid)
    if not nights:
        return [f'effects: tonight is not in {db_path}: not judged'], \
            False, []
    found, _ = changepoint.series(nights)
    cases = verdicts(ref, rows, found, len(nights) - 1)
    lines = [f'GONE {name}: {why}' for name, status, why in cases
             if status == 'gone']
    lines.append(f'effects: {sum(s == "held" for _, s, _ in cases)} held, '
                 f'{len(lines)} gone, {sum(s == "short" for _, s, _ in cases)}'
                 f' with too few nights, over {len(nights)} night(s)')
    return lines, len(lines) > 1, cases


def add_junit(path, cases):
    '''The effects' verdicts as their own ``effects`` suite.'''
    add_suite(path, 'effects', [
        (name, {'gone': 'fail', 'short': 'skip'}.get(status, 'pass'), why)
        for name, status, why in cases])
