'''A curve judged for real on the generic profile: IOR file per process
at both points of this host's sweep (1 and 2 processes per node), the
buffered write over the fsync one at each, judged as one value, the
geometric mean of the points' ratios, from the cases the run measured.'''

import math

import pytest

from conftest import cases, needs_tools, perf, run_reframe
from test_judge_run import refdir

pytestmark = [pytest.mark.reframe, needs_tools]

SIDE = {'test': 'IORBench', 'partition': 'default', 'var': 'write_bw'}
CURVE = {'name': 'buffered_over_fsync_fpp_write_bw_1_to_2procs',
         'numerator': {**SIDE, 'params': {'layout': 'fpp', 'api': 'POSIX',
                                          'mode': 'buffered'}},
         'denominator': {**SIDE, 'params': {'layout': 'fpp', 'api': 'POSIX',
                                            'mode': 'fsync'}},
         'over': 'procs_per_node', 'at': [1, 2],
         # a band no healthy host leaves: what is tested is that the curve
         # reads every point and judges their mean, not this host's disk
         'ref': [1.0, -0.99, 99.0], 'unit': 'ratio', 'provenance': 'test'}


def test_a_curve_is_judged_from_every_point_it_names(tmp_path):
    run = run_reframe(tmp_path, '-n', 'IORBench%core_spec=0%cpu_bind='
                      'default.*%layout=fpp%api=POSIX%mode=(buffered|fsync)',
                      '-n', 'RatioCheck', '-x', 'darshan=on', '-r',
                      env=refdir(tmp_path, ratios=[CURVE]))
    measured = {(tc['procs_per_node'], tc['mode']): perf(tc, 'write_bw')
                for tc in cases(run, 'IORBench') if tc['result'] == 'pass'}
    assert len(measured) == 4, run.stdout
    [ratio] = cases(run, 'RatioCheck')
    assert ratio['result'] == 'pass', ratio['fail_reason']
    logs = [math.log(measured[(n, 'buffered')] / measured[(n, 'fsync')])
            for n in (1, 2)]
    assert perf(ratio, CURVE['name']) == \
        pytest.approx(math.exp(sum(logs) / 2), rel=1e-9)
