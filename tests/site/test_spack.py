'''The pinned stack: spack.yaml and its overlays, the builder's scopes,
stamp and failures, and where each tool of a built view comes from.'''

import json
import os
import re
import subprocess
import sys

import pytest
import yaml

from conftest import ROOT, built_view, copy_of_project
from iogap.site.spack import stack as spack

ENV = yaml.safe_load(open(os.path.join(ROOT, 'spack.yaml')))['spack']


@pytest.mark.parametrize('package', ['ior', 'osu-micro-benchmarks',
                                     'darshan-runtime', 'darshan-util',
                                     'coreutils', 'numactl', 'fio',
                                     'iogap-tools'])
def test_every_tool_is_pinned_once(package):
    [roots] = [d['iogap_roots'] for d in ENV['definitions']
               if 'iogap_roots' in d]
    specs = [s for s in roots if re.match(rf'{package}@', s)]
    assert len(specs) == 1 and re.match(rf'{package}@\d+(\.\d+)+', specs[0])


#: The recipes of spack/repo that pin the benchmarks' versions
VENDORED = ('ior', 'osu-micro-benchmarks', 'darshan-runtime', 'darshan-util')


@pytest.mark.parametrize('package', VENDORED)
def test_the_pinned_version_is_vendored_with_every_variant_set(package):
    '''Any Spack concretizes these alike: the project's recipe has the
    version spack.yaml pins (only that) and every variant set on it.'''
    recipe = open(os.path.join(ROOT, 'spack', 'repo', 'packages', package,
                               'package.py')).read()
    [roots] = [d['iogap_roots'] for d in ENV['definitions']
               if 'iogap_roots' in d]
    [root] = [s.split('^')[0] for s in roots if s.startswith(f'{package}@')]
    assert re.findall(r'version\("([^"]+)"', recipe) == [
        re.match(rf'{package}@([\d.]+)', root)[1]]
    wanted = set(re.findall(r'[+~](\w+)', root))
    for name in ('generic', 'cori'):
        overlay = yaml.safe_load(open(spack.overlay_path(name)))
        variants = overlay['packages'].get(package, {}).get('variants', '')
        wanted |= set(re.findall(r'(\w+)=', variants))
    assert wanted <= set(re.findall(r'variant\(\s*"(\w+)"', recipe))


def test_a_changed_recipe_is_another_stack(tmp_path, monkeypatch):
    repo = copy_of_project(tmp_path / 'repo')
    monkeypatch.setattr(spack, 'ROOT', str(repo))
    env = spack.Environment(str(tmp_path / 'env'), 'generic')
    before = env.digest()
    recipe = repo / 'spack' / 'repo' / 'packages' / 'ior' / 'package.py'
    recipe.write_text(recipe.read_text().replace('"--without-lustre"', ''))
    assert env.digest() != before


def test_no_site_data_in_the_environment():
    body = '\n'.join(l for l in open(os.path.join(ROOT, 'spack.yaml'))
                     if not l.lstrip().startswith('#'))
    for word in ('externals', 'compilers', 'mirrors', 'cray', 'target='):
        assert word not in body


def test_the_generic_overlay_takes_everything_the_os_has():
    overlay = yaml.safe_load(open(spack.overlay_path('generic')))
    for name in ('openmpi', 'hdf5', 'coreutils', 'numactl', 'autoconf',
                 'automake', 'libtool', 'm4', 'gmake', 'perl', 'pkgconf',
                 'zlib'):
        package = overlay['packages'][name]
        assert package['buildable'] is False and package['externals'], name


def test_a_build_scope_names_the_mirror_and_relaxes_checksums_there_only(
        tmp_path, monkeypatch):
    mirror = tmp_path / 'mirror'
    mirror.mkdir()
    monkeypatch.setenv('IOGAP_SPACK_MIRROR', str(mirror))
    env = spack.Environment(str(tmp_path / 'env'), 'generic')
    env.prepare()
    scope = yaml.safe_load(open(tmp_path / 'env' / 'iogap-build.yaml'))
    assert scope['mirrors'] == {'iogap': f'file://{mirror}'}
    assert scope['config']['checksum'] is False
    assert scope['config']['install_tree']['root'] == str(tmp_path /
                                                          'install')
    manifest = yaml.safe_load(open(tmp_path / 'env' / 'spack.yaml'))
    assert manifest['spack']['include'][-1] == 'iogap-build.yaml'
    monkeypatch.delenv('IOGAP_SPACK_MIRROR')
    env.prepare()
    scope = yaml.safe_load(open(tmp_path / 'env' / 'iogap-build.yaml'))
    assert 'mirrors' not in scope and 'checksum' not in scope['config']
    # Spack's user files stay in the build directory, never in $HOME
    assert env.env()['SPACK_USER_CONFIG_PATH'].startswith(str(tmp_path))
    assert env.env()['SPACK_USER_CACHE_PATH'].startswith(str(tmp_path))


