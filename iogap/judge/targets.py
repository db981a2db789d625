'''What the judgements are parametrised over: the entries of a reference
file this host can run, and for absolute ones one per case they judge.'''

from iogap.judge.meaning import most_specific


def absolute_targets(ref):
    '''``[(family, partition, params, {var: entry})]`` the absolute entries
    of ``ref`` (or ``None``) judge, the most specific winning per var.'''
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
    '''The entries of ``kind`` of ``ref`` (or ``None``) this host can run.'''
    return ref.entries(kind) if ref else []
