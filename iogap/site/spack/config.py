'''The spack.yaml an environment is made from: the project's, plus a scope of
this build keeping every Spack write in the build directory, with a site's
mirror (IOGAP_SPACK_MIRROR) and build cache (IOGAP_SPACK_BUILDCACHE).'''

import os

import yaml

from iogap.site.spack import own


class SpackError(Exception):
    '''Spack, its environment or its inputs failed.'''


def mirror_url():
    '''The mirror named by IOGAP_SPACK_MIRROR as a URL, or ``None``.'''
    mirror = os.environ.get('IOGAP_SPACK_MIRROR')
    if not mirror:
        return None
    if '://' not in mirror:
        mirror = 'file://' + os.path.abspath(mirror)
    if mirror.startswith('file://') and not os.path.isdir(mirror[7:]):
        raise SpackError(f'IOGAP_SPACK_MIRROR names {mirror[7:]}, which is '
                         f'not a directory')
    return mirror


def buildcache_dir():
    '''The build cache a site keeps (IOGAP_SPACK_BUILDCACHE, a path or a
    ``file://`` URL) as an absolute path, or ``None``.'''
    cache = os.environ.get('IOGAP_SPACK_BUILDCACHE')
    if not cache:
        return None
    cache = os.path.abspath(cache.removeprefix('file://'))
    if not os.path.isdir(os.path.dirname(cache)):
        raise SpackError(f'IOGAP_SPACK_BUILDCACHE names {cache}, whose '
                         f'parent is not a directory')
    return cache


def write(path):
    '''spack.yaml (ours, plus the scope of this build) in ``path``.'''
    os.makedirs(os.path.join(path, 'logs'), exist_ok=True)
    base = os.path.dirname(path)
    site = {'config': {
        'install_tree': {'root': os.path.join(base, 'install')},
        'build_stage': [os.path.join(base, 'stage')],
        'source_cache': os.path.join(base, 'source-cache'),
        'misc_cache': os.path.join(base, 'misc-cache'),
    }, 'packages': {
        # A changed tool is a new spec, never a stale copy in the view
        'iogap-tools': {'require': [f'sources={own.digest()}']}}}
    mirror = mirror_url()
    if mirror:
        # Archives of the releases, not their tarballs: no checksums here
        site['mirrors'] = {'iogap': mirror}
        site['config']['checksum'] = False

    cache = buildcache_dir()
    if cache:
        # A padded prefix relocates in place into any clone's shorter one
        # (no patchelf); the cache is the site's own, its binaries unsigned
        site['config']['install_tree']['padded_length'] = 128
        site.setdefault('mirrors', {})['iogap-buildcache'] = {
            'url': f'file://{cache}', 'source': False, 'signed': False}

    with open(os.path.join(path, 'iogap-build.yaml'), 'w') as fp:
        yaml.safe_dump(site, fp, sort_keys=False)
    with open(os.path.join(own.ROOT, 'spack.yaml')) as fp:
        manifest = yaml.safe_load(fp)
    manifest['spack']['include'].append('iogap-build.yaml')
    manifest['spack']['repos'] = [
        os.path.join(own.ROOT, repo) for repo in manifest['spack'].get(
            'repos', [])]
    with open(os.path.join(path, 'spack.yaml'), 'w') as fp:
        yaml.safe_dump(manifest, fp, sort_keys=False)
