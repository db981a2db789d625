'''What the families' bar charts share: a case's figures in slot order,
the AbsoluteCheck band and the study's value of a bar, and its spread.'''

from iogap.history.load import median
from iogap.report import labels, style


def target_key(row):
    '''The ``(family, where, params, figure)`` an AbsoluteCheck judges.'''
    family, part, params = row.target()
    return (family, f'{row.system}:{part}', tuple(sorted(params.items())),
            row.figure)


def bands_of(rows):
    '''``{target_key: AbsoluteCheck row}``.'''
    return {target_key(r): r for r in rows if r.family == 'AbsoluteCheck'}


def band_of(bands, row, figure):
    '''The AbsoluteCheck that judged ``figure`` of ``row``'s case.'''
    return bands.get((row.family, row.where, case_key(row), figure))


def case_key(row):
    return tuple(sorted((k, str(v)) for k, v in row.params.items()))


def study_value(study, row, figure):
    for family, part, params, var, value, _ in study:
        if (family, part, var) == (row.family, row.partition, figure) and \
                all(str(row.params.get(k)) == v for k, v in params.items()):
            return value
    return None


def draw_bands(later):
    '''Each ``(ax, x, width, band)`` as a grey box behind its bar, an open
    side to the edge; the axes share y limits grown to hold the bounds.'''
    if not later:
        return
    bottom, top = later[0][0].get_ylim()
    for *_, band in later:
        top = max([top] + [b * 1.05 for b in band.band()[1:] if b])
    for ax, x, width, band in later:
        low, high = band.band()
        ax.bar(x, (top if high is None else high) - max(low or 0, bottom),
               width, bottom=max(low or 0, bottom), color=style.BAND,
               alpha=0.3, zorder=0, label='reference band (AbsoluteCheck)')
        # The bounds drawn over the bar too: a floor hides behind it
        bounds = [b for b in (low, high) if b is not None]
        ax.hlines(bounds, x - width / 2, x + width / 2, colors='black',
                  linestyles='--', linewidth=1, zorder=4,
                  label='reference bound')
    later[0][0].set_ylim(bottom, top)


def cases(rows):
    '''``{(where, case): {figure: [rows]}}``.'''
    found = {}
    for row in rows:
        found.setdefault((row.where, row.case), {}).setdefault(
            row.figure, []).append(row)
    return found


def in_slots(rows, keys, slots):
    '''``[((where, variant, slot), {figure: [rows]})]`` in slot order, so
    that legends list each partition's variants together.'''
    found = []
    for (where, _), figures in cases(rows).items():
        label = labels.variant(next(iter(figures.values()))[0].params, keys)
        found.append(((where, label, slots.index((where, label))), figures))
    return sorted(found, key=lambda f: f[0][2])


def spread(figures, figure, value):
    '''Error bar from the case's ``_min`` and ``_max`` figures.'''
    low, high = figures.get(figure + '_min'), figures.get(figure + '_max')
    if not (low and high):
        return None
    return [[value - median(low)], [median(high) - value]]
