'''Mechanisms observed directly: each step's I/O counters and residency
parsed from real job output, the shares judged, the reasons a host cannot
give them, preconditions and conditional entries in reference files, which
skips a run may have, and how the report shows a judgement not applicable.'''

import os
import subprocess

import pytest
import yaml

from conftest import ROOT
from iogap.core import registry, steps
from iogap.dd import mechanism
from iogap.errors import ReferenceFileError
from iogap.judge import references, split_skips, unexpected_skips
from iogap.history import load
from iogap.report import plot_judge
from iogap.report.sections import Context
from iogap.site import profile

MiB = 2 ** 20

# The families take their partition-shaped parameters from the profile
# loaded when first imported (conftest's Cori): import them before a test
# here loads the generic profile
registry.names()


def dd_steps(data, name):
    with open(data('dd', name)) as fp:
        text = fp.read()
    found = [s for s in steps.parse(text) if s['op'] != 'memory']
    return text, found


def test_each_step_says_what_it_moved(data):
    text, found = dd_steps(data, 'buffered_mechanisms.out')
    assert steps.device_of(text) == ('vda', '254:0', 'disk')
    write = found[0]
    assert write['op'] == 'write' and write.resident == 64 * MiB
    assert set(write.io) == {'device_read', 'device_written', 'fetched'}
    assert found[1]['op'] == 'read1' and found[1].io['fetched'] >= 64 * MiB
    assert found[2].io['fetched'] == 0


def test_buffered_shares_show_eviction_and_cached_rereads(data):
    text, found = dd_steps(data, 'buffered_mechanisms.out')
    figures, missing = mechanism.observe(found, 64 * MiB,
                                         steps.device_of(text), 3)
    assert missing == {}
    assert figures['write_resident_share'] == (100.0, '%')
    assert figures['read_once_fetched_share'][0] >= 100
    assert figures['reread_fetched_share'][0] == 0
    assert figures['read_once_device_read_bytes'][1] == 'B'


def test_direct_shares_show_the_page_cache_bypassed(data):
    text, found = dd_steps(data, 'direct_mechanisms.out')
    figures, _ = mechanism.observe(found, 64 * MiB, steps.device_of(text), 3)
    assert figures['write_resident_share'][0] == 0
    assert figures['write_device_share'][0] >= 100
    assert figures['reread_fetched_share'][0] == 100


def test_a_host_without_a_device_gives_reasons_not_figures(data):
    text, found = dd_steps(data, 'buffered_mechanisms.out')
    figures, missing = mechanism.observe(found, 64 * MiB,
                                         ('none', '0:27', 'tmpfs'), 3)
    assert figures == {}
    assert set(missing) == {'write_device_share', 'write_resident_share',
                            'read_once_fetched_share', 'reread_fetched_share'}
    assert 'on tmpfs (device 0:27), with no block device' in \
        missing['write_device_share']

    no_fincore = text.replace('resident=67108864', 'resident=unknown')
    found = [s for s in steps.parse(no_fincore) if s['op'] != 'memory']
    figures, missing = mechanism.observe(found, 64 * MiB,
                                         steps.device_of(text), 3)
    assert 'write_resident_share' not in figures
    assert 'fincore' in missing['write_resident_share']
    assert 'reread_fetched_share' in figures


def test_a_step_without_counters_is_a_sanity_error(data):
    from reframe.core.exceptions import SanityError
    text, _ = dd_steps(data, 'buffered_mechanisms.out')
    found = [s for s in steps.parse(text.replace('iogap-io:', 'lost:'))
             if s['op'] != 'memory']
    with pytest.raises(SanityError, match='no I/O counters'):
        mechanism.observe(found, 64 * MiB, steps.device_of(text), 3)


