'''A night split per partition (iogap.plan.jobs, iogap/night/pipeline.py),
the canaries' node sweep (iogap.plan.budget, iogap/night/sweeprun.py), and what
lets the jobs of one night run side by side: the scratch root locked per
partition, copies of the history kept at once, a night of several
sessions read back as one. The real runs are in tests/test_pipeline.py.'''

import json
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import types

import pytest
import yaml

from conftest import ROOT, lock_holder
from iogap.site import profile
from iogap.history import resultsdb
from iogap.core import runlock, scratch
from iogap.errors import IogapError, ScratchError
from iogap.judge import references
from iogap.plan import inventory as cases, cost, jobs, nightplan as night
from test_plan import check_rotation

#: The universe of the local-cluster nights (bench/budget.py's)
WITHIN = '^(OSULatency|DDSingleStream)$'
#: The latency ratio across partitions and a single-node dd case
CANARIES = 'RatioCheck@0|DDSingleStream@2'
RATIO = 'RatioCheck@0'
DATA = os.path.join(ROOT, 'tests', 'data', 'plan')


@pytest.fixture
def minicluster(monkeypatch):
    '''The minicluster profile's universe, loaded with some partitions:
    ``(cases, judgements, costs, judgements left out)``.'''
    monkeypatch.delenv('SLURM_CONF', raising=False)

    def load(partitions=''):
        monkeypatch.setenv('IOGAP_MINICLUSTER_PARTITIONS', partitions)
        profile.load(['--system', 'minicluster'], os.environ)
        references.load('minicluster', profile.parts())
        found = {k: c for k, c in cases.measured().items()
                 if re.search(WITHIN, c.family)}
        left_out = []
        return found, cases.judgements(found, left_out), \
            cost.costs(found), left_out
    return load


def ran_by(made, split):
    '''``[(variant, partition)]`` the jobs of a split night run.'''
    return sorted((sel, key[1]) for job in split for sel in job['selects']
                  for key in made.variants.get(sel, [])
                  if job['partition'] in (None, key[1]))


def test_a_split_night_runs_every_case_once_and_every_judgement_whole():
    profile.load(['--system', 'cori'], {})
    references.load('cori', profile.parts())
    found = cases.measured()
    made = night.Plan(found, cases.judgements(found), cost.costs(found),
                      night.Budget.parse('knl=100,haswell=80'))
    crossed = 0
    for index in range(made.length):
        selects = made.night(index)
        split = jobs.split(made, selects)
        assert ran_by(made, split) == sorted(
            (sel, key[1]) for sel in selects
            for key in made.variants.get(sel, []))
        for j in made.judgements:
            if j.select in selects:
                [job] = [b for b in split if j.select in b['selects']]
                assert set(made.needs[j.select]) <= set(job['selects'])
                sides = {part for _, part in j.sides}
                assert job['partition'] in (None, *sides)
                assert job['partition'] is None or len(sides) == 1
        used = night.usage(selects, made.variants, made.costs)
        for part in ('knl', 'haswell'):
            assert sum(b['node_hours'].get(part, 0) for b in split) == \
                pytest.approx(used[part], abs=0.01 * len(split))
        cross = [b for b in split if b['partition'] is None]
        crossed += bool(cross)
        assert [b['name'] for b in cross] in ([], ['haswell+knl'])
    assert crossed, 'no night ran a judgement across KNL and Haswell'


def test_the_sweep_costs_the_single_node_canaries_once_per_node(minicluster):
    found, judgements, costs, _ = minicluster()
    budget = night.Budget.parse('knl=0.1,haswell=0.1,shared=0.1')
    made = night.Plan(found, judgements, costs, budget, CANARIES,
                      sweeps=True)
    tonight = made.summary(5)
    assert set(tonight['sweep']) == {'knl', 'haswell'}   # shared: one node
    for part, swept in tonight['sweep'].items():
        # the inter-node latency canary spans two nodes: not swept
        assert swept['variants'] == ['DDSingleStream@2']
        [key] = [k for k in made.variants['DDSingleStream@2'] if k[1] == part]
        assert swept['nodes'] == 2
        assert swept['node_hours'] == pytest.approx(
            2 * costs[key].node_hours, abs=1e-3)
        planned = night.usage(tonight['selects'], made.variants, costs)
        assert tonight['node_hours'][part] == pytest.approx(
            planned[part] + swept['node_hours'], abs=2e-3)
    check_rotation(made.record(5), made.canaries)
    # Counted against the budget: what fits the canaries alone does not
    # fit them with their sweep
    alone = night.Plan(found, judgements, costs, budget, CANARIES).base
    tight = night.Budget({k: v * 1.01 for k, v in alone.items()
                          if k != 'wall'})
    with pytest.raises(IogapError, match='the canaries alone take 1[0-9]{2}%'):
        night.Plan(found, judgements, costs, tight, CANARIES, sweeps=True)