def test_a_build_cache_is_a_binary_mirror_and_pads_the_install_tree(
        tmp_path, monkeypatch):
    monkeypatch.setenv('IOGAP_SPACK_BUILDCACHE', str(tmp_path / 'cache'))
    spack.Environment(str(tmp_path / 'env'), 'generic').prepare()
    scope = yaml.safe_load(open(tmp_path / 'env' / 'iogap-build.yaml'))
    assert scope['mirrors']['iogap-buildcache'] == {
        'url': f'file://{tmp_path}/cache', 'source': False, 'signed': False}
    assert scope['config']['install_tree']['padded_length'] == 128
    monkeypatch.setenv('IOGAP_SPACK_BUILDCACHE', '/nonexistent/cache')
    proc = builder(IOGAP_SPACK_ENV=str(tmp_path / 'env2'))
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] == (
        'spack: IOGAP_SPACK_BUILDCACHE names /nonexistent/cache, whose '
        'parent is not a directory')


def test_a_view_is_trusted_only_with_the_stamp_of_its_inputs(tmp_path):
    env = spack.Environment(str(tmp_path), 'generic')
    assert not env.ready()
    (tmp_path / spack.STAMP).write_text(json.dumps({'digest': 'old'}))
    assert not env.ready()
    (tmp_path / spack.STAMP).write_text(json.dumps(
        {'digest': env.digest()}))
    assert env.ready()
    assert spack.Environment(str(tmp_path), 'cori').digest() != env.digest()


def builder(*args, **environ):
    return subprocess.run([sys.executable, '-m', 'iogap', 'spack',
                           'build', *args], cwd=ROOT, capture_output=True,
                          text=True, env=dict(os.environ, **environ))


def test_a_mirror_that_does_not_exist_is_one_line():
    proc = builder(IOGAP_SPACK_MIRROR='/nonexistent/mirror',
                   IOGAP_SPACK_ROOT=os.environ.get('IOGAP_SPACK_ROOT', '/'))
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] in (
        'spack: IOGAP_SPACK_MIRROR names /nonexistent/mirror, which is not '
        'a directory', 'spack: IOGAP_SPACK_ROOT=/ holds no bin/spack')


def test_a_failed_concretization_shows_spacks_error_and_the_log(tmp_path):
    fake = tmp_path / 'spack' / 'bin'
    fake.mkdir(parents=True)
    (fake / 'spack').write_text('#!/bin/sh\necho "==> Error: cannot '
                                'satisfy ior@4.0.0 ^hdf5@1.12"\nexit 1\n')
    (fake / 'spack').chmod(0o755)
    proc = builder(IOGAP_SPACK_ROOT=str(tmp_path / 'spack'),
                   IOGAP_SPACK_ENV=str(tmp_path / 'env'))
    assert proc.returncode == 1
    log = tmp_path / 'env' / 'logs' / 'concretize.log'
    assert f'spack concretize failed ({log})' in proc.stderr
    assert '==> Error: cannot satisfy ior@4.0.0 ^hdf5@1.12' in proc.stderr
    assert not (tmp_path / 'env' / spack.STAMP).exists()


@pytest.mark.skipif(built_view() is None, reason='no built view')
def test_the_built_view_holds_the_tools_and_externals_the_os_ones():
    env = spack.environment_for({'spack_overlay': 'generic'}, 'anyhost')
    for tool in spack.VIEW_TOOLS:
        assert os.path.exists(os.path.join(env.view, tool)), tool
    path, spec = env.external('dd')
    assert path == '/usr/bin/dd' and spec.startswith('coreutils@9')
    assert env.lock()['ior']['version'] == '4.0.0'
    assert env.lock()['osu-micro-benchmarks']['version'] == '7.4'
    # Built from the project's recipes, whichever Spack built them
    assert {env.lock()[p]['namespace'] for p in VENDORED} == {'iogap'}
