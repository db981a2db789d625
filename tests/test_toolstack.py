'''Where the tools come from on a machine without Spack: a Spack view the
user gives, else PATH; the choice is recorded once and on every result.'''

import os

import pytest

from conftest import run_reframe

pytestmark = pytest.mark.reframe


def stack_record(run):
    [path] = [os.path.join(root, 'rfm_build.out')
              for root, _, files in os.walk(os.path.join(run.out, 'output'))
              if 'ToolStack' in root and 'rfm_build.out' in files]
    with open(path) as fp:
        return fp.read()


def dd_case(run):
    [tc] = [tc for tc in run.testcases() if tc['name'].startswith('DD')]
    return tc


ARGS = ('-n', r'^DDSingleStream.*cpu_bind=default.*mode=buffered',
        '-S', 'count=8', '-S', 'repetitions=1', '-r')


def test_without_spack_the_tools_come_from_path(tmp_path):
    run = run_reframe(tmp_path, *ARGS, env={'IOGAP_SPACK_VIEW': ''})
    assert run.returncode == 0, run.stdout
    record = stack_record(run)
    assert 'provider: PATH' in record and 'dd: /' in record
    assert dd_case(run)['tool_provider'].startswith('PATH:')


def test_a_user_view_comes_before_path(tmp_path):
    view = tmp_path / 'view' / 'bin'
    view.mkdir(parents=True)
    os.symlink('/bin/dd', view / 'dd')
    run = run_reframe(tmp_path, *ARGS,
                      env={'IOGAP_SPACK_VIEW': str(tmp_path / 'view')})
    assert run.returncode == 0, run.stdout
    assert 'provider: spack-view' in stack_record(run)
    provider = dd_case(run)['tool_provider']
    assert provider == f'spack-view:{view}/dd'
