'''The project's own tools (the dd driver, its step library, the placement
probe) as the iogap-tools Spack package: pinned, built from the checkout,
taken from the view by the checks, and from the checkout without one.'''

import filecmp
import os
import shutil
import subprocess

import pytest
import yaml

from conftest import ROOT, built_view, run_reframe
from iogap.site.spack import own, stack as spack
from iogap.core.provider import find_tool
from test_osu_parse import fake_test, install

REPO = os.path.join(ROOT, 'spack', 'repo')


def test_the_package_lives_in_a_project_repository_pinned_in_spack_yaml():
    manifest = yaml.safe_load(open(os.path.join(ROOT, 'spack.yaml')))
    assert manifest['spack']['repos'] == ['spack/repo']
    repo = yaml.safe_load(open(os.path.join(REPO, 'repo.yaml')))
    assert repo['repo']['namespace'] == 'iogap'
    package = open(os.path.join(REPO, 'packages', 'iogap-tools',
                                'package.py')).read()
    # No download: the files come from the checkout, listed in own.py
    assert 'has_code = False' in package and 'own.py' in package
    assert 'url' not in package


def test_the_builder_makes_the_repository_absolute_and_pins_the_sources(
        tmp_path):
    env = spack.Environment(str(tmp_path / 'env'), 'generic')
    env.prepare()
    manifest = yaml.safe_load(open(tmp_path / 'env' / 'spack.yaml'))
    assert manifest['spack']['repos'] == [REPO]
    scope = yaml.safe_load(open(tmp_path / 'env' / 'iogap-build.yaml'))
    assert scope['packages']['iogap-tools']['require'] == [
        f'sources={own.digest()}']


def test_a_changed_tool_is_a_new_build(tmp_path, monkeypatch):
    for name, path in own.FILES.items():
        os.makedirs(tmp_path / os.path.dirname(path), exist_ok=True)
        shutil.copy(os.path.join(ROOT, path), tmp_path / path)
    assert own.digest(str(tmp_path)) == own.digest()
    with open(tmp_path / own.FILES['rank-probe.sh'], 'a') as fp:
        fp.write('\n')
    assert own.digest(str(tmp_path)) != own.digest()

    # The view's stamp covers the tools: a changed one is never reused
    env = spack.Environment(str(tmp_path / 'env'), 'generic')
    before = env.digest()
    monkeypatch.setattr(own, 'digest', lambda root=None: 'changed')
    assert env.digest() != before


def test_tools_installed_from_other_sources_are_not_taken(tmp_path):
    # What the package writes beside the tools it installs
    (tmp_path / 'SOURCE').write_text(f'{ROOT} sha256={own.digest()}\n')
    assert not own.stale(str(tmp_path))
    (tmp_path / 'SOURCE').write_text(f'/elsewhere sha256={"0" * 64}\n')
    assert own.stale(str(tmp_path))
    # A remote partition's view, which this host cannot read: trusted
    (tmp_path / 'SOURCE').unlink()
    assert not own.stale(str(tmp_path))


def test_the_checks_take_the_tools_from_the_view_else_the_checkout(
        tmp_path):
    job_sh = own.source('job.sh')
    assert find_tool(fake_test(), 'job.sh', (own.SUBDIR,),
                     checkout=job_sh) == (job_sh, f'checkout:{job_sh}')
    view = tmp_path / 'view'
    found = install(view, own.SUBDIR, 'job.sh')
    assert find_tool(fake_test(str(view)), 'job.sh', (own.SUBDIR,),
                     checkout=job_sh) == (found, f'spack-view:{found}')
    # A view that lacks them (built before they were packaged) is not
    # trusted for them; remotely without a view, the checkout's copies
    assert find_tool(fake_test(str(tmp_path)), 'job.sh', (own.SUBDIR,),
                     checkout=job_sh)[1] == f'checkout:{job_sh}'
    assert find_tool(fake_test(scheduler='slurm'), 'job.sh', (own.SUBDIR,),
                     checkout=job_sh)[1] == f'checkout:{job_sh}'


def test_the_probe_prints_the_line_placement_reads():
    from iogap.core import placement
    out = subprocess.run(['sh', own.source('rank-probe.sh')],
                         capture_output=True, text=True, check=True).stdout
    [rank] = placement.parse(out)
    assert placement.cpu_count(rank['cpus']) == len(os.sched_getaffinity(0))
    assert rank['host'] == os.uname().nodename


def own_view():
    view = built_view()
    return view if view and os.path.isdir(os.path.join(
        view, own.SUBDIR)) else None


@pytest.mark.skipif(own_view() is None, reason='no built view with the '
                    'iogap-tools package (./setup.sh with IOGAP_SPACK_ROOT)')
def test_the_view_holds_the_checkouts_tools():
    view = os.path.join(own_view(), own.SUBDIR)
    for name in own.FILES:
        assert filecmp.cmp(os.path.join(view, name), own.source(name),
                           shallow=False), name
        assert os.access(os.path.join(view, name), os.X_OK)
    assert open(os.path.join(view, 'SOURCE')).read().split() == [
        ROOT, f'sha256={own.digest()}']


DD = ['-n', 'DDSingleStream.*%cpu_bind=default.*%darshan=off.*'
      '%mode=buffered', '-S', 'DDSingleStream.count=16', '-S',
      'DDSingleStream.repetitions=1', '-r']


def dd_case(run):
    [tc] = run.testcases()
    assert tc['result'] == 'pass', run.stdout
    script = open(os.path.join(tc['outputdir'], 'rfm_job.sh')).read()
    return tc, script


@pytest.mark.reframe
@pytest.mark.skipif(own_view() is None, reason='no built view with the '
                    'iogap-tools package (./setup.sh with IOGAP_SPACK_ROOT)')
def test_a_run_uses_the_packaged_tools_from_the_view(tmp_path):
    view = own_view()
    run = run_reframe(tmp_path, *DD, env={'IOGAP_SPACK_VIEW': view})
    tc, script = dd_case(run)
    tools = os.path.join(view, own.SUBDIR)
    assert f'. {tools}/job.sh' in script
    assert f'{tools}/dd-stream.sh ' in script
    assert f'iogap-tools=spack-view:{tools}' in tc['method']


@pytest.mark.reframe
def test_without_a_view_a_run_uses_the_checkouts_copies(tmp_path):
    run = run_reframe(tmp_path, *DD, env={
        'IOGAP_SPACK_VIEW': '', 'IOGAP_SPACK_ENV': str(tmp_path / 'none')})
    tc, script = dd_case(run)
    assert '. ./job.sh' in script and './dd-stream.sh ' in script
    assert f'iogap-tools=checkout:{ROOT}' in tc['method']
    assert tc['tool_provider'].startswith('PATH:')
