'''Tonight's plan when the pipeline states a budget (IOGAP_NIGHT_NODE_HOURS,
IOGAP_NIGHT_WALL, else the profile's night_node_hours; IOGAP_CANARIES
names canaries instead of deriving them):
``python -m iogap.plan night`` on the history database, its -n options
added to the selection and its record (night, rotation length, digest) to
the session's extras, so the run report and the results database say
which plan ran. Without a budget the whole suite runs, as before.'''

import json
import shlex
import subprocess
import sys

from ci.nightly.night import ROOT

#: The pipeline's variables that ask for a plan (or the profile's
#: extras['night_node_hours'])
BUDGET = ('IOGAP_NIGHT_NODE_HOURS', 'IOGAP_NIGHT_WALL')


def _profile_budget(system):
    from iogap import profile
    current = profile.current()
    return bool(current and current['name'] == system and any(
        p['extras'].get('night_node_hours') for p in current['partitions']))


def tonight(night, environ):
    '''``(reframe options, session extras)`` of tonight's plan, or
    ``([], {})`` when no budget is set; a plan that cannot be made stops
    the night with its one line.'''
    if not any(environ.get(v) for v in BUDGET) and \
            not _profile_budget(night.system):
        return [], {}
    path = night.path('plan.json')
    cmd = [sys.executable, '-m', 'iogap.plan', 'night', '--system',
           night.system, '--db', night.results_db, '--json', path]
    proc = subprocess.run(cmd, cwd=ROOT, env=dict(environ),
                          capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(proc.stderr.strip() or f'{shlex.join(cmd)} failed')
    print(proc.stderr.strip(), flush=True)
    with open(path) as fp:
        plan = json.load(fp)
    return shlex.split(proc.stdout), {
        'plan_night': plan['night'], 'plan_rotation': plan['rotation_length'],
        'plan_digest': plan['digest']}
