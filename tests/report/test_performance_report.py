'''reframe --performance-report under reframe_config.py's perf_report_spec:
one row a figure, narrow enough to read, tonight's value against the last
day's, each judgement's row with the bounds it applies.'''

import os
import re

import pytest

from conftest import ROOT, run_reframe

pytestmark = pytest.mark.reframe

#: One judgement any disk passes: a direct dd write of at least 0.5 MB/s
GREEN = os.path.join(ROOT, 'tests', 'data', 'pipeline', 'green',
                     'anyhost.yaml')


def table(stdout):
    '''The report's rows as ``{column: cell}``.'''
    lines = [line for line in stdout.split('PERFORMANCE REPORT')[1]
             .splitlines() if line.startswith('│')]
    cells = [[c.strip() for c in line.strip('│').split('│')]
             for line in lines]
    return lines, [dict(zip(cells[0], row)) for row in cells[1:]]


def test_the_performance_report_is_readable_and_shows_the_bounds(tmp_path):
    # its reference a float, as most are (the file's 1.0 is read as 1)
    with open(GREEN) as fp:
        text = fp.read().replace('ref: [1.0, -0.5,', 'ref: [1.25, -0.6,')
    (tmp_path / 'reference').mkdir()
    (tmp_path / 'reference' / 'anyhost.yaml').write_text(text)
    env = {'IOGAP_RESULTS_DB': str(tmp_path / 'results.db'),
           'IOGAP_REFERENCE_DIR': str(tmp_path / 'reference')}
    select = ('-x', 'darshan=on', '-S', 'DDSingleStream.count=16', '-r',
              '--performance-report')
    # the measured case alone (its figures have no reference: ReFrame
    # stores 0), then judged (a float bound): the report joins them
    first = run_reframe(tmp_path, '-n', '^DDSingleStream.*cpu_bind=default'
                        '.*mode=direct', *select, env=env)
    assert first.returncode == 0, first.stdout
    for _ in range(2):      # ReFrame shows the rows the last day has too
        run = run_reframe(tmp_path, '-n', 'AbsoluteCheck', *select, env=env)
        out = run.stdout + run.proc.stderr
        assert run.returncode == 0 and 'Traceback' not in out, out
        assert 'failed to generate performance report' not in out, out
    lines, rows = table(run.stdout)
    assert max(map(len, lines)) <= 200, lines[0]     # was 300-900
    [judged] = [r for r in rows if r['short_name'].startswith('Absolute')]
    assert judged['pvar'] == 'write_bw' and judged['punit'] == 'MB/s'
    assert float(judged['plower (lhs)']) == 0.5      # 1.25 - 60 %
    assert judged['pupper (lhs)'] == 'inf'
    assert judged['presult (lhs)'] == 'pass'
    # every figure of the measured case, against the last day's value
    measured = [r for r in rows if r['short_name'].startswith('DDSingle')]
    assert {r['pvar'] for r in measured} >= {'write_bw', 'read_once_bw'}
    assert all(re.fullmatch(r'-?[\d.]+|nan', r['pdiff (%)'])
               for r in measured), measured[0]
