'''What the judgements are parametrised over: one reading per entry of
the loaded reference file that this host can run, and for absolute
references one per case they judge (:mod:`iogap.judge.readings`).'''

from iogap.judge import references
from iogap.judge.meaning import most_specific


def absolute_targets():
    '''Cases that absolute references judge: ``(family, partition,
    params, {var: entry})``, the most specific entry winning per var.'''
    ref = references.current()
    if ref is None:
        return []

    targets = {}
    for (family, part, params, var), entry in most_specific(
            ref.entries('absolute'),
            lambda e: ref.partitions[e['partition']]).items():
        targets.setdefault((family, part, params), {})[var] = entry

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
