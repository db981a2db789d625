'''Numbers cross the job boundary as plain integers and fixed decimals,
whatever the size, the awk or the locale: the step parser reads what the
harness prints (iogap.core.steps).'''

import subprocess

from iogap.core import steps


def _job_sh(script, tmp_path, **env):
    proc = subprocess.run(['bash', '-c', f'. {steps.JOB_SH}\n{script}'],
                          capture_output=True, text=True, timeout=30,
                          cwd=tmp_path, env={'PATH': f'{tmp_path}:/usr/bin:'
                                             '/bin', **env})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_page_cache_bytes_past_2_gib_are_an_integer(tmp_path):
    # fincore's per-file counts as a 10 GB dd leaves them; an awk sum
    # printed 1e+10 (mawk: 2.14748e+09 past 2 GiB), which no parser read
    fincore = tmp_path / 'fincore'
    fincore.write_text('#!/bin/sh\necho 5000000000; echo 5000000000\n')
    fincore.chmod(0o755)
    (tmp_path / 'f').write_bytes(b'x')
    out = _job_sh('iogap_bytes f', tmp_path)
    assert out.strip().endswith('resident=10000000000'), out
    assert steps.parse('iogap-step: op=write\n' + out) is not None


def test_seconds_are_integer_microseconds_in_any_locale(tmp_path):
    out = _job_sh('iogap_micro a 12,5; iogap_micro b 3; '
                  'iogap_micro c 1795635557.165653789; echo $a $b $c; '
                  'iogap_seconds 10000000123; echo; iogap_seconds -1500000',
                  tmp_path, LC_ALL='C.UTF-8')
    assert out.split() == ['12500000', '3000000', '1795635557165653',
                           '10000.000123', '-1.500000']


def test_a_long_step_is_timed_to_the_microsecond(tmp_path):
    # A step of a 10 GB dd takes minutes: seconds past 2^31 microseconds
    out = _job_sh('iogap_begin op=write; iogap_t0=$((iogap_t0 - 3000000000))'
                  '; iogap_u0=$((iogap_u0 - 3000000000)); iogap_end',
                  tmp_path)
    [step] = steps.parse(out)
    assert 3000.0 <= step.seconds < 3000.5, out
