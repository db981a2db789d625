'''The text of a generated profile: readable Python, one key per line.'''

import socket

HEADER = '''\'\'\'{system}: written by `iogap profile new` on {host}.

{facts}

Edit freely (docs/reference/profile.md lists every feature and extra); the
profile is checked whenever it loads.
\'\'\'

{imports}
HOSTNAMES = {hostnames!r}

'''


def literal(value, indent=0):
    '''``value`` as Python source, one key per line, short lists inline.'''
    flat = repr(value)
    if len(flat) + indent <= 72 or not isinstance(value, (dict, list)):
        return flat
    pad = ' ' * (indent + 4)
    if isinstance(value, dict):
        items = [f'{pad}{k!r}: {literal(v, indent + 4)},'
                 for k, v in value.items()]
        return '{\n' + '\n'.join(items) + '\n' + ' ' * indent + '}'
    items = [f'{pad}{literal(v, indent + 4)},' for v in value]
    return '[\n' + '\n'.join(items) + '\n' + ' ' * indent + ']'


def profile(args, cluster, parts, notes):
    '''The text of ``systems/<system>.py``.'''
    accounting = cluster.config.get('AccountingStorageType', '')
    scontrol = accounting.endswith('/none')
    if scontrol:
        notes.append(f'no accounting storage ({accounting}): jobs are '
                     f'polled with scontrol (iogap.site.slurm)')
    for part in parts:
        part['scheduler'] = '__SCHEDULER__'
    system = {'name': args.system, 'descr': f'{args.system} (Slurm '
              f'{cluster.config.get("ClusterName", "")})',
              'hostnames': '__HOSTNAMES__', 'modules_system': 'nomod',
              'partitions': parts}
    body = literal({'systems': [system]})
    body = body.replace("'__HOSTNAMES__'", 'HOSTNAMES').replace(
        "'__SCHEDULER__'", 'SCONTROL' if scontrol else "'slurm'")
    imports = 'from iogap.site.slurm import SCONTROL\n' if scontrol else ''
    facts = '\n'.join(f'* {n}' for n in notes)
    return HEADER.format(system=args.system, host=socket.gethostname(),
                         facts=facts, imports=imports,
                         hostnames=args.hostnames) + \
        f'site_configuration = {body}\n'
