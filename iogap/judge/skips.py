'''Which skips of a run a reference file expects.

A judgement not applicable on this host (its precondition does not hold,
or the host cannot observe its figure) is skipped with a reason starting
with "not applicable on this host:", kept in the run report as the case's
``not_applicable`` with the entry's name as ``judgement``. The reference
file declares which entries may do so (``precondition`` or
``applies_when``): those skips are expected. Any other skip counts against
the file's ``expected_skips``.
'''

import json

import yaml

#: How every not-applicable judgement's skip reason starts
NOT_APPLICABLE = 'not applicable on this host:'

#: Lists of a reference file whose entries may be conditional
_KINDS = ('absolute', 'ratios', 'fits', 'mechanisms')


def conditional(reference):
    '''Names of the entries of ``reference`` (a path or its data) that may
    be not applicable on a host.'''
    data = _load(reference, yaml.safe_load) or {}
    return {e['name'] for kind in _KINDS for e in data.get(kind) or []
            if 'name' in e and ('precondition' in e or 'applies_when' in e)}


def split_skips(report, reference):
    '''``(not_applicable, unexpected)``: the skipped cases of ``report``
    (a run report, path or data) that ``reference`` expects as not
    applicable here, and those it does not expect: a not-applicable
    judgement it does not declare conditional, and every other skip when
    there are more of them than its ``expected_skips``.'''
    report = _load(report, json.load)
    data = _load(reference, yaml.safe_load) or {}
    allowed = conditional(data)
    expected, other, unexpected = [], [], []
    for tc in report['runs'][0]['testcases']:
        if tc['result'] != 'skip':
            continue
        if tc.get('not_applicable'):
            (expected if tc.get('judgement') in allowed
             else unexpected).append(tc)
        else:
            other.append(tc)

    if len(other) > (data.get('expected_skips') or 0):
        unexpected += other
    return expected, unexpected


def unexpected_skips(report, reference):
    '''The skipped cases of ``report`` that ``reference`` does not expect
    (see :func:`split_skips`); empty when every skip is accounted for.'''
    return split_skips(report, reference)[1]


def _load(source, reader):
    if isinstance(source, (dict, list)) or source is None:
        return source
    with open(source) as fp:
        return reader(fp)
