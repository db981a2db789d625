'''The night plan (iogap.plan): the same night gives the same plan, every
case is covered within the rotation, the canaries run every night, a
judgement is planned with all its sides, and no night exceeds its budget;
on every profile. docs/reference/budget.md is what the command prints.'''

import argparse
import hashlib
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT
from iogap.site import profile
from iogap.errors import EXIT, IogapError
from iogap.__main__ import main as iogap
from iogap.judge import references
from iogap.plan import inventory as cases, cost, nightplan as night

#: Profiles checked in a process of their own (a process holds one)
OTHERS = ['anyhost', 'localpair', 'minicori', 'minicluster']


def check_rotation(record, canaries, slack=1e-9):
    '''The promises, from a plan's whole rotation.'''
    nights = [set(n) for n in record['nights']]
    limits = record['limits']
    universe = set(record['usage']) | set(record['needs'])
    assert set().union(*nights) == universe, 'a variant is never planned'
    for planned in nights:
        assert set(canaries) <= planned
        for judgement, needs in record['needs'].items():
            if judgement in planned:
                assert set(needs) <= planned, (judgement, needs)
        used = dict(record.get('sweep_usage') or {})   # every night
        for sel in planned & set(record['usage']):
            for k, v in record['usage'][sel].items():
                used[k] = used.get(k, 0) + v
        if limits['wall'] is not None:
            assert used['wall'] <= limits['wall'] * (1 + slack) + \
                night.JUDGE_SECONDS * len(record['needs'])
        for part, hours in limits['node_hours'].items():
            got = sum(v for k, v in used.items() if k != 'wall') \
                if part == '*' else used.get(part, 0)
            assert got <= hours * (1 + slack), (part, got, hours)


@pytest.fixture(scope='module')
def cori():
    profile.load(['--system', 'cori'], {})
    references.load('cori', profile.parts())
    found = cases.measured()
    return found, cases.judgements(found), cost.costs(found)


def test_cori_plan_keeps_its_promises(cori):
    found, judgements, costs = cori
    made = night.Plan(found, judgements, costs, night.Budget.parse('200'))
    assert made.length > 1 and made.canaries
    check_rotation(made.record(0), made.canaries)
    again = night.Plan(found, judgements, costs, night.Budget.parse('200'))
    assert again.summary(17) == made.summary(17)
    assert made.summary(3)['selects'] == \
        made.summary(3 + made.length)['selects']


def _ran(made, night, selects, ran):
    '''Record in ``ran`` (a plan's history) that ``selects`` ran.'''
    for sel in selects:
        for key in made.variants.get(sel, []):
            ran.setdefault(made.cases[key].history_key, set()).add(night)


