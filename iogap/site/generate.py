'''``iogap profile new <system>``, on a login node: a profile (readable
Python, one key per line) and its Spack overlay from what Slurm and a node
of each partition say, loaded back before it is kept (one that would not
load is not left behind).'''

import os
import re
import socket
import sys

from iogap.errors import IogapError
from iogap.site import discover, hostinfo, profile
from iogap.site.spack import config as spackyaml

NEVER_FASTER_THAN = 5   # clocks of a frequency sweep, at most


def hostname_pattern(host):
    '''``login03.x`` -> ``^login\\d+\\.x$``: the login nodes' names.'''
    return '^' + re.sub(r'\\\d\+(\\\d\+)+', r'\\d+',
                        re.sub(r'\d+', r'\\d+', re.escape(host))) + '$'


def clocks(available, limit=NEVER_FASTER_THAN):
    '''Up to ``limit`` clocks spread over what the node offers (kHz).'''
    found = sorted({int(v) for v in available})
    if len(found) <= limit:
        return found
    step = (len(found) - 1) / (limit - 1)
    return sorted({found[round(i * step)] for i in range(limit)})


def partition(cluster, name, args, notes):
    '''A partition's entry and its probe; what was found goes in ``notes``.'''
    probe = cluster.probe(name, args.scratch)
    proc, cores, nodes = processor(cluster, name, probe, notes)
    features, extras = node_features(probe, proc, nodes, args.scratch)
    if any(p in cluster.config.get('TaskPlugin', '')
           for p in ('affinity', 'cgroup')):
        features.append('cpubind')
        extras['cpu_bind_options'] = ['--cpu-bind=cores']
    resources = []
    if cluster.core_spec_works(name):
        features.append('corespec')
        resources = [{'name': 'core_spec', 'options': ['--core-spec={cores}']}]
        extras['core_spec_cores'] = max(1, min(4, cores // 4))
    else:
        notes.append(f'{name}: no +corespec (AllowSpecResourcesUsage='
                     f'{cluster.config.get("AllowSpecResourcesUsage", "?")}'
                     f', or a --core-spec=1 step was refused)')
    sweep = clock_sweep(cluster, name, probe, notes)
    if sweep:
        features.append('cpufreq')
        extras['cpu_freqs_khz'] = sweep
    extras.update(spack_overlay=args.system, build_cpus=min(cores, 16),
                  mpi_type=cluster.mpi, **{k: getattr(args, k) for k in (
                      'account', 'qos', 'reservation') if getattr(args, k)})
    if args.spack_root:
        features.append('spack')
        extras.update(spack_env=os.path.join(args.scratch, 'spack', name),
                      spack_setup=[f'. {args.spack_root}/share/spack/'
                                   f'setup-env.sh'])
    # Jobs run as their submitter; Open MPI refuses root unless told
    env = [['OMPI_ALLOW_RUN_AS_ROOT', '1'],
           ['OMPI_ALLOW_RUN_AS_ROOT_CONFIRM', '1']] \
        if probe.get('uid') == ['0'] else []
    return {'name': name, 'descr': f'Slurm partition {name}',
            'scheduler': None, 'launcher': 'srun', 'access': [f'-p {name}'],
            'environs': ['builtin', 'spack'], 'env_vars': env,
            'max_jobs': 4 if nodes == 1 else 16, 'processor': proc,
            'features': features, 'resources': resources,
            'extras': extras}, probe


def processor(cluster, name, probe, notes):
    '''``(processor, cores, nodes)`` of a partition: a node as lscpu saw it,
    less what Slurm keeps from a job; said in ``notes``.'''
    seen = discover.lscpu(probe.get('lscpu', []))
    proc = discover.within_slurm(seen, cluster.nodes_of(name))
    if proc is not seen:
        notes.append(f'{name}: Slurm gives a job {proc["num_cpus"]} of the '
                     f'{seen["num_cpus"]} CPUs lscpu sees on the node')
    cores = proc['num_cpus'] // proc['num_cpus_per_core']
    nodes = len(cluster.nodes_of(name))
    model = proc.pop('model') or proc['arch']
    notes.append(f'{name}: {nodes} node(s) of {model}, '
                 f'{proc["num_sockets"]} socket(s) x '
                 f'{cores // proc["num_sockets"]} cores x '
                 f'{proc["num_cpus_per_core"]} thread(s); node features '
                 f'{",".join(cluster.features_of(name)) or "none"}')
    return proc, cores, nodes


def node_features(probe, proc, nodes, scratch):
    '''Features and extras from what the node probe and scontrol saw.'''
    fs = ((probe.get('fs') or ['unknown']) + [''])[0].split()
    extras = {'scratch_root': scratch, 'odirect_reason':
              f'scratch on {fs[0]} ({" ".join(fs[1:])})'}
    features = [feature for feature, holds in (
        ('mpi', (probe.get('mpirun') or [''])[0].startswith('mpirun')),
        ('hdf5', any('Parallel HDF5: yes' in line
                     for line in probe.get('h5pcc', []))),
        ('odirect', fs[0] not in hostinfo.NO_ODIRECT and
         not fs[0].startswith('fuse')),
        ('dropcaches', probe.get('dropcaches') == ['yes']),
        ('multisocket', proc['num_sockets'] > 1)) if holds]
    if nodes > 1:
        features.append('multinode')
        extras['max_nodes'] = min(nodes, 4)
        extras['ior_nodes'] = [1, extras['max_nodes']]
    if fs[0] == 'lustre' and probe.get('lfs'):
        features.append('lustre')
        extras['lustre_stripes'] = {'fpp': {'count': 1, 'size': '1m'},
                                    'ssf': {'count': -1, 'size': '1m'}}
    extras['osu_placement'] = {
        'same_socket': ['--distribution=block:block'],
        **({'cross_socket': ['--distribution=block:cyclic']}
           if proc['num_sockets'] > 1 else {}),
        **({'inter_node': []} if nodes > 1 else {})}
    extras['osu_socket_bind_options'] = ['--cpu-bind=sockets']
    return features, extras


def clock_sweep(cluster, name, probe, notes):
    '''The clocks of a +cpufreq sweep, if a ``--cpu-freq`` step really ran
    at the lowest; else ``[]``, saying why.'''
    sweep = clocks((probe.get('clocks') or [''])[0].split())
    applied = cluster.clock_applied(name, sweep[0]) if sweep else None
    if len(sweep) > 1 and applied and \
            abs(applied - sweep[0]) <= 0.05 * sweep[0]:
        return sweep
    notes.append(f'{name}: no +cpufreq (' + (
        'the node exposes no cpufreq clocks' if not sweep else
        f'a --cpu-freq={sweep[0]} step ran at {applied or "?"} kHz') + ')')
    return []


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
    if isinstance(value, dict):
        items = [f'{k!r}: {literal(v, indent + 4)}' for k, v in value.items()]
    else:
        items = [literal(v, indent + 4) for v in value]
    pad, ends = ' ' * (indent + 4), '{}' if isinstance(value, dict) else '[]'
    return ends[0] + ''.join(f'\n{pad}{item},' for item in items) + \
        '\n' + ' ' * indent + ends[1]


def render(args, cluster, parts, notes):
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


def write(args):
    if not re.fullmatch(r'[A-Za-z][\w-]*', args.system):
        raise IogapError(f'{args.system!r} is not a system name (letters, '
                         f'digits, _ and -)')
    path = os.path.join(profile.SYSTEMS_DIR, f'{args.system}.py')
    if os.path.exists(path) and not args.force:
        raise IogapError(f'{path} exists: pass --force to replace it')

    say = lambda text: print(f'iogap profile: {text}', file=sys.stderr)
    cluster = discover.Cluster()
    names = cluster.chosen(args.partitions)
    say(f'partitions {", ".join(names)}; srun --mpi={cluster.mpi or "none"}')
    parts, notes, probes = [], [], {}
    for name in names:
        say(f'probing a node of {name}')
        part, probes[name] = partition(cluster, name, args, notes)
        parts.append(part)
    where = os.path.join(spackyaml.OVERLAYS, f'{args.system}.yaml')
    notes.append(spackyaml.write_overlay(where, cluster, names[0],
                                         probes[names[0]], args.spack_root))
    text = render(args, cluster, parts, notes)
    with open(path, 'w') as fp:
        fp.write(text)
    try:
        profile.load(['--system', args.system], os.environ)
        # No other profile may claim this login node
        profile.select(['reframe'], {}, socket.gethostname())
    except Exception:
        os.remove(path)
        raise
    for note in notes:
        say(note)
    say(f'wrote {path} and {where}; the profile loads')
