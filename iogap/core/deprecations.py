'''ReFrame's deprecation warnings without ``inspect.stack()``, which reads
the source of every frame each time ReFrame creates a test: most of a
listing's time with a thousand cases. Module names find the same frame.'''

import sys
import warnings

import reframe
import reframe.core.fields as fields
import reframe.core.variables as variables
import reframe.core.warnings as rfm_warnings
import semver


def user_deprecation_warning(message, from_version='0.0.0'):
    '''ReFrame's ``user_deprecation_warning``, its frame found by module.'''
    stack_level, frame = 2, sys._getframe(1)
    while frame is not None and \
            frame.f_globals.get('__name__', '').startswith('reframe'):
        stack_level += 1
        frame = frame.f_back
    version = semver.VersionInfo.parse(reframe.VERSION)
    # Prereleases are promoted, so that they warn too
    version = semver.VersionInfo(version.major, version.minor, version.patch)
    if rfm_warnings._RAISE_DEPRECATION_ALWAYS or \
            version >= semver.VersionInfo.parse(from_version):
        warnings.warn(message, rfm_warnings.ReframeDeprecationWarning,
                      stacklevel=stack_level)


for _module in (fields, variables):
    if getattr(_module, 'user_deprecation_warning', None) is \
            rfm_warnings.user_deprecation_warning:
        _module.user_deprecation_warning = user_deprecation_warning
