'''The Spack environment and its overlays, checked structurally (Spack is
not needed); concretized for real when a ``spack`` is on PATH.'''

import glob
import os
import re
import shutil
import subprocess

import pytest
import yaml

from conftest import ROOT

OVERLAYS = sorted(glob.glob(os.path.join(ROOT, 'systems', 'spack', '*.yaml')))


def load(path):
    with open(path) as fp:
        return yaml.safe_load(fp)


@pytest.fixture(scope='module')
def env():
    return load(os.path.join(ROOT, 'spack.yaml'))['spack']


def roots(env):
    [defs] = [d['iogap_roots'] for d in env['definitions']
              if 'iogap_roots' in d]
    return defs


@pytest.mark.parametrize('package', ['ior', 'osu-micro-benchmarks',
                                     'darshan-runtime', 'darshan-util',
                                     'coreutils', 'numactl'])
def test_every_tool_is_pinned_once(env, package):
    specs = [s for s in roots(env) if re.match(rf'{package}@', s)]
    assert len(specs) == 1, f'{package} must be one root with a version'
    assert re.match(rf'{package}@\d+(\.\d+)+', specs[0])


def test_ior_has_hdf5_and_mpi_io(env):
    [ior] = [s for s in roots(env) if s.startswith('ior@')]
    assert '+hdf5' in ior and '+mpi' in ior


def test_unified_view_and_overlay_include(env):
    assert env['concretizer']['unify'] is True
    assert env['view']['iogap']['root'] == 'view'
    assert env['include'] == ['$IOGAP_SPACK_OVERLAY']


def test_no_site_data_in_the_environment():
    text = open(os.path.join(ROOT, 'spack.yaml')).read()
    body = '\n'.join(l for l in text.splitlines()
                     if not l.lstrip().startswith('#'))
    for site_word in ('externals', 'compilers', 'modules', 'cray', 'target='):
        assert site_word not in body


@pytest.mark.parametrize('path', OVERLAYS, ids=os.path.basename)
def test_overlay_shape(path):
    overlay = load(path)
    assert overlay['packages']['mpi']['buildable'] is False
    assert any('iogap_arch' in d for d in overlay['definitions'])
    for name, pkg in overlay['packages'].items():
        for ext in pkg.get('externals', []):
            assert re.match(rf'{name}@\d', ext['spec'])
            assert ext.get('prefix') or ext.get('modules')


def test_spack_partitions_name_an_existing_overlay():
    import runpy
    for path in glob.glob(os.path.join(ROOT, 'systems', '*.py')):
        config = runpy.run_path(path)['site_configuration']
        for system in config['systems']:
            for part in system['partitions']:
                if 'spack' not in part.get('features', []):
                    continue
                extras = part['extras']
                overlay = os.path.join(ROOT, 'systems', 'spack',
                                       f'{extras["spack_overlay"]}.yaml')
                assert os.path.exists(overlay), part['name']
                assert extras['spack_env']


@pytest.mark.skipif(not shutil.which('spack'), reason='no spack on PATH')
def test_generic_overlay_concretizes(tmp_path):
    shutil.copy(os.path.join(ROOT, 'spack.yaml'), tmp_path)
    env = dict(os.environ, IOGAP_SPACK_OVERLAY=os.path.join(
        ROOT, 'systems', 'spack', 'generic.yaml'))
    proc = subprocess.run(['spack', '-e', str(tmp_path), 'concretize', '-f'],
                          env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert 'ior@4' in proc.stdout
