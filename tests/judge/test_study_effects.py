'''Every effect of reference/cori.yaml passes a series at its healthy value
and fails one at the value its disappearance leaves (over the nights it
pools, at the threshold the audit sets), and the findings judged each
night alone (buffered over direct writes, Haswell's direct scaling) fail
a night with no gain.'''

import os

import pytest

from conftest import ROOT
from iogap.judge import audit, effects, references

#: Ratios that carry their finding each night: no gain (1) must fail
NIGHTLY = ['knl_buffered_over_direct_write_bw',
           'haswell_buffered_over_direct_write_bw',
           'haswell_ior_fpp_direct_write_bw_32_over_1proc',
           'knl_ior_fpp_direct_write_bw_64_over_1proc']


@pytest.fixture(scope='module')
def ref():
    from iogap.site import profile
    profile.load(['--system', 'cori'], {})
    return references.File(os.path.join(ROOT, 'reference', 'cori.yaml'),
                           'cori', profile.parts())


def test_every_effect_passes_healthy_and_fails_gone(ref):
    limits = audit.budget(ref)
    rows = {r.name: r for r in ref.audit if r.kind == 'effects'}
    assert len(rows) >= 21
    for name, row in rows.items():
        entry, n = row.entry, row.entry['nights']
        judged = [effects.judge(entry, [entry[k]] * n, row.noise,
                                limits['effect'], limits['stress'])[0]
                  for k in ('healthy', 'vanished')]
        assert judged == [True, False], name


@pytest.mark.parametrize('name', NIGHTLY)
def test_a_nightly_finding_fails_with_no_gain(ref, name):
    [entry] = [e for e in ref.data['ratios'] if e['name'] == name]
    value, lower, _ = entry['ref']
    assert value * (1 + lower) > 1.0, name


#: Sync no faster than direct (the I/O-mode tables), a cap each night
SYNC_CAPS = ['haswell_dsync_over_direct_write_bw_same_clock',
             'knl_dsync_over_direct_write_bw_dram_same_clock',
             'knl_dsync_over_direct_write_bw_mcdram_same_clock']


@pytest.mark.parametrize('name', SYNC_CAPS)
def test_sync_faster_than_direct_fails_each_night(ref, name):
    '''The table's ratio passes; sync a fifth faster than direct (a file
    system no longer honouring O_DSYNC writes at buffered speed, far
    faster) fails.'''
    [entry] = [e for e in ref.data['ratios'] if e['name'] == name]
    value, lower, upper = entry['ref']
    assert lower is None and value < value * (1 + upper) < 1.2, name


def test_the_budget_held_back_findings_are_effects_on_cori(ref):
    '''B4, B5 and M13 on Cori: each an effect over nights, reading a
    ratio of the file, able to catch its disappearance 9 in 10.'''
    rows = {r.name: r for r in ref.audit if r.kind == 'effects'}
    for name in ('knl_collective_beats_independent',
                 'knl_larger_cb_buffer_helps',
                 'knl_page_cache_serves_rereads',
                 'haswell_page_cache_serves_rereads'):
        assert rows[name].detects is not None, name
        assert rows[name].detects[0] <= rows[name].entry['nights'], name
