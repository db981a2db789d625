'''The configuration loads for every system and lists the checks.'''

import glob
import os
import re

import pytest

from conftest import ROOT, run_reframe


def system_names():
    names = []
    for path in glob.glob(os.path.join(ROOT, 'systems', '*.py')):
        with open(path) as fp:
            names += re.findall(r"^            'name': '([\w-]+)',", fp.read(),
                                re.M)
    return sorted(names)


def test_every_profile_is_found():
    assert {'anyhost', 'cori'} <= set(system_names())


@pytest.mark.parametrize('system', system_names())
def test_listing(tmp_path, system):
    run = run_reframe(tmp_path, '--system', system, '-l')
    assert run.returncode == 0, run.stdout + run.proc.stderr
    assert 'Traceback' not in run.stdout + run.proc.stderr
    assert 'WARNING' not in run.stdout
    found = int(re.search(r'Found (\d+) check', run.stdout).group(1))
    assert found > 0
    assert '- DDSingleStream' in run.stdout


def test_generic_listing_is_the_default_and_has_no_cori_variants(tmp_path):
    run = run_reframe(tmp_path, '-l')
    assert "selected system:   'anyhost'" in run.stdout
    # core-spec and MCDRAM variants need partition features generic lacks
    assert '%core_spec=4' not in run.stdout
    assert '%memory=mcdram' not in run.stdout
    assert '%mode=direct' in run.stdout


def test_cori_lists_every_variant(tmp_path):
    run = run_reframe(tmp_path, '--system', 'cori:knl', '-l')
    assert '%core_spec=4' in run.stdout and '%memory=mcdram' in run.stdout
    assert 'DDFrequencyFit' in run.stdout


def test_unknown_system_is_one_clear_line(tmp_path):
    run = run_reframe(tmp_path, '--system', 'nosuch', '-l')
    assert run.returncode != 0
    errors = [l for l in (run.stdout + run.proc.stderr).splitlines()
              if 'ERROR' in l]
    assert len(errors) == 1 and "'nosuch'" in errors[0]
    assert 'Traceback' not in run.stdout + run.proc.stderr


def test_cori_ratio_checks_list_their_dependencies(tmp_path):
    run = run_reframe(tmp_path, '--system', 'cori', '-n',
                      'RatioCheck.*knl_over_haswell_dsync_write_bw_dram', '-l')
    listing = run.stdout.split('[List of matched checks]')[1]
    lines = listing.splitlines()
    assert lines[1].startswith('- RatioCheck %ratio=knl_over_haswell_dsync')
    deps = [l.strip() for l in lines if l.startswith('    ^')]
    assert any('%memory=dram %mode=dsync' in d for d in deps)
    assert any('%memory=default %mode=dsync' in d for d in deps)
