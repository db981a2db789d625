'''Tonight's plan when a budget is set (IOGAP_NIGHT_NODE_HOURS,
IOGAP_NIGHT_WALL or the profile's night_node_hours): ``iogap plan night``'s
-n options and its record in the session's extras; a job of a split night
runs the share it was given (IOGAP_NIGHT_SELECT, IOGAP_NIGHT_EXTRAS).'''

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


def make(night, environ, *more):
    '''``(-n options, plan)`` of ``iogap plan night``; a plan that cannot
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
    '''``(reframe options, session extras)`` of tonight's plan.'''
    if environ.get('IOGAP_NIGHT_SELECT'):       # planned for this job
        return inputs.env(environ, 'IOGAP_NIGHT_SELECT', inputs.words), \
            inputs.env(environ, 'IOGAP_NIGHT_EXTRAS', inputs.pairs, {})
    if not any(environ.get(v) for v in BUDGET):
        current = profile.current()
        if not (current and current['name'] == night.system and any(
                p['extras'].get('night_node_hours')
                for p in current['partitions'])):
            return [], {}
        print('nightly: the profile gives each partition its budget '
              '(night_node_hours): IOGAP_NIGHT_JOBS=partition runs each '
              'partition\'s share in a job of its own', flush=True)
    options, plan = make(night, environ)
    return options, extras_of(plan)
