'''Every effect of reference/cori.yaml passes a series at its healthy value
and fails one at the value its disappearance leaves (over the nights it
pools, at the threshold the audit sets), and the findings judged each
night alone (buffered over direct writes, Haswell's direct scaling) fail
a night with no gain.'''

import math
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


#: Effects across partitions whose two sides run in separate jobs: the
#: night's noise enters twice, and no job holds both (docs/research/findings.md,
#: Open: a heterogeneous job needs the harness)
APART = {'knl_outreads_haswell_buffered', 'knl_outreads_haswell_direct'}


def test_every_other_effect_catches_its_loss_within_a_week(ref):
    '''The goal of issue 49: 9 in 10 within 7 nights at 1.5x the noise,
    and the night's false alarms within 10 % there.'''
    limits = audit.budget(ref)
    for row in ref.audit:
        if row.kind != 'effects':
            continue
        need = effects.nights_needed(row.entry, row.noise, limits['effect'],
                                     limits['stress'], limits['stress'])
        assert (need <= 7) != (row.name in APART), (row.name, need)
        assert row.entry['nights'] == need, row.name
    assert audit.night(ref.audit, stress=True) <= 0.10


#: Read in one job, not alternating: the first read and the mean of three
ONE_JOB = {'knl_page_cache_serves_rereads',
           'haswell_page_cache_serves_rereads'}


def test_the_nightly_guard_of_a_paired_gain_rejects_it_gone(ref):
    '''A gain measured side by side: its guard's bound lies beyond the
    value its disappearance leaves, so a night at it fails 9 in 10. (Core
    specialization's two jobs back to back, at 5.1 %, and the large
    message latency, a ratio of two runs' own ratios at 7.2 %, cannot
    within the budget: their effects catch the loss in 4 and 5 nights.)'''
    ratios = {e['name']: e for e in ref.data['ratios']}
    rows = {r.name: r for r in ref.audit}
    checked = 0
    for entry in ref.data['effects']:
        guard = ratios[entry['ratio']]
        paired = all(s['var'].endswith('_paired') for s in (
            guard[k] for k in ('numerator', 'denominator') if k in guard))
        if 'over' in entry or not (paired or entry['name'] in ONE_JOB):
            continue
        value, lower, upper = guard['ref']
        gone = entry.get('vanished', 1.0)
        cv = rows[guard['name']].noise
        assert upper is None, guard['name']
        # gone, the night's value is ``gone`` times the noise
        assert value * (1 + lower) > gone * math.exp(1.2816 * cv), \
            guard['name']
        checked += 1
    assert checked == 15


def test_a_paired_figure_is_a_ratio_of_its_own(ref):
    from iogap.judge.readings import RatioCheck
    [entry] = [e for e in ref.data['ratios']
               if e['name'] == 'knl_mpiio_cb64m_over_cb4m_write_bw_paired']
    assert 'denominator' not in entry
    check = RatioCheck.__new__(RatioCheck)
    check.ratio = entry
    value, bounds, unit = check.judged([{'write_bw_paired': 1.3}])[
        entry['name']]
    assert (value, unit) == (1.3, 'ratio') and len(check.sides()) == 1
