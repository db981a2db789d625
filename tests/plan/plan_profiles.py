'''Plan several profiles, each in a child forked after the common imports
(a process holds one profile's families; ReFrame is imported once):

    python tests/plan_profiles.py OUTDIR SYSTEM... 

writes OUTDIR/SYSTEM.json as ``iogap plan night --json F
--rotation --node-hours 40% --night 5 --db /dev/null`` does.'''

import os
import sys

import reframe.core.pipeline  # noqa: F401 (imported once, before forking)

from iogap.site import profile  # noqa: F401

if __name__ == '__main__':
    out, systems = sys.argv[1], sys.argv[2:]
    children = []
    for system in systems:
        pid = os.fork()
        if pid == 0:
            from iogap.__main__ import main
            try:
                status = main(['plan', 'night', '--system', system,
                               '--node-hours', '40%', '--night', '5',
                               '--rotation', '--db', os.devnull, '--json',
                               os.path.join(out, f'{system}.json')])
            except SystemExit as err:
                os._exit(1 if err.code else 0)
            else:
                os._exit(1 if status else 0)
        children.append((system, pid))
    failed = [s for s, pid in children if os.waitpid(pid, 0)[1]]
    sys.exit(f'failed: {failed}' if failed else 0)
