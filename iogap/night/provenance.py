'''What a night ran on, recorded with its session (``--session-extras``)
so that a step change can be matched with what changed that night: the
commit (the pipeline's), the kernel, the digest of the Spack environment's
``spack.lock`` and the versions of its root specs. The test cases record
where each tool came from (``tool_provider``) and every tool their job
executed as its node resolved it (``tools_resolved``: path, digest and
version, job.sh's ``iogap_tool``), compared night to night by
:func:`tool_changes`.'''

import glob
import hashlib
import json
import os

import iogap


def extras(environ):
    '''``{key: value}`` to record with tonight's session (no commas: they
    separate ReFrame's ``--session-extras``). The ``spack.lock`` is that of
    the environment the checks use: ``IOGAP_SPACK_ENV``, the parent of
    ``IOGAP_SPACK_VIEW``, else the one ``setup.sh`` built under
    build/spack/.'''
    found = {'kernel': os.uname().release, 'spack_lock': 'none',
             'tools': 'none'}
    dirs = [environ.get('IOGAP_SPACK_ENV'),
            os.path.dirname(os.path.abspath(environ['IOGAP_SPACK_VIEW']))
            if environ.get('IOGAP_SPACK_VIEW') else None,
            *sorted(glob.glob(os.path.join(iogap.HOME, 'build', 'spack',
                                           '*')))]
    path = next((p for p in (os.path.join(d, 'spack.lock') for d in dirs if d)
                 if os.path.isfile(p)), None)
    if path:
        with open(path, 'rb') as fp:
            data = fp.read()
        found['spack_lock'] = hashlib.sha256(data).hexdigest()[:12]
        try:    # name@version of its root specs
            lock = json.loads(data)
            specs = lock.get('concrete_specs', {})
            found['tools'] = ';'.join(sorted({
                f'{specs[r["hash"]]["name"]}@{specs[r["hash"]]["version"]}'
                for r in lock.get('roots', []) if r.get('hash') in specs
            })) or 'none'
        except (ValueError, KeyError, TypeError):
            found['tools'] = 'unreadable spack.lock'
    return {k: str(v).replace(',', ';') for k, v in found.items()}