def test_a_judgement_across_partitions_says_why_not_tonight(minicluster):
    found, judgements, costs, left_out = minicluster()
    made = night.Plan(found, judgements, costs, night.Budget.parse(
        'knl=0.05,haswell=0.05,shared=0.05'), 'DDSingleStream@2')
    ahead = made.ahead(0)
    off = [n for n, planned in enumerate(ahead) if RATIO not in planned]
    assert off and left_out == []
    index = off[0]
    later = next(n for n, p in enumerate(made.ahead(index)) if RATIO in p)
    assert jobs.waiting(made, made.night(index), index, made.ahead(index),
                        left_out) == [
        f'{RATIO} (inter_node_over_intra_node_mpi_latency) spans knl+shared:'
        f' not tonight; the rotation plans it for night {index + later}']
    # Its other side's partition left out: never planned, and said
    found, judgements, costs, left_out = minicluster('knl,haswell')
    made = night.Plan(found, judgements, costs, night.Budget.parse(
        'knl=0.1,haswell=0.1'), 'DDSingleStream@2')
    assert RATIO not in made.needs
    [line] = jobs.waiting(made, made.night(0), 0, made.ahead(0), left_out)
    assert line.startswith('RatioCheck (inter_node_over_intra_node_mpi_'
                           'latency): never planned: it reads OSULatency '
                           'on shared, which this run does not generate')


def child_pipeline(minicluster, environ):
    from iogap.night import pipeline
    found, judgements, costs, left_out = minicluster('knl,shared')
    made = night.Plan(found, judgements, costs, night.Budget.parse(
        'knl=0.1,shared=0.1'), CANARIES, sweeps=True)
    tonight = made.summary(7)
    tonight['jobs'] = jobs.split(made, tonight['selects'])
    where = types.SimpleNamespace(system='minicluster',
                                  results_db='/h/results.db')
    text = pipeline.render(where, tonight, environ)
    with open(pipeline.PARENT) as fp:
        return tonight, yaml.safe_load(text), yaml.safe_load(fp)


def test_the_child_pipeline_runs_each_share_in_a_job_of_its_own(minicluster):
    tonight, child, parent = child_pipeline(minicluster, {
        'IOGAP_RESERVATION': 'night', 'IOGAP_QOS': 'q', 'SLURM_CONF': '/s',
        'IOGAP_NIGHT_WITHIN': WITHIN, 'IOGAP_NIGHT_SELECT': 'not carried',
        'HOME': '/not/carried', 'IOGAP_SPACK_MIRROR': 'https://u:t@m/',
        # the profile reads it (its ENVIRONMENT): every job must see it
        'IOGAP_MINICLUSTER_PARTITIONS': 'knl,shared'})
    assert child['stages'] == ['partition', 'cross', 'sweep', 'report']
    assert child['.iogap'] == {k: v for k, v in parent['.iogap'].items()
                               if k != 'rules'}
    assert child['variables'] == {
        **parent['variables'], 'IOGAP_RESERVATION': 'night',
        'IOGAP_QOS': 'q', 'SLURM_CONF': '/s', 'IOGAP_SYSTEM': 'minicluster',
        'IOGAP_NIGHT_WITHIN': WITHIN.replace('$', '$$'),
        'IOGAP_MINICLUSTER_PARTITIONS': 'knl,shared',
        'IOGAP_RESULTS_DB': '/h/results.db'}
    nights = {n: j for n, j in child.items() if n.startswith('night:')}
    assert list(nights) == ['night:knl', 'night:shared', 'night:knl+shared']
    selected = set()
    for name, job in nights.items():
        part = name.split(':')[1]
        own = job['variables']
        assert job['stage'] == ('cross' if '+' in part else 'partition')
        assert own['IOGAP_NIGHT_PARTITION'] == ('' if '+' in part else part)
        assert job['resource_group'] == 'iogap-$IOGAP_SYSTEM-' + (
            'cross' if '+' in part else part)
        assert own['IOGAP_NIGHT_EXTRAS'] == (
            f'plan_night=7,plan_rotation={tonight["rotation_length"]},'
            f'plan_digest={tonight["digest"]},plan_job={part}')
        assert job['artifacts']['paths'][0] == f'output/ci/{part}/'
        assert job['artifacts']['reports']['junit'] == \
            f'output/reports/junit-{part}.xml'
        assert job['dependencies'] == [] and job['when'] == 'always'
        selected |= set(own['IOGAP_NIGHT_SELECT'].split()[1::2])
    assert selected == set(tonight['selects'])
    assert RATIO in nights['night:knl+shared']['variables'][
        'IOGAP_NIGHT_SELECT']
    sweep = child['sweep:knl']
    assert sweep['variables']['IOGAP_NIGHT_SELECT'] == '-n DDSingleStream@2'
    assert sweep['variables']['IOGAP_NIGHT_EXTRAS'].endswith(
        'plan_job=sweep-knl,sweep_nodes=2')
    assert sweep['resource_group'] == 'iogap-$IOGAP_SYSTEM-knl'
    for name in ('report', 'rebaseline'):
        assert child[name]['needs'] == [{'job': n, 'artifacts': True}
                                        for n in nights]
        assert 'output/reports/run-report-*.json' in child[name]['script'][0]


