'''Where tasks really ran: a probe launched exactly like the measured step
prints each task's rank, node, CPUs, sockets and clock, so placement,
binding and clocks are verified, not assumed; and the checks on it.'''

import re
import shlex

from reframe.core.exceptions import SanityError

#: The probe, one of the project's own tools
PROBE = 'rank-probe.sh'
_RANK = re.compile(r'^iogap-rank: rank=(\S+) host=(\S+) cpus=(\S+) '
                   r'sockets=(\S+)(?: clock=(\S+)@(\w+))?.*$', re.M)
#: A clock read within this share of the one asked for was applied
CLOCK_TOLERANCE = 0.05
#: The CPUs the whole job may use (core specialization leaves some out)
JOB_CPUS = ('echo "iogap-job: cpus=$(sed -n "s/^Cpus_allowed_list:[[:space:]]'
            '*//p" /proc/self/status)"')
_JOB = re.compile(r'^iogap-job: cpus=(\S+)\s*$', re.M)


def per_node_counts(top):
    '''Tasks per node up to ``top``: powers of two below it, then ``top``.'''
    return [2**i for i in range(max(top, 0).bit_length()) if 2**i < top] + \
        ([top] if top > 0 else [])


def probe_step(launch, tools):
    '''The probe's line, launched by ``launch`` from the own ``tools``.'''
    return f'{launch} sh {shlex.quote(tools + "/" + PROBE)}'


def job_cpus(text):
    m = _JOB.search(text)
    return m.group(1) if m else None


def cpu_count(cpulist):
    '''Number of CPUs in a kernel cpu list such as ``0-3,8,10-11``.'''
    return sum(int(hi or lo) - int(lo) + 1 for lo, _, hi in
               (part.partition('-') for part in cpulist.split(',')))


def parse(text):
    '''``[{'rank', 'host', 'cpus', 'sockets', 'clock', 'clock_source'}]``
    by rank; ``clock`` in kHz, ``None`` where the host hides it.'''
    ranks = [dict(rank=int(r) if r.isdigit() else r, host=h, cpus=c,
                  sockets=set() if s == '?' else set(s.split(',')),
                  clock=int(k) if k.isdigit() else None,
                  clock_source=src if k.isdigit() else None)
             for r, h, c, s, k, src in _RANK.findall(text)]
    return sorted(ranks, key=lambda r: str(r['rank']).zfill(8))


def check(ranks, num_tasks, num_nodes, sockets=None, one_socket_node=False):
    '''Sanity: ``num_tasks`` ranks, even on ``num_nodes`` nodes, ranks 0 and 1
    on one socket each, the ``'same'`` or ``'cross'``; a summary.'''
    if len(ranks) != num_tasks:
        raise SanityError(f'the placement probe reported {len(ranks)} ranks, '
                          f'expected {num_tasks}')
    hosts = sorted({r['host'] for r in ranks})
    if len(hosts) != num_nodes:
        want = 'one node' if num_nodes == 1 else f'{num_nodes} nodes'
        raise SanityError(f'placement: the ranks were meant to run on {want} '
                          f'but ran on {len(hosts)} ({", ".join(hosts)})')
    per_node = {h: sum(r['host'] == h for r in ranks) for h in hosts}
    if len(set(per_node.values())) > 1:
        raise SanityError(f'placement: ranks are spread unevenly over the '
                          f'nodes: {per_node}')
    if sockets:
        _check_sockets(ranks[:2], sockets, one_socket_node)
    summary = ' '.join(f'{r["rank"]}@{r["host"]}:{r["cpus"]}'
                       for r in ranks[:4])
    return summary + (f' (+{len(ranks) - 4} ranks)' if len(ranks) > 4 else '')


def _check_sockets(pair, want, one_socket_node):
    if one_socket_node and want == 'same':
        return      # a single-socket node cannot split the pair
    for r in pair:
        if len(r['sockets']) != 1:
            seen = ','.join(sorted(r['sockets'])) or 'unknown'
            raise SanityError(
                f'placement: rank {r["rank"]} may run on CPUs {r["cpus"]} '
                f'(sockets {seen}): it is not pinned to one socket, so the '
                f'{want}-socket placement is not in force')
    same = pair[0]['sockets'] == pair[1]['sockets']
    if same != (want == 'same'):
        raise SanityError(
            f'placement: asked for ranks on {want} socket(s) but rank 0 ran '
            f'on socket {min(pair[0]["sockets"])} and rank 1 on socket '
            f'{min(pair[1]["sockets"])}')


def check_clock(ranks, wanted_khz):
    '''Sanity: every exposed clock within tolerance of ``wanted_khz``.'''
    seen = [r for r in ranks if r['clock'] is not None]
    for r in seen:
        if abs(r['clock'] - wanted_khz) > CLOCK_TOLERANCE * wanted_khz:
            raise SanityError(
                f'asked for a CPU clock of {wanted_khz} kHz but rank '
                f'{r["rank"]} on {r["host"]} ran at {r["clock"]} kHz (read '
                f'from {r["clock_source"]}): the clock was not applied')
    if not seen:
        return 'clock=not exposed by the host'
    clocks = sorted({r['clock'] for r in seen})
    return (f'clock={clocks[0]}-{clocks[-1]} kHz' if len(clocks) > 1 else
            f'clock={clocks[0]} kHz') + f' ({seen[0]["clock_source"]})'
