'''What the entries of a reference file mean, checked once its shape has
passed the schema: families, partitions, parameters, figures, bounds and
units; an entry whose case this host cannot run goes to ``ref.absent``.'''

import json
import math

from iogap.core import registry
from iogap.core.cases import runs_on
from iogap.judge import effects, lines, schema, sides
from iogap.site import profile


def check(ref):
    '''Check what every entry of ``ref`` means.'''
    seen = {}
    for i, entry in enumerate(ref.data['absolute']):
        where = ['absolute', i]
        _judged(ref, where, entry, _case(ref, where, entry, True).unit)
        key = entry_key(entry)
        if key in seen:
            ref.fail(where, f'duplicates the entry on line {seen[key]}')
        seen[key] = lines.line_of(ref.data, where)

    names = {}
    for kind in ('ratios', 'fits', 'mechanisms', 'effects'):
        for i, entry in enumerate(ref.data.get(kind) or []):
            where = [kind, i]
            if entry['name'] in names:
                ref.fail(where + ['name'], f'{entry["name"]!r} is '
                         f'already used on line {names[entry["name"]]}')
            names[entry['name']] = lines.line_of(ref.data, where)
            if kind == 'ratios':
                _ratio(ref, where, entry)
            elif kind == 'fits':
                _fit(ref, where, entry)
            elif kind == 'mechanisms':
                _judged(ref, where, entry, _case(ref, where, entry).unit)

    effects.check(ref, ref.fail)
    for kind in ('unjudged', 'changepoints'):
        for i, entry in enumerate(ref.data.get(kind) or []):
            _case(ref, [kind, i], entry, partial=True)


def _ratio(ref, where, entry):
    pre = entry.get('precondition') or {}
    if 'over' in entry:
        _curve(ref, where, entry)
    found, named = sides.ratio_sides(entry), sides.named(entry)
    paths = [[named[i % len(named)]] for i in range(
        len(named) * sides.curve_points(entry))]
    paths += [['precondition', s] for s in sides.SIDES if pre]
    for side, path in zip(found, paths):
        _case(ref, where + path, side, described=bool(path[1:]))
        if id(side) in ref.absent:
            # the entry's own sides too: the plan names what is missing
            ref.absent |= {id(entry), id(entry.get(path[0]))}
    bound = pre.get('at_most', pre.get('at_least'))
    if pre and not bound > 0:
        ref.fail(where + ['precondition'], f'bound {bound} must be positive')
    _judged(ref, where, entry, 'ratio')


def _curve(ref, where, entry):
    '''A curve runs over a parameter both sides have and leave free.'''
    for s in sides.SIDES:
        side = entry[s]
        cls = registry.get(side['test'])
        if cls is not None and entry['over'] not in cls.param_space.params:
            ref.fail(where + ['over'], f'{side["test"]} ({s}) has no '
                     f'parameter {entry["over"]!r} to run the curve over')
        if entry['over'] in (side.get('params') or {}):
            ref.fail(where + [s, 'params'], f'fixes {entry["over"]}, the '
                     f'parameter the curve runs over (its points are at:)')