def test_a_budget_per_partition_starts_the_child_pipeline():
    with open(os.path.join(ROOT, 'ci', 'gitlab-ci.yml')) as fp:
        parent = yaml.safe_load(fp)
    split = '$IOGAP_NIGHT_NODE_HOURS =~ /=/ || $IOGAP_NIGHT_JOBS == ' \
            '"partition"'
    for name in ('suite', '.after_suite', 'sweep'):
        assert parent[name]['rules'][0] == {'if': split, 'when': 'never'}
    assert parent['.split']['rules'][0]['if'].startswith(f'({split}) && ')
    trigger = parent['night']
    assert trigger['needs'] == ['night-plan']
    assert trigger['resource_group'] == 'iogap-$IOGAP_SYSTEM'
    assert trigger['trigger'] == {
        'include': [{'artifact': 'output/ci/night-pipeline.yml',
                     'job': 'night-plan'}],
        'strategy': 'depend', 'forward': {'pipeline_variables': True}}


def test_the_sweep_of_a_single_job_night_comes_from_its_plan(tmp_path):
    from iogap.night import sweeprun as sweep
    (tmp_path / 'ci').mkdir()
    (tmp_path / 'ci' / 'plan.json').write_text(json.dumps({
        'night': 3, 'rotation_length': 4, 'digest': 'abc', 'sweep': {
            'knl': {'variants': ['DDSingleStream@2'], 'nodes': 2}}}))
    [(share, options, extras)] = sweep.shares({'IOGAP_OUTPUT': str(tmp_path)})
    assert (share.job, share.partition) == ('sweep-knl', 'knl')
    assert share.dir == str(tmp_path / 'ci' / 'sweep-knl')
    assert options == ['-n', 'DDSingleStream@2']
    assert extras == {'plan_night': 3, 'plan_rotation': 4,
                      'plan_digest': 'abc', 'plan_job': 'sweep-knl',
                      'sweep_nodes': 2}
    assert sweep.state({'IOGAP_NIGHT_SWEEP': '1'}) == sweep.IDLE
    # No plan (no budget, or a suite that failed before planning): one line
    proc = subprocess.run([sys.executable, '-m', 'iogap', 'night', 'sweep'],
                          cwd=ROOT, capture_output=True, text=True, env=dict(
                              os.environ, IOGAP_OUTPUT=str(tmp_path / 'none')))
    assert proc.returncode == 1 and proc.stderr == (
        f'nightly: no plan to sweep ({tmp_path}/none/ci/plan.json): the '
        f'suite job plans a night when a budget is set '
        f'(IOGAP_NIGHT_NODE_HOURS, IOGAP_NIGHT_WALL)\n')
    assert sweep.state({'IOGAP_NIGHT_SWEEP': 'avail'}) == 'avail'


