'''ReFrame's deprecation warnings, found without reading source files:
the same warning, at the same user line, as ReFrame's own check.'''

import warnings

import reframe.core.fields as fields
import reframe.core.warnings as rfm_warnings

from iogap.core import deprecations


class _Holder:
    #: A deprecated field as ReFrame declares its own (``variables``)
    old = fields.DeprecatedField(fields.TypedField(int), 'old is deprecated')


def _warnings(action):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        action()
    return [(w.category, str(w.message), w.filename, w.lineno)
            for w in caught]


def _set_old():
    _Holder().old = 1       # the user's line: ReFrame's frames lie below it


#: The line of that assignment
_USER_LINE = _set_old.__code__.co_firstlineno + 1


def test_a_deprecated_field_warns_at_the_users_line_as_reframe_does():
    assert fields.user_deprecation_warning is \
        deprecations.user_deprecation_warning
    ours = _warnings(_set_old)
    fields.user_deprecation_warning = rfm_warnings.user_deprecation_warning
    try:
        theirs = _warnings(_set_old)
    finally:
        fields.user_deprecation_warning = \
            deprecations.user_deprecation_warning
    assert ours == theirs == [(rfm_warnings.ReframeDeprecationWarning,
                               'old is deprecated', __file__, _USER_LINE)]


def test_a_warning_for_a_later_version_is_not_given_yet():
    assert _warnings(lambda: deprecations.user_deprecation_warning(
        'later', from_version='99.0.0')) == []
