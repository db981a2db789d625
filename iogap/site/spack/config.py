'''The spack.yaml an environment is made from: the project's, plus a scope of
this build keeping every Spack write in the build directory, with a site's
mirror (IOGAP_SPACK_MIRROR) and build cache (IOGAP_SPACK_BUILDCACHE).'''

import difflib
import os

import jsonschema
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


#: The sections of a Spack scope (``name:`` overrides the scopes below)
SECTIONS = ('bootstrap', 'cdash', 'ci', 'compilers', 'concretizer', 'config',
            'definitions', 'develop', 'env_vars', 'include', 'mirrors',
            'modules', 'packages', 'repos', 'toolchains', 'upstreams', 'view')
#: An overlay: Spack's sections, and the ``iogap_arch`` definition the
#: roots of spack.yaml are built for
OVERLAY = jsonschema.Draft7Validator({
    'type': 'object', 'required': ['definitions'],
    'additionalProperties': False,
    'patternProperties': {f'^({"|".join(SECTIONS)}):?$': {}},
    'properties': {
        'packages': {'type': 'object',
                     'additionalProperties': {'type': 'object'}},
        'definitions': {'type': 'array', 'contains': {
            'type': 'object', 'required': ['iogap_arch']}}}})


def check_overlay(path):
    '''``(problem, line)`` of an overlay that is not text, not YAML, empty
    or not of the schema, else ``None``.'''
    try:
        with open(path, encoding='utf-8') as fp:
            text = fp.read()
        data = yaml.safe_load(text)
    except (OSError, UnicodeDecodeError) as err:
        return f'cannot be read as text ({getattr(err, "strerror", err)})', 0
    except yaml.YAMLError as err:
        mark = getattr(err, 'problem_mark', None)
        return (f'not YAML: {getattr(err, "problem", None) or err}'.split(
            '\n')[0], mark.line + 1 if mark else 0)
    if data is None:
        return 'is empty (spack external find writes one)', 0
    data = {str(k): v for k, v in data.items()} if isinstance(
        data, dict) else data
    line = lambda key: next((n for n, l in enumerate(
        text.splitlines(), 1) if key and l.startswith(f'{key}:')), 0)
    for err in sorted(OVERLAY.iter_errors(data), key=lambda e: (
            e.validator != 'additionalProperties', str(e))):
        key = '.'.join(map(str, err.absolute_path))
        if err.validator == 'additionalProperties':
            key = sorted(k for k in data if k.rstrip(':') not in SECTIONS)[0]
            close = difflib.get_close_matches(key, SECTIONS, 1)
            hint = f'did you mean {close[0]!r}? ' if close else ''
            return (f'unknown key {key!r} ({hint}Spack\'s sections: '
                    f'{", ".join(SECTIONS)})', line(key))
        if err.validator in ('contains', 'required'):
            return ('definitions: no iogap_arch (the roots of spack.yaml '
                    'are built for it)', line('definitions'))
        return f'{key or "the file"}: {err.message}', line(key.split('.')[0])
    return None