def test_the_sweep_names_each_case_s_nodes_and_its_worst(tmp_path):
    '''On a real sweep (sweep-minicluster.json, SOURCES.md).'''
    from iogap.night import sweeprun as sweep
    from iogap.history import load
    report = load.read_report(os.path.join(DATA, 'sweep-minicluster.json'))
    share = types.SimpleNamespace(system='minicluster', partition='knl',
                                  path=lambda name: str(tmp_path / name))
    lines, red = sweep.summary(share, report, 2)
    [case] = sweep.by_case(report)
    nodes = sweep.by_case(report)[case]
    assert sorted(nodes) == ['n1', 'n2'] and not red
    figures = sweep.directed(nodes['n1'])
    assert set(figures) == {'write_bw', 'read_once_bw', 'read_3x_bw'}
    spreads = {f: abs(figures[f][0] - sweep.directed(nodes['n2'])[f][0]) /
               ((figures[f][0] + sweep.directed(nodes['n2'])[f][0]) / 2)
               for f in figures}
    widest = max(spreads, key=spreads.get)
    worst = min(nodes, key=lambda n: sweep.directed(nodes[n])[widest][0])
    assert re.fullmatch(
        rf'SWEEP {re.escape(case[0])} @minicluster:knl: 2 node\(s\) '
        rf'\(n1, n2\); most spread {widest} {spreads[widest]:.1%} \(n1 '
        rf'\S+, n2 \S+ MB/s\), worst {worst}', lines[0]), lines[0]
    assert lines[1:] == [
        'swept 2 node(s) of knl (n1, n2); the plan counted 2 '
        '(sweep_nodes); every figure on every node: sweep.csv',
        'MEASURED: every case ran on every node it found (a sweep '
        'measures, it does not judge)']
    assert len((tmp_path / 'sweep.csv').read_text().splitlines()) == 1 + 6
    # Fewer nodes than the plan counted: said
    lines, red = sweep.summary(share, report, 3)
    assert lines[-1].startswith('MEASURED: every case ran on every node it '
                                'found, 2 of the 3 planned') and not red


def test_runs_on_other_partitions_of_one_root_go_side_by_side(tmp_path):
    holder = lock_holder(tmp_path, 'knl')
    try:
        scratch.lock_run(str(tmp_path), 'scratch root', 'shared')
        with pytest.raises(ScratchError, match=rf'scratch root {tmp_path} '
                           rf'\(partition knl\) is in use by another run '
                           rf'\(pid {holder.pid} on '):
            scratch.lock_run(str(tmp_path), 'scratch root', 'knl')
        # What needs the root alone (.ci/run's flock) sees a live run
        alone = subprocess.run(['flock', '-n', str(tmp_path /
                                                   runlock.RUN_LOCK), 'true'])
        assert alone.returncode != 0
    finally:
        holder.kill()
        holder.wait()
    assert sorted(os.listdir(tmp_path)) == [
        '.iogap-run-knl.lock', '.iogap-run-shared.lock', '.iogap-run.lock']
    assert all(runlock.is_lock(name) for name in os.listdir(tmp_path))


def _keep_copies(db):
    for _ in range(10):
        resultsdb.keep_copy(db)


def test_jobs_of_one_night_keep_copies_of_the_history_at_once(tmp_path):
    db = str(tmp_path / 'results.db')
    shutil.copy(os.path.join(ROOT, 'tests', 'data', 'changepoint',
                             'nights-results.db'), db)
    procs = [multiprocessing.Process(target=_keep_copies, args=(db,))
             for _ in range(3)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(60)
    assert [p.exitcode for p in procs] == [0, 0, 0]
    resultsdb.check(db + resultsdb.LAST_GOOD)
    assert sorted(os.listdir(tmp_path)) == ['results.db',
                                            'results.db.last-good']


def test_a_split_night_is_one_night_of_the_history():
    '''The sessions of a real split night (split-night-results.db): the
    change points read them as one night, and a case of one partition is
    not missed on another.'''
    from iogap.judge import acrossnights as changepoint
    db = os.path.join(DATA, 'split-night-results.db')
    nights = changepoint.sessions(db, kept=1)
    assert sorted(info['plan_job'] for info, _ in nights) == [
        'knl', 'knl+shared', 'shared', 'sweep-knl']
    assert len({info['pipeline'] for info, _ in nights}) == 1
    [knl] = [info['uuid'] for info, _ in nights if info['plan_job'] == 'knl']
    lines, steps, _ = changepoint.judge(db, knl)
    assert not steps and not any('no value tonight' in ln for ln in lines)
    assert lines[-1].endswith(f'judged over 1 night(s) of {db}')
    # The sweep ran the direct dd on n1 and n2 too: those runs are not the
    # case's as the plan runs it (its cost, the nights it ran)
    runs = cost.measured(db, 'minicluster')
    [direct] = [k for k in runs if k[1] == 'knl' and 'mode=direct' in k[0]]
    assert len(runs[direct]) == 1
