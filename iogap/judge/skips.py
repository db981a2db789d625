'''Which skips of a run a reference file expects: a judgement not applicable
on this host (skip reason :data:`NOT_APPLICABLE`) that the file declares
conditional (``precondition`` or ``applies_when``), and no more other
skips than its ``expected_skips``.'''

import json

import yaml

#: How every not-applicable judgement's skip reason starts
NOT_APPLICABLE = 'not applicable on this host:'
#: Lists of a reference file whose entries may be conditional
_KINDS = ('absolute', 'ratios', 'fits', 'mechanisms')


def conditional(reference):
    '''Names of the entries of ``reference`` (path or data) that may skip.'''
    data = _load(reference, yaml.safe_load) or {}
    return {e['name'] for kind in _KINDS for e in data.get(kind) or []
            if 'name' in e and ('precondition' in e or 'applies_when' in e)}


def split_skips(report, reference):
    '''``(expected not applicable, unexpected)``: the skipped cases of
    ``report`` (a run report, path or data) as ``reference`` sees them.'''
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
    '''The skipped cases of ``report`` that ``reference`` does not expect.'''
    return split_skips(report, reference)[1]


def _load(source, reader):
    if isinstance(source, (dict, list)) or source is None:
        return source
    with open(source) as fp:
        return reader(fp)
