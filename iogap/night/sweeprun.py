'''``iogap night sweep``: the single-node canaries once on every node of
their partition (ReFrame's ``--distribute`` over the nodes in the state
``IOGAP_NIGHT_SWEEP`` names), one session per partition. It measures, never
judges: per case its nodes, its most spread figure and worst node
(``sweep.csv``: every figure on every node); red only when a case failed.'''

import csv
import json
import os
import statistics

from iogap.core import figures, registry
from iogap.history import load
from iogap.night import planned as plan
from iogap.night.tonight import Aborted, Night

#: IOGAP_NIGHT_SWEEP values that only ask for a sweep
_YES = ('1', 'yes', 'true', 'on')

#: The nodes a sweep takes unless told: idle ones, in a reservation or not
#: (ReFrame 4.10 matches a state exactly: an idle node of a reservation is
#: IDLE+RESERVED)
IDLE = 'idle|idle+reserved'


def state(environ):
    '''The node state ``--distribute`` sweeps.'''
    said = environ.get('IOGAP_NIGHT_SWEEP', '').strip()
    return IDLE if said.lower() in _YES else said


def shares(environ):
    '''``[(Night, reframe options, session extras)]`` to sweep.'''
    if environ.get('IOGAP_NIGHT_SELECT'):
        night = Night(environ)
        return [(night, *plan.tonight(night, environ))]
    path = Night(environ).path('plan.json')
    if not os.path.isfile(path):
        raise SystemExit(f'nightly: no plan to sweep ({path}): the suite '
                         f'job plans a night when a budget is set '
                         f'(IOGAP_NIGHT_NODE_HOURS, IOGAP_NIGHT_WALL)')
    with open(path) as fp:
        made = json.load(fp)
    return [(Night(environ, job=f'sweep-{part}', partition=part),
             [a for v in swept['variants'] for a in ('-n', v)],
             {**plan.extras_of(made), 'plan_job': f'sweep-{part}',
              'sweep_nodes': swept['nodes']})
            for part, swept in made.get('sweep', {}).items()]


def by_case(report):
    '''``{(case, partition): {node: test case}}`` as the run left them.'''
    last = {}
    for run in report['runs']:
        for tc in run['testcases']:
            if not tc.get('fixture'):
                last[tc['display_name'], tc['partition']] = tc
    found = {}
    for tc in last.values():
        node = ','.join(tc.get('job_nodelist') or ['?'])
        found.setdefault((tc['name'], tc['partition']), {})[node] = tc
    return found


def directed(tc):
    '''``{figure: (value, unit)}`` of the figures with a better side.'''
    family = tc['name'].split()[0]
    return {key.rsplit(':', 1)[-1]: (v[0], v[4]) for key, v in
            (tc.get('perfvalues') or {}).items()
            if registry.better(family, key.rsplit(':', 1)[-1]) in
            (figures.HIGHER, figures.LOWER) and isinstance(v[0], float)}


def spread_line(case, where, nodes):
    '''The case's line: its nodes, the figure most spread across them.'''
    family, widest = case.split()[0], None
    for fig in sorted(set().union(*(directed(tc) for tc in nodes.values()))):
        got = {n: directed(tc)[fig] for n, tc in nodes.items()
               if fig in directed(tc)}
        values = [v for v, _ in got.values()]
        spread = (max(values) - min(values)) / statistics.median(values)
        if widest is None or spread > widest[0]:
            higher = registry.better(family, fig) == figures.HIGHER
            worst = (min if higher else max)(got, key=lambda n: got[n][0])
            widest = (spread, fig, got, worst)
    said = f'SWEEP {case} @{where}: {len(nodes)} node(s) ' \
           f'({", ".join(sorted(nodes))})'
    if widest:
        spread, fig, got, worst = widest
        unit = next(iter(got.values()))[1]
        said += (f'; most spread {fig} {spread:.1%} (' + ', '.join(
            f'{n} {got[n][0]:.4g}' for n in sorted(got)) +
            f' {unit}), worst {worst}')
    return said


def summary(night, report, planned_nodes):
    '''``(lines, red)`` of a sweep's run report; writes sweep.csv.'''
    cases, lines, failed = by_case(report), [], 0
    where = f'{night.system}:{night.partition}'
    with open(night.path('sweep.csv'), 'w', newline='') as fp:
        out = csv.writer(fp)
        out.writerow(['case', 'partition', 'node', 'figure', 'value',
                      'unit'])
        for (case, part), nodes in sorted(cases.items()):
            for node, tc in sorted(nodes.items()):
                for fig, (value, unit) in sorted(directed(tc).items()):
                    out.writerow([case, part, node, fig, value, unit])
                if tc['result'] == 'fail':
                    failed += 1
                    why = (tc.get('fail_reason') or '').strip().splitlines()
                    lines.append(f'FAILED {case} @{where} on {node} in '
                                 f'{tc.get("fail_phase")}: '
                                 f'{why[0] if why else "no reason given"}')
            lines.append(spread_line(case, where, nodes))
    covered = sorted({n for nodes in cases.values() for n in nodes})
    lines.append(f'swept {len(covered)} node(s) of {night.partition} '
                 f'({", ".join(covered)}); the plan counted '
                 f'{planned_nodes or "?"} (sweep_nodes); every figure on '
                 f'every node: sweep.csv')
    if failed or not cases:
        lines.append(f'RED: {failed} case(s) failed on a node' if failed
                     else 'RED: the sweep ran no case')
    else:
        short = planned_nodes and len(covered) < int(planned_nodes)
        lines.append('MEASURED: every case ran on every node it found' +
                     (f', {len(covered)} of the {planned_nodes} planned'
                      if short else '') +
                     ' (a sweep measures, it does not judge)')
    return lines, bool(failed or not cases)


def main(environ, print_summary):
    '''Sweep each share; 1 when any is red.'''
    red, found = False, shares(environ)
    if not found:
        print_summary(None, 'sweep', [
            'nothing to sweep: the plan sweeps no partition (none sets '
            'sweep_nodes, or none runs a single-node canary)'])
    for night, options, extras in found:
        night.locate()
        night.take()
        title = f'sweep {night.system}:{night.partition}'
        try:
            returncode, path = night.run(
                [f'--distribute={state(environ)}', *options], extras)
        except Aborted as stop:
            print_summary(night, title, [night.aborted(stop)])
            return 1
        if path is None:
            lines, bad = [f'RED: reframe wrote no run report (exit '
                          f'{returncode}): the sweep did not run' +
                          ('' if returncode else
                           f'; --distribute={state(environ)} found no '
                           f'node of {night.partition} in that state (in '
                           f'the reservation, if the run has one)')], True
        else:
            lines, bad = summary(night, load.read_report(path),
                                 extras.get('sweep_nodes'))
        print_summary(night, title, lines)
        red = red or bad
    return 1 if red else 0
