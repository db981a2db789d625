'''``iogap night pipeline``: tonight planned once (``iogap plan night
--jobs``) and split into the child pipeline ``output/ci/night-pipeline.yml``:
a job per partition's share, one for the judgements spanning partitions,
the node sweeps, then the report and re-baselining over every run report;
all store into one history database (ReFrame serializes the writes).'''

import copy
import os

import yaml

from iogap.night import planned as plan
from iogap.night.tonight import ROOT, Night
from iogap.site import profile

#: The parent pipeline, whose template and artifacts the jobs follow
PARENT = os.path.join(ROOT, 'ci', 'gitlab-ci.yml')

#: The child pipeline, in the generating job's output/ci/
FILE = 'night-pipeline.yml'

#: Stages of the child pipeline, in order
STAGES = ['partition', 'cross', 'sweep', 'report']

#: The night's settings each job of the child pipeline reads as the
#: planning job had them (GitLab forwards the schedule's variables too;
#: gitlab-ci-local does not). Nothing that may hold a credential (a
#: mirror's URL) is written into the artifact.
CARRIED = ('IOGAP_SCRATCH', 'IOGAP_HISTORY_NIGHTS', 'IOGAP_MIN_JUDGED',
           'IOGAP_SELECT',
           'IOGAP_REFERENCE_DIR', 'IOGAP_REQUIRE_REFERENCES',
           'IOGAP_ACCOUNT', 'IOGAP_QOS', 'IOGAP_RESERVATION',
           'IOGAP_NIGHT_NODE_HOURS', 'IOGAP_NIGHT_WALL', 'IOGAP_NIGHT_JOBS',
           'IOGAP_NIGHT_SWEEP', 'IOGAP_NIGHT_WITHIN', 'IOGAP_CANARIES',
           'IOGAP_SPACK_ROOT', 'IOGAP_SPACK_ENV', 'IOGAP_SPACK_VIEW',
           'IOGAP_OSU_PREFIX', 'IOGAP_PYTHON', 'SLURM_CONF')


def carried(environ):
    '''The settings of :data:`CARRIED` and the profile's ``ENVIRONMENT``
    that ``environ`` has (``$`` as ``$$``, as GitLab reads it).'''
    return {k: environ[k].replace('$', '$$')
            for k in (*CARRIED, *profile.environment()) if environ.get(k)}


def _job(parent, name, partition, variables, script, stage):
    '''A job of the night: the parent's suite job, on its share.'''
    art = copy.deepcopy(parent['suite']['artifacts'])
    art['paths'] = [f'output/ci/{name}/' if p == 'output/ci/' else p
                    for p in art['paths']]
    art['reports'] = {'junit': f'output/reports/junit-{name}.xml'}
    return {'extends': '.iogap', 'stage': stage,
            # a red job before it leaves the rest of the night to run
            'when': 'always',
            # nothing of the jobs before it: each runs its own share
            'dependencies': [],
            'resource_group': f'iogap-$IOGAP_SYSTEM-{partition or "cross"}',
            'timeout': parent['suite']['timeout'],
            'variables': {'IOGAP_NIGHT_JOB': name,
                          'IOGAP_NIGHT_PARTITION': partition or '',
                          **variables},
            'script': [script], 'artifacts': art}


def _share(selects, extras):
    return {'IOGAP_NIGHT_SELECT': ' '.join(f'-n {s}' for s in selects),
            'IOGAP_NIGHT_EXTRAS': ','.join(f'{k}={v}'
                                           for k, v in extras.items())}


def jobs(parent, made):
    '''``{job name: job}`` of the plan ``made``.'''
    extras, found = plan.extras_of(made), {}
    for job in made['jobs']:
        name = job['name']
        found[f'night:{name}'] = _job(
            parent, name, job['partition'], _share(
                job['selects'], {**extras, 'plan_job': name}),
            'iogap night',
            'partition' if job['partition'] else 'cross')
    nights = list(found)
    for part, swept in made.get('sweep', {}).items():
        found[f'sweep:{part}'] = _job(
            parent, f'sweep-{part}', part, _share(
                swept['variants'], {**extras, 'plan_job': f'sweep-{part}',
                                    'sweep_nodes': swept['nodes']}),
            'iogap night sweep', 'sweep')
    # tonight's run reports: the artifacts of tonight's jobs
    reports = 'output/reports/run-report-*.json'
    for name, script in (
            ('report', f'iogap report {reports} --db '
                       f'"$IOGAP_RESULTS_DB" -o output/html'),
            ('rebaseline', f'iogap rebaseline {reports} '
                           f'--dry-run --patch rebaseline.patch')):
        found[name] = {'extends': '.iogap', 'stage': 'report',
                       'when': 'always', 'script': [script],
                       'needs': [{'job': n, 'artifacts': True}
                                 for n in nights],
                       'artifacts': copy.deepcopy(parent[name]['artifacts'])}
    return found


def render(night, made, environ):
    '''The child pipeline's YAML text.'''
    with open(PARENT) as fp:
        parent = yaml.safe_load(fp)
    head = [f'# The night {made["night"]} of {night.system} (plan digest '
            f'{made["digest"]}, budget {made["budget"]}), made by python '
            f'-m iogap.night pipeline; every case within '
            f'{made["covered_within"]} night(s)']
    head += [f'# {line}' for line in made.get('not_tonight', [])]
    pipeline = {
        'variables': {**parent['variables'], **carried(environ),
                      'IOGAP_SYSTEM': night.system,
                      # the one history every job of the night writes
                      'IOGAP_RESULTS_DB': night.results_db},
        'stages': STAGES,
        # the parent's template; a child pipeline's source is its parent
        '.iogap': {k: v for k, v in parent['.iogap'].items()
                   if k != 'rules'},
        **jobs(parent, made)}
    return '\n'.join(head) + '\n' + yaml.safe_dump(
        pipeline, sort_keys=False, width=1000)


def main(environ):
    '''Plan tonight and write the child pipeline.'''
    night = Night(environ)
    system = night.locate()
    night.take()
    print(f'nightly: system {system}, history database {night.results_db}',
          flush=True)
    _, made = plan.make(night, environ, '--jobs')
    path = night.path(FILE)
    with open(path, 'w') as fp:
        fp.write(render(night, made, environ))
    names = [f'night:{j["name"]}' for j in made['jobs']] + \
        [f'sweep:{p}' for p in made.get('sweep', {})]
    print(f'nightly: {path}: {", ".join(names)}, report, rebaseline',
          flush=True)
    return 0