def _case(ref, where, entry, partial=False, described=False):
    '''Check a case (family, partition, params, var); its figure.'''
    cls = registry.get(entry['test'])
    if cls is None:
        ref.fail(where + ['test'], f'unknown test {entry["test"]!r} '
                 f'(known: {", ".join(registry.names())})')
    part = ref.partitions.get(entry['partition'])
    if part is None and entry['partition'] in profile.omitted():
        ref.absent.add(id(entry))
        return cls.figures.find(entry['var'])
    if part is None:
        ref.fail(where + ['partition'], f'no partition '
                 f'{entry["partition"]!r} in system {ref.system} '
                 f'(known: {", ".join(ref.partitions)})')

    params = entry.get('params') or {}
    for name, value in params.items():
        values = registry.param_values(cls, name)
        if values is None:
            ref.fail(where + ['params', name], f'{entry["test"]} has no '
                     f'parameter {name!r}')
        if value not in values or isinstance(value, bool) != \
                isinstance(values[0], bool):
            ref.fail(where + ['params', name], f'{value!r} is not one '
                     f'of {values}')

    fulls = variants(cls, params, partial)
    if not any(runs_on(cls, full, part) for full in fulls):
        if not any(runs_on(cls, full, part.detectable())
                   for full in fulls):
            ref.fail(where + ['params'], f'{entry["test"]} with '
                     f'{params or "its defaults"} is not generated on '
                     f'partition {entry["partition"]} (its features: '
                     f'{" ".join(sorted(part.features))})')
        ref.absent.add(id(entry))
    fig = cls.figures.find(entry['var'])
    if fig is None:
        ref.fail(where + ['var'], f'{entry["test"]} reports no figure '
                 f'{entry["var"]!r} (its figures: '
                 f'{", ".join(cls.figures.templates())})')
    if fig.better is None and where[0] != 'unjudged' and not described:
        ref.fail(where + ['var'], f'{entry["var"]} describes the spread '
                 f'of a run; it is not judged')
    return fig


def _judged(ref, where, entry, unit):
    value, lower, upper = entry['ref']
    for v in entry['ref']:
        if isinstance(v, bool) or (v is not None and not math.isfinite(v)):
            ref.fail(where + ['ref'], f'{v!r} is not a number')
    if value <= 0:
        ref.fail(where + ['ref'], f'value {value} must be positive')
    if lower is not None and not -1 <= lower <= 0:
        ref.fail(where + ['ref'], f'lower bound {lower} must be a '
                 f'fraction between -1 and 0')
    if upper is not None and upper < 0:
        ref.fail(where + ['ref'], f'upper bound {upper} must be >= 0')
    if lower is None and upper is None:
        ref.fail(where + ['ref'], 'both bounds are null: nothing would '
                 'be judged')
    if entry['unit'] != unit:
        ref.fail(where + ['unit'], f'{entry["unit"]!r} differs from the '
                 f'figure\'s unit {unit!r}')


def _fit(ref, where, entry):
    fig = _case(ref, where, entry, partial=True)
    if entry['over'] not in registry.get(entry['test']).param_space.params:
        ref.fail(where + ['over'], f'{entry["test"]} has no parameter '
                 f'{entry["over"]!r} to fit over')
    if entry['over'] in (entry.get('params') or {}):
        ref.fail(where + ['params'], f'fixes {entry["over"]}, the '
                 f'parameter the fit runs over')
    unit = schema.FIT_STATS[entry['stat']].format(
        y=fig.unit, x=schema.AXES[entry['over']][0])
    _judged(ref, where, entry, unit)


def variants(cls, params, partial):
    '''Full parameter sets of ``cls`` that ``params`` select: every match
    when ``partial``, else the one with defaults for the rest.'''
    if not partial:
        return [registry.full_params(cls, params)]
    nums = cls.get_variant_nums(**{k: (lambda x, v=v: x == v)
                                   for k, v in params.items()})
    return [{k: v for k, v in cls.get_variant_info(n)['params'].items()
             if not k.startswith('.')} for n in nums]


def most_specific(entries, partition_of):
    '''``{(family, partition, params, var): entry}`` of the cases the
    absolute ``entries`` judge on ``partition_of(entry)``, the most specific
    entry winning (the later one on a tie).'''
    winner = {}
    for entry in entries:
        cls = registry.get(entry['test'])
        part = partition_of(entry)
        given = entry.get('params') or {}
        for params in variants(cls, given, partial=True):
            if not runs_on(cls, params, part):
                continue
            key = (entry['test'], entry['partition'],
                   tuple(sorted(params.items())), entry['var'])
            old = winner.get(key)
            if old is None or len(given) >= len(old.get('params') or {}):
                winner[key] = entry
    return winner


def entry_key(entry):
    '''What makes an absolute entry (or an unjudged one) the one it is.'''
    return (entry['test'], entry['partition'],
            json.dumps(entry.get('params') or {}, sort_keys=True),
            entry['var'])
