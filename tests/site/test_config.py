'''The configuration loads the selected system only, lists its checks with
no warning, and writes nothing when checks are merely listed.'''

import os
import re

import pytest

from conftest import ROOT, run_reframe

pytestmark = pytest.mark.reframe

SYSTEMS = ['anyhost', 'cori', 'localpair']


def snapshot(*dirs):
    '''Every path under ``dirs`` with its modification time.'''
    return {os.path.join(d, f): os.stat(os.path.join(d, f)).st_mtime_ns
            for top in dirs for d, _, files in os.walk(top) for f in files}


@pytest.mark.parametrize('system', SYSTEMS)
def test_listing_writes_nothing_and_warns_of_nothing(tmp_path, system):
    scratch = tmp_path / 'scratch'
    scratch.mkdir()
    before = snapshot(ROOT + '/systems', ROOT + '/reference', str(tmp_path))
    run = run_reframe(tmp_path, '--system', system, '-l', scratch=scratch)
    assert run.returncode == 0, run.stdout + run.proc.stderr
    text = run.stdout + run.proc.stderr
    assert 'Traceback' not in text and 'WARNING' not in text, text
    assert int(re.search(r'Found (\d+) check', run.stdout).group(1)) > 0
    assert '- DDSingleStream' in run.stdout
    assert not os.path.exists(tmp_path / 'out'), 'listing made output/'
    assert os.listdir(scratch) == []
    assert snapshot(ROOT + '/systems', ROOT + '/reference',
                    str(tmp_path)) == before


def test_generic_is_the_default_and_has_no_cori_variants(tmp_path):
    run = run_reframe(tmp_path, '-l')
    assert "selected system:   'anyhost'" in run.stdout
    assert '%core_spec=4' not in run.stdout
    assert '%memory=mcdram' not in run.stdout
    assert 'DDFrequencySweep' not in run.stdout


def test_cori_lists_every_variant_and_its_judgements(tmp_path):
    run = run_reframe(tmp_path, '--system', 'cori:knl', '-l')
    assert '%core_spec=4' in run.stdout and '%memory=mcdram' in run.stdout
    assert 'DDFrequencySweep' in run.stdout and 'FitCheck' in run.stdout
    assert 'IORFrequencySweep' in run.stdout
    # Constrained combinations are never generated
    assert not re.search(r'IORBench .*%api=(MPIIO|HDF5) %mode=direct',
                         run.stdout)


def test_unknown_system_is_one_clear_line(tmp_path):
    run = run_reframe(tmp_path, '--system', 'nosuch', '-l')
    assert run.returncode != 0
    errors = [l for l in (run.stdout + run.proc.stderr).splitlines()
              if 'ERROR' in l]
    assert len(errors) == 1 and "'nosuch'" in errors[0]
    assert 'Traceback' not in run.stdout + run.proc.stderr


def test_a_system_without_references_says_so_and_nightly_refuses(tmp_path):
    empty = tmp_path / 'noref'
    empty.mkdir()
    run = run_reframe(tmp_path, '-l', env={'IOGAP_REFERENCE_DIR': str(empty)})
    lines = [l for l in run.proc.stderr.splitlines() if 'iogap:' in l]
    assert run.returncode == 0 and lines == [
        f'iogap: no reference file {empty}/anyhost.yaml: the figures of '
        f'anyhost are measured but not judged']
    run = run_reframe(tmp_path, '-l', env={'IOGAP_REFERENCE_DIR': str(empty),
                                           'IOGAP_REQUIRE_REFERENCES': '1'})
    assert run.returncode != 0 and 'IOGAP_REQUIRE_REFERENCES=1 demands one' \
        in run.stdout


@pytest.mark.parametrize('root', ['/', '/etc', os.path.expanduser('~')])
def test_a_dangerous_scratch_root_stops_the_run_before_any_job(tmp_path,
                                                                root):
    run = run_reframe(tmp_path, '-n', 'DDSingleStream', '-r', scratch=root)
    assert run.returncode != 0
    assert 'is a system or home directory' in run.stdout
    assert 'Traceback' not in run.stdout + run.proc.stderr


