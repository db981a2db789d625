'''Every tool a job executes is recorded as its node resolved it (job.sh's
iogap_tool: path, digest, version; ``tools_resolved`` in the run report),
and "what changed that night" names a tool whose binary changed.'''

import os
import stat

import pytest

from iogap.judge import acrossnights as changepoint
from iogap.history import sessions
from conftest import run_reframe
from iogap.core.provider import on_node, resolved

DD = ('-n', 'DDSingleStream.*%cpu_bind=default.*%darshan=off.*%mode=direct',
      '-S', 'DDSingleStream.count=16')


def test_a_name_left_to_the_node_is_recorded_as_the_node_resolved_it():
    out = ('x\niogap-tool: dd path=/usr/bin/dd sha256=9f3cb61575630638 '
           'version=dd_(coreutils)_9.1\niogap-tool: launcher path=none '
           'sha256=none version=none\n')
    found = resolved(out)
    assert found == {'dd': '/usr/bin/dd sha256:9f3cb61575630638 dd '
                           '(coreutils) 9.1',
                     'launcher': 'none sha256:none none'}
    assert on_node('PATH (resolved on the compute node)', found['dd']) == \
        'PATH:/usr/bin/dd (resolved on the compute node)'
    assert on_node('spack-view:/v/bin/dd', found['dd']) == \
        'spack-view:/v/bin/dd'


@pytest.mark.reframe
def test_a_changed_dd_binary_is_what_changed_that_night(tmp_path):
    '''Two nights; on the second, PATH finds another dd binary (the same
    coreutils dd behind a wrapper): the night's change names it.'''
    db = str(tmp_path / 'results.db')
    # dd from PATH on both nights, not from a built view's external
    (tmp_path / 'noview').mkdir()
    view = {'IOGAP_SPACK_VIEW': str(tmp_path / 'noview')}
    first = run_reframe(tmp_path / 'a', *DD, '-r',
                        env={'IOGAP_RESULTS_DB': db, **view})
    assert first.returncode == 0, first.stdout[-2000:]
    other = tmp_path / 'bin'
    other.mkdir()
    (other / 'dd').write_text('#!/bin/sh\nexec /usr/bin/dd "$@"\n')
    os.chmod(other / 'dd', stat.S_IRWXU)
    second = run_reframe(tmp_path / 'b', *DD, '-r', env={
        'IOGAP_RESULTS_DB': db, **view,
        'PATH': f'{other}{os.pathsep}{os.environ["PATH"]}'})
    assert second.returncode == 0, second.stdout[-2000:]

    nights = sessions.sessions(db)
    [case] = [tc for tc in nights[0][1] if tc['name'].startswith('DD')]
    tools = sessions.tools_of(case)
    assert tools['dd'].startswith(os.path.realpath('/usr/bin/dd') +
                                  ' sha256:') and 'coreutils' in tools['dd']
    said = changepoint.what_changed(nights, 0, 1, sessions.case_of(case))
    assert f'dd {tools["dd"]} -> {other}/dd sha256:' in said, said
