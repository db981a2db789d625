'''Tonight's plan when the pipeline states a budget (IOGAP_NIGHT_NODE_HOURS,
IOGAP_NIGHT_WALL, else the profile's night_node_hours; IOGAP_CANARIES
names canaries instead of deriving them, IOGAP_NIGHT_WITHIN restricts
the checks it draws from, IOGAP_NIGHT_SWEEP adds the node sweep):
``iogap plan night`` on the history database, its -n options
added to the selection and its record (night, rotation length, digest) to
the session's extras, so the run report and the results database say
which plan ran. Without a budget the whole suite runs, as before. A job
of a night split per partition (iogap/night/pipeline.py) was planned by
the job that made the pipeline: it runs its share, IOGAP_NIGHT_SELECT,
and records IOGAP_NIGHT_EXTRAS.'''

import json
import shlex
import subprocess
import sys

from iogap import inputs
from iogap.night.tonight import ROOT
from iogap.site import profile

#: The pipeline's variables that ask for a plan (or the profile's
#: extras['night_node_hours'])
BUDGET = ('IOGAP_NIGHT_NODE_HOURS', 'IOGAP_NIGHT_WALL')


def _profile_budget(system):
    current = profile.current()
    return bool(current and current['name'] == system and any(
        p['extras'].get('night_node_hours') for p in current['partitions']))


def make(night, environ, *more):
    '''Run ``iogap plan night`` for tonight on the history
    database; ``(its -n options, the plan it wrote)``. A plan that cannot
    be made stops the night with its one line.'''
    path = night.path('plan.json')
    cmd = [sys.executable, '-m', 'iogap', 'plan', 'night', '--system',
           night.system, '--db', night.results_db, '--json', path, *more]
    if environ.get('IOGAP_NIGHT_WITHIN'):
        cmd += ['--within', environ['IOGAP_NIGHT_WITHIN']]
    proc = subprocess.run(cmd, cwd=ROOT, env=dict(environ),
                          capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(proc.stderr.strip() or f'{shlex.join(cmd)} failed')
    print(proc.stderr.strip(), flush=True)
    with open(path) as fp:
        return shlex.split(proc.stdout), json.load(fp)


def extras_of(plan):
    '''The session extras that name a plan.'''
    return {'plan_night': plan['night'],
            'plan_rotation': plan['rotation_length'],
            'plan_digest': plan['digest']}


def tonight(night, environ):
    '''``(reframe options, session extras)`` of tonight's plan, or
    ``([], {})`` when no budget is set.'''
    if environ.get('IOGAP_NIGHT_SELECT'):       # planned for this job
        extras = inputs.env(environ, 'IOGAP_NIGHT_EXTRAS', inputs.pairs, {})
        return inputs.env(environ, 'IOGAP_NIGHT_SELECT', inputs.words), \
            extras
    if not any(environ.get(v) for v in BUDGET) and \
            not _profile_budget(night.system):
        return [], {}
    if not any(environ.get(v) for v in BUDGET):
        print('nightly: the profile gives each partition its budget '
              '(night_node_hours): IOGAP_NIGHT_JOBS=partition runs each '
              'partition\'s share in a job of its own', flush=True)
    options, plan = make(night, environ)
    return options, extras_of(plan)
