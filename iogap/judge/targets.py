'''What the judgements are parametrised over: one reading per entry of
a reference file that this host can run, and for absolute references one
per case they judge (:mod:`iogap.judge.readings`).'''

from iogap.judge.meaning import most_specific


def absolute_targets(ref):
    '''Cases that the absolute references of ``ref`` (a reference file,
    or ``None``) judge: ``(family, partition, params, {var: entry})``, the
    most specific entry winning per var.'''
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


def entries(ref, kind):
    '''The entries of ``kind`` (ratios, fits, mechanisms) of ``ref`` this
    host can judge; none without a reference file.'''
    return ref.entries(kind) if ref else []