def test_a_malformed_reference_stops_the_run_in_one_line(tmp_path):
    refdir = tmp_path / 'ref'
    refdir.mkdir()
    (refdir / 'anyhost.yaml').write_text(
        'system: anyhost\nratios:\n- {name: x, numerator: {test: DDSingle'
        'Stream, partition: default, var: write_bw}, denominator: {test: '
        'DDSingleStream, partition: default, var: write_bw}, ref: [.nan, '
        '-0.1, 0.1], unit: ratio, provenance: p}\n')
    run = run_reframe(tmp_path, '-r', env={'IOGAP_REFERENCE_DIR':
                                           str(refdir)})
    assert run.returncode != 0
    [line] = [l for l in run.stdout.splitlines() if 'ERROR' in l]
    assert f'{refdir}/anyhost.yaml:3: ratios[0].ref: nan is not a number' \
        in line
    assert not os.path.exists(tmp_path / 'out' / 'stage')


#: The plain buffered dd case, the smallest real run
PLAIN_DD = ('^DDSingleStream(?=.*%mode=buffered)(?=.*%core_spec=0)'
            '(?=.*%cpu_bind=default)(?=.*%darshan=off)')


def test_prefix_and_perflogdir_are_reframes_and_each_session_keeps_its_log(
        tmp_path):
    prefix, perflogs = tmp_path / 'prefix', tmp_path / 'perf'
    run = run_reframe(tmp_path, '-n', PLAIN_DD, '-S', 'count=8', '--prefix',
                      str(prefix), '--perflogdir', str(perflogs), '-r')
    assert run.returncode == 0, run.stdout
    assert not (tmp_path / 'out').exists(), 'IOGAP_OUTPUT used over --prefix'
    assert list((prefix / 'stage' / 'anyhost').iterdir())
    assert list((prefix / 'reports').glob('run-report-*.json'))
    assert (prefix / 'results.db').exists()
    assert (perflogs / 'anyhost' / 'default').is_dir()
    assert not (prefix / 'perflogs').exists()
    [log] = (prefix / 'logs').glob('reframe_*.log')
    first = log.read_text()
    assert 'DDSingleStream' in first

    dry = run_reframe(tmp_path, '-n', PLAIN_DD, '--dry-run',
                      env={'RFM_PREFIX': str(prefix)})
    assert dry.returncode == 0, dry.stdout
    logs = sorted((prefix / 'logs').glob('reframe_*.log'))
    assert len(logs) == 2 and log.read_text() == first


def describe(tmp_path, *args):
    import json
    run = run_reframe(tmp_path, *args, '--describe')
    assert run.returncode == 0, run.stdout
    return json.loads(run.stdout[run.stdout.index('['):])


def test_describe_shows_each_checks_descr_tags_and_figures(tmp_path):
    [dd] = describe(tmp_path, '-n', PLAIN_DD)
    assert dd['descr'].startswith('Single-stream bandwidth in buffered')
    assert {'dd', 'buffered'} <= set(dd['tags'])
    assert {'write_bw', 'read_once_bw', 'read_3x_bw'} <= \
        set(dd['perf_variables'])
    assert not any(v.startswith('darshan') for v in dd['perf_variables'])
    ratios = [c for c in describe(tmp_path, '-n', 'RatioCheck')
              if c['@class'] == 'RatioCheck']     # not their cases
    assert ratios
    for check in ratios:
        assert check['descr'].startswith(
            'One figure over another, or a paired figure (a numerator '
            'alone) (')
        assert 'judge' in check['tags']
        assert check['perf_variables'] == [check['ratio']['name']]


@pytest.mark.parametrize('args,selects', [
    (['-n', 'DDSingleStream%mode=direct'], None),
    (['-n', 'DDSingleStream.*%mode=direct'], 'DDSingleStream.*%mode=direct'),
    (['-n', '^DDSingleStream(?=.*%mode=direct)(?=.*%core_spec=0)'],
     'DDSingleStream %core_spec=0 .*%mode=direct'),
    (['-t', 'direct', '-t', 'dd'], 'DDSingleStream.*%mode=direct'),
])
def test_the_readmes_selection_idioms(tmp_path, args, selects):
    run = run_reframe(tmp_path, *args, '-l')
    listed = [line for line in run.stdout.splitlines()
              if line.startswith('- ')]
    if selects is None:
        assert listed == []
    else:
        assert listed and all(re.search(selects, line) for line in listed)


def test_distribute_refuses_the_judgements_in_one_line(tmp_path):
    run = run_reframe(tmp_path, '--distribute', '-l')
    lines = [line for line in run.proc.stderr.splitlines()
             if '--distribute' in line]
    assert lines == ['iogap: --distribute measures each node apart: the '
                     'judgements are not run (judge a run without '
                     '--distribute)']
    assert 'Check %' not in run.stdout
