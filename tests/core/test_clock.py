'''A wall clock stepped while a job runs (NTP, an operator) fails no
healthy job and lets no hung one run past its limit: local jobs' time
limits are on the monotonic clock (iogap.core.monoclock), and the harness
times its steps by it (job.sh's iogap_elapsed, tested in
test_nightly_faults).

The step is made in reframe's own process: a ``sitecustomize`` on its
PYTHONPATH adds the offset written in a file to ``time.time()`` (stepping
the machine's clock would disturb everything else running on it).'''

import os
import threading
import time

import pytest

from conftest import cases, run_reframe
from test_dd_run import ONE, fake_dd

pytestmark = pytest.mark.reframe

_SITECUSTOMIZE = '''import os, time
_file = os.environ.pop('IOGAP_TEST_CLOCK_STEP', None)
if _file:
    _wall = time.time
    def _stepped():
        try:
            with open(_file) as fp:
                return _wall() + float(fp.read() or 0)
        except (OSError, ValueError):
            return _wall()
    time.time = _stepped
'''


def _step_when_running(tmp_path, seconds, env):
    '''Environment in which reframe's wall clock steps by ``seconds``
    once a job of the run has started its first measured step.'''
    site = tmp_path / 'site'
    site.mkdir()
    (site / 'sitecustomize.py').write_text(_SITECUSTOMIZE)
    offset = tmp_path / 'clock-step'
    offset.write_text('0')

    def step():
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            for root, _, files in os.walk(tmp_path / 'out' / 'stage'):
                if 'rfm_job.out' in files and 'iogap-step: op=memory' in \
                        (open(os.path.join(root, 'rfm_job.out')).read()):
                    offset.write_text(str(seconds))
                    return
            time.sleep(0.1)

    threading.Thread(target=step, daemon=True).start()
    return {**env, 'PYTHONPATH': str(site),
            'IOGAP_TEST_CLOCK_STEP': str(offset)}, offset


@pytest.mark.parametrize('seconds', [3600, -3600])
def test_a_clock_step_fails_no_healthy_job(tmp_path, seconds):
    # A dd that takes a few seconds, so the job runs when the clock steps
    env = fake_dd(tmp_path, 'case "$*" in *count=0*) ;; *) sleep 3 ;; '
                  'esac; exec /bin/dd "$@"')
    env, offset = _step_when_running(tmp_path, seconds, env)
    run = run_reframe(tmp_path, *ONE, '-r', env=env)
    [tc] = cases(run, 'DDSingleStream')
    assert offset.read_text() == str(seconds), 'the clock never stepped'
    assert tc['result'] == 'pass', (tc['fail_reason'], run.stdout)


def test_a_clock_stepped_back_still_ends_a_hung_job_at_its_limit(tmp_path):
    env = fake_dd(tmp_path, 'case "$*" in *count=0*) ;; *) sleep 600 ;; '
                  'esac; exec /bin/dd "$@"')
    env, offset = _step_when_running(tmp_path, -3600, env)
    start = time.monotonic()
    run = run_reframe(tmp_path, *ONE, '-S', 'time_limit=20s', '-r',
                      env=env, timeout=300)
    took = time.monotonic() - start
    [tc] = cases(run, 'DDSingleStream')
    assert offset.read_text() == '-3600', 'the clock never stepped'
    assert tc['result'] == 'fail'
    assert 'timed out' in tc['fail_reason'], tc['fail_reason']
    assert took < 120, f'the hung job ran {took:.0f} s past a 20 s limit'
