'''Figures a reference file declares judged for breakage only across
nights: its ``changepoints:`` entries, each a case and figure named as
other entries name them (``test``, ``partition``, ``params``, ``var``)
with ``breakage_only: <why>``. The change-point verdict
(:func:`iogap.judge.changepoint.recent_step`) then reports a step only
where the figure is worse by ``calibration.BROKEN``, whatever its nights
show, and says the reason. A case is selected as the noise defaults
select it (:func:`iogap.judge.audit.read.matches`): parameters left out
match any value.
'''

import os

from iogap.core import registry
from iogap.errors import IogapError
from iogap.judge import references
from iogap.judge.audit.read import matches

#: Key of the declarations in a reference file
KEY = 'changepoints'


def reason(ref, test, partition, params, var):
    '''Why the reference file ``ref`` judges figure ``var`` of the case of
    ``test`` on ``partition`` with ``params`` (all of them) for breakage
    only, or ``None`` (also with no file).'''
    for entry in (ref.data.get(KEY) or []) if ref is not None else []:
        if entry['var'] == var and matches(entry, test, partition, params):
            return entry['breakage_only']
    return None


def case_params(case):
    '''``(family, {parameter: value})`` of a case named as ReFrame shows
    it (``Family %name=value ...``): each value as the family declares it,
    read back through the parameter's own format.'''
    test, *items = case.split(' %')
    cls = registry.get(test)
    params = {}
    for item in items:
        name, _, shown = item.partition('=')
        values = registry.param_values(cls, name) if cls else None
        params[name] = next((v for v in values or () if
                             f'{cls.raw_params[name].format(v)}' == shown),
                            shown)
    return test, params


def declared(ref, where, case, figure):
    ''':func:`reason`, for a figure as the nightly names it: ``where``
    (``system:partition``), ``case`` (its display name) and ``figure``;
    ``None`` for a system other than the file's.'''
    system, _, partition = where.partition(':')
    if ref is None or system != ref.system:
        return None
    test, params = case_params(case)
    return reason(ref, test, partition, params, figure)


def reference(system):
    '''``(file, lines)``: the reference file of ``system`` whose
    declarations the nightly honours (``None`` when it has none), and the
    summary's line when it cannot be read (the bands' verdict says why).'''
    path = references.path_for(system)
    if not os.path.lexists(path):
        return None, []
    try:
        return references.unenforced(path), []
    except IogapError as err:
        return None, [f'change points: {err}: no figure is judged for '
                      f'breakage only by its declaration']
