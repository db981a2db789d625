'''What a figure's labels say: short names, a case or a variant in a few
words, a value and a message size as a person writes them.'''

from iogap.report.family import short_names

#: Short names of parameters in legends and titles
ABBREV = {'core_spec': 'cs', 'cpu_bind': 'bind', 'memory': 'mem',
          'striping': 'stripe', 'procs_per_node': 'ppn', 'num_nodes': 'nodes',
          'ranks_per_node': 'rpn', 'directory': 'dir', 'cpu_freq': 'clock'}

#: Parameters shown by their value alone (``fpp``), first and in this order
BARE = ('api', 'mode', 'layout', 'placement', 'io', 'directory')


def param_label(key, value):
    '''``ppn=2``, ``fsync``, ``2.3 GHz``: one parameter in a label.'''
    if key == 'cpu_freq':
        return f'{float(value) * 1e-6:g} GHz'
    if key == 'directory':
        return f'{value} dir'
    return str(value) if key in BARE else f'{ABBREV.get(key, key)}={value}'


def variant(params, keys):
    '''``fsync, bind=cores, cs=4``: the ``keys`` of ``params``.'''
    keys = sorted(keys, key=lambda k: BARE.index(k) if k in BARE else 99)
    return ', '.join(param_label(k, params[k]) for k in keys if k in params)


def number(value):
    '''``6008``, ``45.2``, ``0.23``: a figure as a person writes it.'''
    return f'{value:,.0f}' if abs(value) >= 1000 else f'{value:.3g}'


def size_label(nbytes):
    '''``1``, ``8``, ``1K``, ``64K``, ``1M``: a message size.'''
    for suffix, scale in (('M', 2**20), ('K', 2**10)):
        if nbytes >= scale and nbytes % scale == 0:
            return f'{nbytes // scale}{suffix}'
    return f'{nbytes:g}'


def case_label(family, params, keys=None):
    '''``<short> POSIX fsync ppn=2``: a case; ``keys`` limits the parameters
    shown (default: those not at their default).'''
    keys = keys if keys is not None else [
        k for k, v in params.items() if str(v) not in ('default', '0')]
    return ' '.join(filter(None, [short_names().get(family, family),
                                  variant(params, keys).replace(',', '')]))
