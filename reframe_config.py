'''ReFrame configuration for iogap: ``reframe -C reframe_config.py -r``.

Only the selected system's profile (``systems/<name>.py``: ``--system``,
else the first whose HOSTNAMES match, the generic profile last) and its
reference file are loaded and checked; a mistake in either stops the run
before any job, in one line. Listing writes nothing; a run takes the
scratch root and the output directory for itself and clears what killed
runs left there.
'''

import os
import sys

# ReFrame's deprecation check, without reading every frame's source
# Jobs timed by the monotonic clock: a wall-clock step fails none
from iogap.core import (
                            deprecations,  # noqa: F401
                            monoclock,  # noqa: F401
                            session,
)
from iogap.judge import references
from iogap.plan import progress
from iogap.site import profile

ROOT = os.path.dirname(os.path.abspath(__file__))
# ReFrame's log of its start goes to the run's log, never to /tmp
session.keep_start_log()
# -S values checked before any test, in one line each
session.check_settings()
#: ReFrame's own --prefix (or RFM_PREFIX) first, IOGAP_OUTPUT where neither
#: is given: stage, output, perflogs, reports, log and results database
OUTPUT = session.output_dir(sys.argv, os.environ,
                            os.path.join(ROOT, 'output'))

_site = profile.load(sys.argv, os.environ)
_system = _site['systems'][0]
profile.parametrize(_system)
# --stage, --output and --perflogdir move their part, as ReFrame's options
_system.setdefault('prefix', OUTPUT)
RESULTS_DB = os.path.abspath(os.environ.get('IOGAP_RESULTS_DB') or
                             os.path.join(OUTPUT, 'results.db'))
references.load(_system['name'], profile.parts())
references.say_what_is_judged(_system)
session.start(sys.argv, _system, OUTPUT, RESULTS_DB)
# stdout's status lines end with the time left, from the planner's costs
progress.register(RESULTS_DB)

_view = os.environ.get('IOGAP_SPACK_VIEW')
_own_envs = _site.get('environments', [])
_environments = _own_envs or [
    # The tools come from the Spack view or PATH (the ToolStack fixture
    # decides); compilers are only needed by Spack itself
    {'name': 'builtin', 'features': ['tools'], 'cc': 'cc', 'cxx': 'c++',
     'ftn': 'gfortran', 'target_systems': [_system['name']]},
    {'name': 'spack', 'cc': 'mpicc', 'cxx': 'mpicxx', 'ftn': 'mpif90',
     'target_systems': [_system['name']]},
]

site_configuration = {
    'systems': _site['systems'],
    'environments': _environments,
    'general': [{
        'check_search_path': [os.path.join(ROOT, 'checks')],
        'check_search_recursive': True,
        'report_file': os.path.join(OUTPUT, 'reports',
                                    'run-report-{sessionid}.json'),
        # One line per case, not one per figure: the figures are in the
        # perflog, the run report, -v and --performance-report
        'perf_info_level': 'verbose',
        # --performance-report: a row a figure, tonight against the last
        # day, and a judgement's bounds (measured cases have none: the
        # verdict is iogap's). Bounds are not join keys: their types vary
        'perf_report_spec': ('now-1d:now/last:short_name,sysenv,pvar,punit/'
                             'short_name,sysenv,pvar,punit,pval_L,'
                             'plower_L,pupper_L,presult_L'),
    }],
    'storage': [{
        'enable': True,
        'sqlite_db_file': RESULTS_DB,
    }],
    'logging': [{
        # stdout, its status lines with the time left (iogap.plan.progress)
        'handlers$': [{'type': 'iogap_progress', 'name': 'stdout',
                       'level': 'info', 'format': '%(message)s'}],
        'handlers': session.file_handlers(sys.argv, OUTPUT),
        'handlers_perflog': [{
            'type': 'filelog',
            'basedir': 'perflogs',
            'prefix': '%(check_system)s/%(check_partition)s',
            'level': 'info',
            'format': ('%(check_job_completion_time)s|'
                       '%(check_display_name)s|%(check_system)s:'
                       '%(check_partition)s|%(check_environ)s|'
                       'provider=%(check_tool_provider)s|'
                       '%(check_method)s|%(check_perfvalues)s'),
            'format_perfvars': ('%(check_perf_var)s=%(check_perf_value)s'
                                ' %(check_perf_unit)s '
                                '(ref=%(check_perf_ref)s '
                                'l=%(check_perf_lower_thres)s '
                                'u=%(check_perf_upper_thres)s '
                                '%(check_perf_result)s)|'),
            'append': True,
        }],
    }],
}
