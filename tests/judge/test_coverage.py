'''What a night judged, out of what its reference file holds
(iogap.judge.coverage): said on every night, in the summary and the JUnit
report; a night that judged nothing, or less than the site's minimum, is
NOT JUDGED or UNDER-JUDGED (exit 2), never GREEN.'''

import json
import xml.etree.ElementTree as ET

import pytest
import yaml

from iogap.night import driver
from iogap.judge import verdict
from iogap.judge import coverage

REFERENCE = {'system': 'anyhost', 'expected_skips': 0, 'absolute': [
    {'test': 'DDSingleStream', 'partition': 'default',
     'params': {'mode': 'direct'}, 'var': 'write_bw'},
    {'test': 'DDSingleStream', 'partition': 'default',
     'params': {'mode': 'direct'}, 'var': 'read_once_bw'}],
    'ratios': [{'name': 'r1', 'precondition': {}}, {'name': 'r2'}],
    'unjudged': [{'test': 'DDSingleStream', 'partition': 'default',
                  'var': 'read_3x_bw'}]}

ABS = 'AbsoluteCheck@default:cpu_bind=default,mode=direct'


def judgement(name, judged, result='pass', **more):
    '''A judgement case of the run report: ``judged`` ``{figure:
    verdict}``.'''
    kind = 'AbsoluteCheck' if name.startswith('AbsoluteCheck') else \
        'RatioCheck'
    return {'name': f'{kind} %x={name}', 'display_name': f'{kind} {name}',
            'judgement': name.split('AbsoluteCheck')[-1].replace(
                '@', 'DDSingleStream@', 1) if kind == 'AbsoluteCheck'
            else name, 'result': result, 'tags': ['judge'],
            'environ': 'builtin', 'system': 'anyhost',
            'partition': 'default', 'fixture': False,
            'perfvalues': {f'anyhost:default:{f}': [1.0, 1.0, None, None,
                                                    'MB/s', v]
                           for f, v in judged.items()}, **more}


def night(tmp_path, *cases, reference=REFERENCE):
    ref = tmp_path / 'anyhost.yaml'
    ref.write_text(yaml.safe_dump(reference))
    path = tmp_path / 'report.json'
    path.write_text(json.dumps({'session_info': {'uuid': 'u'}, 'runs': [
        {'testcases': list(cases)}]}))
    return verdict.judge(str(path), None, str(ref))


FULL = [judgement(ABS, {'write_bw': 'pass', 'read_once_bw': 'pass'}),
        judgement('r1', {'r1': 'pass'}), judgement('r2', {'r2': 'pass'})]


def test_a_fully_judged_night_says_so_and_is_green(tmp_path):
    lines, status = night(tmp_path, *FULL)
    assert status == verdict.GREEN, lines
    assert lines[-2] == (
        'COVERAGE: judged 4 of the 4 figures the reference file judges '
        '(100%), by 3 of 3 judgements (0 not applicable here); 1 more '
        'figure(s) the file lists unjudged')


def test_a_night_whose_judgements_all_skipped_is_not_judged(tmp_path):
    skipped = [judgement(ABS, {}, result='skip'),
               judgement('r1', {}, result='skip', not_applicable='slow'),
               judgement('r2', {}, result='skip', not_applicable='slow')]
    lines, status = night(tmp_path, *skipped, reference={
        **REFERENCE, 'expected_skips': 1, 'ratios': [
            {'name': 'r1', 'precondition': {}},
            {'name': 'r2', 'applies_when': 'x'}]})
    assert status == verdict.UNJUDGED, lines
    assert 'judged 0 of the 4 figures' in lines[-2]
    assert lines[-1] == ('NOT JUDGED: nothing was judged: 0 of the 4 figures'
                         ' the reference file judges; no case failed, but '
                         'this is not a pass')
    assert not any(line.startswith('GREEN') for line in lines)


def test_a_night_that_ran_no_judgement_is_not_judged(tmp_path):
    lines, status = night(tmp_path, {**FULL[0], 'tags': [], 'name': 'DD'})
    assert status == verdict.UNJUDGED and lines[-1].startswith(
        'NOT JUDGED: '), lines


def test_a_night_under_the_sites_minimum_is_under_judged(tmp_path,
                                                         monkeypatch):
    half = [FULL[0], judgement('r1', {}, result='skip', not_applicable='x')]
    monkeypatch.setenv('IOGAP_MIN_JUDGED', '75%')
    lines, status = night(tmp_path, *half)
    assert status == verdict.UNJUDGED, lines
    assert lines[-1].startswith('UNDER-JUDGED: judged 2 of the 4 figures '
                                'the reference file judges, fewer than the '
                                "site's minimum IOGAP_MIN_JUDGED=75%")
    monkeypatch.setenv('IOGAP_MIN_JUDGED', '2')
    assert night(tmp_path, *half)[1] == verdict.GREEN
    # A regression is red whatever the coverage
    failed = judgement(ABS, {'write_bw': 'fail', 'read_once_bw': 'pass'},
                       result='fail')
    monkeypatch.setenv('IOGAP_MIN_JUDGED', '100%')
    assert night(tmp_path, failed)[1] == verdict.RED


@pytest.mark.parametrize('value', ['lots', '120%', '-1'])
def test_a_bad_minimum_is_one_red_line(tmp_path, monkeypatch, value):
    monkeypatch.setenv('IOGAP_MIN_JUDGED', value)
    lines, status = night(tmp_path, *FULL)
    assert status == verdict.RED
    assert lines[-1] == (f'RED: IOGAP_MIN_JUDGED={value!r} is neither a '
                         f'count of figures nor a share such as 80%: set it '
                         f'to one')


def test_a_job_of_a_split_night_counts_its_share():
    found = coverage.measure(coverage.readings([FULL[1], FULL[2]]),
                             REFERENCE, share=True)
    assert (found.judged, found.held) == (2, 2)
    assert "this job's share judges (100%)" in found.line()
    assert coverage.measure(coverage.readings([FULL[1]]),
                            REFERENCE).held == 4


def test_the_junit_report_carries_the_coverage(tmp_path):
    path = tmp_path / 'junit.xml'
    lines, _ = night(tmp_path, judgement('r1', {}, result='skip',
                                         not_applicable='x'))
    driver.add_coverage(str(path), lines)
    [suite] = ET.parse(path).getroot().findall('testsuite')
    assert (suite.get('name'), suite.get('failures')) == ('coverage', '1')
    assert suite.find('.//failure').get('message').startswith('NOT JUDGED')
    assert suite.find('system-out').text.startswith('COVERAGE: judged 0 ')


def test_a_job_whose_share_holds_no_judgement_is_not_unjudged():
    '''A split night's measuring job: its figures are judged by the job
    that runs the judgements (the plan puts them there).'''
    found = coverage.measure(coverage.readings([{**FULL[0], 'tags': []}]),
                             REFERENCE, share=True)
    assert (found.judged, found.held) == (0, 0)
    assert found.status(coverage.minimum({})) is None
    # the whole night, or a job that ran judgements and judged none, is
    skipped = judgement('r1', {}, result='skip', not_applicable='x')
    assert coverage.measure(coverage.readings([skipped]), REFERENCE,
                            share=True).status(
        coverage.minimum({}))[0] == coverage.NOTHING