def test_what_waited_longest_runs_whatever_happened_before(cori):
    '''A night that did not run, one cut short, costs that changed: the
    plan reads the history before the night, so the same night gives the
    same plan, no night exceeds the budget, and every case runs within
    what the night promised once nothing more goes wrong.'''
    found, judgements, costs = cori
    budget, ran = night.Budget.parse('200'), {}
    made = night.Plan(found, judgements, costs, budget, ran=ran)
    assert made.night(4) == made.summary(4)['selects']   # no history yet
    dearer = {k: c for k, c in costs.items()}
    for num, key in enumerate(sorted(dearer)):
        if num % 3 == 0:          # a third of the cases now take 60 % longer
            dearer[key] = cost.Cost.__new__(cost.Cost)
            dearer[key].__dict__.update(costs[key].__dict__,
                                        seconds=costs[key].seconds * 1.6)
    dear = night.Plan(found, judgements, dearer, budget, ran=ran)
    for n in range(4):
        planned = made.night(n)
        if n == 1:
            continue                             # the night did not run
        _ran(made, n, planned[:len(planned) // 3] if n == 2 else planned,
             ran)                                # night 2 was cut short
        assert made.night(n) == planned          # the same night, the same
    promise = len(dear.ahead(4))
    assert promise <= len(dear.slots)
    last = {}
    for n in range(4, 4 + promise):
        planned = dear.night(n)
        assert set(dear.canaries) <= set(planned)
        assert budget.load(night.usage(planned, dear.variants,
                                       dear.costs)) <= 1 + 1e-9
        _ran(dear, n, planned, ran)
        last.update({sel: n for sel in planned})
    assert set(last) >= set(dear.variants), 'a case waited past the promise'


def test_a_smaller_budget_rotates_longer(cori):
    found, judgements, costs = cori
    lengths = [night.Plan(found, judgements, costs,
                          night.Budget.parse(f'knl={h},haswell={h}')).length
               for h in (300, 100)]
    assert lengths[0] < lengths[1]


def test_a_budget_too_small_says_so(cori):
    found, judgements, costs = cori
    with pytest.raises(IogapError, match='raise the budget|canaries'):
        night.Plan(found, judgements, costs, night.Budget.parse('1'))
    for bad in [('x=', None), (None, '5 parsecs'), (None, None)]:
        with pytest.raises(IogapError):
            night.Budget.parse(*bad)


def test_the_doc_is_what_the_generator_prints():
    # In a process of its own: the variants numbered as a Cori run does
    printed = subprocess.run(
        [sys.executable, os.path.join('docs', 'generate.py'), 'budget'],
        cwd=ROOT, capture_output=True, text=True, check=True).stdout
    # the generated part; what was measured on the local cluster follows
    with open(os.path.join(ROOT, 'docs', 'reference', 'budget.md')) as fp:
        assert fp.read().startswith(printed), (
            'regenerate the top of docs/reference/budget.md: python '
            'docs/generate.py budget')


def test_every_profile_keeps_its_promises(tmp_path):
    env = dict(os.environ, SLURM_CONF='', IOGAP_MINICLUSTER_PARTITIONS='')
    proc = subprocess.run(
        [sys.executable, os.path.join(ROOT, 'tests', 'plan', 'plan_profiles.py'),
         str(tmp_path), *OTHERS], cwd=ROOT, env=env, capture_output=True,
        text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    for system in OTHERS:
        plan = json.loads((tmp_path / f'{system}.json').read_text())
        check_rotation(plan['rotation'], plan['canaries'])
        assert plan['selects'] == plan['rotation']['nights'][0]
        assert len(plan['rotation']['nights']) == plan['covered_within'] \
            <= plan['rotation_length']


def test_the_nightly_runs_the_plan_when_a_budget_is_set(tmp_path):
    from iogap.night import planned as plan
    night_ = argparse.Namespace(system='anyhost', results_db=os.devnull,
                                path=lambda name: str(tmp_path / name))
    assert plan.tonight(night_, {}) == ([], {})
    opts, extras = plan.tonight(night_, dict(os.environ,
                                             IOGAP_NIGHT_NODE_HOURS='50%'))
    assert opts[0] == '-n' and len(opts) % 2 == 0
    assert all(opt == '-n' for opt in opts[::2])
    assert set(extras) == {'plan_night', 'plan_rotation', 'plan_digest'}


def test_a_planned_night_records_its_plan_and_what_it_cost():
    from iogap.history.runreport import measured
    from iogap.plan import making
    path = os.path.join(ROOT, 'tests', 'data', 'plan',
                        'planned-night-minicluster.json')
    with open(path) as fp:
        report = json.load(fp)
    info = report['session_info']
    selects = sorted(a for a in info['cmdline'].split()
                     if '@' in a and not a.startswith('-'))
    digest = hashlib.sha256(json.dumps(selects).encode()).hexdigest()[:12]
    assert info['plan_digest'] == digest     # the record names the selection
    cost = measured(report)
    jobs = [tc for r in report['runs'] for tc in r['testcases']
            if not tc['fixture'] and 'judge' not in tc['tags']]
    assert sum(c[0] for c in cost.values()) == len(jobs)
    assert all(c[1] > 0 for c in cost.values())
    assert 'plan: night 3 of a rotation of 4' in making.ran(path)


def test_the_profile_can_state_the_budget(cori, monkeypatch):
    from iogap.plan import making as cli
    monkeypatch.delenv('IOGAP_NIGHT_NODE_HOURS', raising=False)
    monkeypatch.delenv('IOGAP_NIGHT_WALL', raising=False)
    args = argparse.Namespace(node_hours=None, wall=None)
    with pytest.raises(IogapError, match='needs node-hours'):
        cli.budget(args, cori[2])
    knl = [p for p in profile.current()['partitions'] if p['name'] == 'knl']
    monkeypatch.setitem(knl[0]['extras'], 'night_node_hours', 120)
    assert cli.budget(args, cori[2]).node_hours == {'knl': 120.0}
    monkeypatch.setenv('IOGAP_NIGHT_NODE_HOURS', '50')
    assert cli.budget(args, cori[2]).node_hours == {'*': 50.0}


def test_bad_input_is_one_line(capsys):
    assert iogap(['plan', 'ran', '/nonexistent.json']) == EXIT['input']
    assert 'nonexistent.json: No such file' in capsys.readouterr().err
    # a profile of its own: in a process of its own
    proc = subprocess.run([sys.executable, '-m', 'iogap', 'plan', 'cost',
                           '--system', 'nosuch'], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode != 0 and proc.stderr.count('\n') == 1
    assert 'no profile for system \'nosuch\'' in proc.stderr


def test_a_case_finds_its_runs_in_the_results_database(cori):
    '''Keyed by ReFrame's display name, which a profile's other variants
    do not renumber.'''
    db = os.path.join(ROOT, 'tests', 'data', 'changepoint',
                      'nights-results.db')
    runs = cost.measured(db, 'anyhost')
    assert runs and all(w > 0 for walls in runs.values() for w in walls)
    names = {name for name, _ in runs}
    [case] = [c for c in cori[0].values() if c.family == 'DDSingleStream'
              and c.partition == 'knl' and c.params == dict(
                  core_spec=0, cpu_bind='default', memory='default',
                  darshan='off', mode='direct')]
    assert case.name in names