@pytest.mark.parametrize('path, found', [
    ('/dev/shm', r'^iogap-device: none 0:\d+ tmpfs$'),
    ('/', r'^iogap-device: \S+ \d+:\d+ (disk|partition|loop|dm)$'),
])
def test_the_job_finds_the_scratch_device(path, found):
    if not os.path.isdir(path):
        pytest.skip(f'no {path} here')
    proc = subprocess.run(['bash', '-c', f'. {steps.JOB_SH}; iogap_device '
                           f'{path}; iogap_run op=x -- true'],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    import re
    assert re.search(found, proc.stdout, re.M), proc.stdout
    [step] = steps.parse(proc.stdout)
    assert step.io is not None


def anyhost(tmp_path, change):
    with open(os.path.join(ROOT, 'reference', 'anyhost.yaml')) as fp:
        data = yaml.safe_load(fp)
    change(data)
    path = tmp_path / 'anyhost.yaml'
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return str(path)


def check(path):
    profile.load(['--system', 'anyhost'], {})
    return references.File(path, 'anyhost', profile.parts())


def test_the_generic_reference_declares_its_conditions(tmp_path):
    ref = check(os.path.join(ROOT, 'reference', 'anyhost.yaml'))
    assert len(ref.entries('mechanisms')) == 6
    pre = [e['name'] for e in ref.data['ratios'] if 'precondition' in e]
    assert 'cached_over_first_read_bw' in pre


@pytest.mark.parametrize('change, message', [
    (lambda d: d['ratios'][0]['precondition'].pop('at_most'),
     'is not valid under any of the given schemas'),
    (lambda d: d['ratios'][0]['precondition'].update(at_most=0),
     'bound 0 must be positive'),
    (lambda d: d['ratios'][0]['precondition']['numerator'].update(
        var='nope_bw'), "reports no figure 'nope_bw'"),
    (lambda d: d['mechanisms'][0].update(var='memory_bw'),
     'describes the spread of a run'),
    (lambda d: d['mechanisms'][0].update(unit='ratio'),
     "differs from the figure's unit '%'"),
])
def test_bad_conditions_are_refused_in_one_line(tmp_path, change, message):
    with pytest.raises(ReferenceFileError, match=message) as err:
        check(anyhost(tmp_path, change))
    assert '\n' not in str(err.value)


def report_with(*cases):
    base = {'name': 'X', 'display_name': 'X', 'result': 'pass',
            'environ': 'builtin',
            'system': 'anyhost', 'partition': 'default', 'fixture': False,
            'perfvalues': {}}
    return {'session_info': {'uuid': 'u'},
            'runs': [{'testcases': [{**base, **c} for c in cases]}]}


def test_declared_not_applicable_skips_are_expected(tmp_path):
    reference = {'system': 'anyhost', 'expected_skips': 1, 'ratios': [
        {'name': 'a', 'precondition': {}}, {'name': 'b'}],
        'mechanisms': [{'name': 'm', 'applies_when': 'a device'}]}
    na = {'result': 'skip', 'not_applicable': 'no device'}
    report = report_with({**na, 'judgement': 'a'}, {**na, 'judgement': 'm'},
                         {'result': 'skip', 'name': 'DDSingleStream'})
    expected, unexpected = split_skips(report, reference)
    assert [tc['judgement'] for tc in expected] == ['a', 'm']
    assert unexpected == []

    # Not declared conditional: unexpected, however many skips are allowed
    report['runs'][0]['testcases'].append({**report['runs'][0]['testcases'][
        0], 'judgement': 'b'})
    assert [tc['judgement'] for tc in unexpected_skips(report, reference)] \
        == ['b']

    # More other skips than expected_skips: all of them
    report = report_with({'result': 'skip'}, {'result': 'skip'})
    assert len(unexpected_skips(report, reference)) == 2


def test_the_report_shows_a_judgement_not_applicable(tmp_path):
    report = report_with({
        'name': 'RatioCheck %ratio=cached', 'display_name':
        'RatioCheck %ratio=cached', 'result': 'skip', 'judgement': 'cached',
        'not_applicable': 'the device reads far slower than memory does '
                          'not hold'})
    rows = load.rows_of(report, load.session_of(report, 'r.json'))
    [row] = rows
    assert row.verdict == load.NOT_APPLICABLE and row.figure == 'cached'
    ctx = Context(rows, rows, [], str(tmp_path))
    table = plot_judge.draw(ctx)['table']
    [cells] = table['rows']
    assert cells[1] == 'cached' and cells[9] == 'N/A'
    assert 'does not hold' in cells[10] and table['classes'] == ['na']


def test_the_nightly_verdict_counts_declared_skips_apart(tmp_path):
    from iogap.judge import verdict
    import json
    ref = tmp_path / 'anyhost.yaml'
    ref.write_text(yaml.safe_dump({'system': 'anyhost', 'ratios': [
        {'name': 'a', 'precondition': {}}]}))
    report = report_with({'result': 'skip', 'judgement': 'a',
                          'not_applicable': 'x', 'name': 'RatioCheck',
                          'display_name': 'RatioCheck %ratio=a',
                          'tags': ['judge']},
                         {'result': 'pass', 'perfvalues': {
                             'anyhost:default:a': [3, 2, 0, None, 'r',
                                                   'pass']}})
    path = tmp_path / 'report.json'
    path.write_text(json.dumps(report))
    lines, status = verdict.judge(str(path), None, str(ref))
    assert '1 not applicable on this host' in lines[-3]
    # no skip counted against the file; but its one judgement skipped
    assert status == verdict.UNJUDGED and lines[-1].startswith(
        'NOT JUDGED: nothing was judged'), lines
