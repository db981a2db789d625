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
    from iogap import profile
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
