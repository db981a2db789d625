'''ReFrame configuration for iogap.

Every ``systems/*.py`` contributes a ``site_configuration`` fragment (its
systems and any environments of its own); they are merged here, with the
catch-all generic profile last so that a real site is matched first.
Run from the repository root: ``reframe -C reframe_config.py -r``.
'''

import glob
import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.abspath(__file__))
OUTPUT = os.environ.get('IOGAP_OUTPUT', os.path.join(ROOT, 'output'))
sys.path.insert(0, ROOT)   # the systems import the iogap library
os.makedirs(OUTPUT, exist_ok=True)


def _load_fragment(path):
    name = 'iogap_system_' + os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.site_configuration


def _system_files():
    files = sorted(glob.glob(os.path.join(ROOT, 'systems', '*.py')))
    # generic.py matches any host: it must come last
    return sorted(files, key=lambda f: os.path.basename(f) == 'generic.py')


_systems, _environments = [], []
for _path in _system_files():
    _fragment = _load_fragment(_path)
    _systems += _fragment.get('systems', [])
    _environments += _fragment.get('environments', [])

for _system in _systems:
    # Stage and output trees live under one predictable directory
    _system.setdefault('stagedir', os.path.join(OUTPUT, 'stage'))
    _system.setdefault('outputdir', os.path.join(OUTPUT, 'output'))

# A malformed reference file is an error now, before any job runs
from iogap import references   # noqa: E402
for _system in _systems:
    references.load(_system['name'], [p['name'] for p in
                                      _system['partitions']])

_spack_view = os.environ.get('IOGAP_SPACK_VIEW')
# Systems that bring no environments of their own share these two
_generic = [s['name'] for s in _systems
            if not any(s['name'] in e.get('target_systems', [])
                       for e in _environments)]

site_configuration = {
    'systems': _systems,
    'environments': _environments + [
        # The tools come from a Spack view when one is given, else from PATH
        {'name': 'builtin', 'target_systems': _generic, 'cc': 'cc', 'cxx': 'c++', 'ftn': 'gfortran',
         'features': [] if _spack_view else ['tools']},
        {'name': 'spack', 'target_systems': _generic, 'cc': 'mpicc', 'cxx': 'mpicxx', 'ftn': 'mpif90',
         'features': ['tools'] if _spack_view else [],
         'env_vars': [['PATH', f'{_spack_view}/bin:$PATH']] if _spack_view
         else []},
    ],
    'general': [
        {
            'check_search_path': [os.path.join(ROOT, 'checks')],
            'check_search_recursive': True,
            'report_file': os.path.join(OUTPUT, 'reports',
                                        'run-report-{sessionid}.json'),
            'perf_info_level': 'info',
        },
    ],
    'storage': [
        {'enable': True,
         'sqlite_db_file': os.path.join(OUTPUT, 'results.db')},
    ],
    'logging': [
        {
            'handlers': [
                {'type': 'stream', 'name': 'stdout', 'level': 'info',
                 'format': '%(message)s'},
                {'type': 'file', 'name': os.path.join(OUTPUT, 'reframe.log'),
                 'level': 'debug',
                 'format': '[%(asctime)s] %(levelname)s: %(check_info)s: '
                           '%(message)s',
                 'append': False},
            ],
            'handlers_perflog': [
                {'type': 'filelog',
                 'prefix': os.path.join(OUTPUT, 'perflogs',
                                        '%(check_system)s',
                                        '%(check_partition)s'),
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
                 'append': True},
            ],
        },
    ],
}
