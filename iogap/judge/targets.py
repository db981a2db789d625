'''What the judgements are parametrised over: one reading per entry of
the loaded reference file that this host can run, and for absolute
references one per case they judge (:mod:`iogap.judge.readings`).'''

from iogap.core import registry
from iogap.core.cases import runs_on
from iogap.judge import references
from iogap.judge.meaning import variants


def absolute_targets():
    '''Cases that absolute references judge: ``(family, partition,
    params, {var: entry})``, the most specific entry winning per var.'''
    ref = references.current()
    if ref is None:
        return []

    targets = {}
    for entry in ref.entries('absolute'):
        cls = registry.get(entry['test'])
        part = ref.partitions[entry['partition']]
        given = entry.get('params') or {}
        for params in variants(cls, given, partial=True):
            if not runs_on(cls, params, part):
                continue
            key = (entry['test'], entry['partition'],
                   tuple(sorted(params.items())))
            best = targets.setdefault(key, {})
            old = best.get(entry['var'])
            if old is None or len(given) >= len(old.get('params') or {}):
                best[entry['var']] = entry

    return [(f, p, dict(params), entries)
            for (f, p, params), entries in sorted(targets.items())]


def target_name(target):
    '''``family@partition:param=value,...``: how a target is named.'''
    family, part, params, _ = target
    return f'{family}@{part}:' + ','.join(f'{k}={v}' for k, v in
                                         sorted(params.items()))


def entries(kind):
    '''The entries of ``kind`` (ratios, fits, mechanisms) this host can
    judge; none without a reference file.'''
    ref = references.current()
    return ref.entries(kind) if ref else []
