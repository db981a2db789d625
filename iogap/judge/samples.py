'''What the runs of run reports measured, for re-baselining: each figure's
values and in-job spreads per measuring case, each judgement's values.'''

import json

from iogap.core import registry
from iogap.core.figures import OBSERVED


def samples(reports):
    '''``{(family, partition, params json, var): ([values], unit, cvs)}``
    of measuring cases, and ``{judgement display name: [values]}``.'''
    cases, judged = {}, {}
    for report in reports:
        for run in report['runs']:
            for tc in run['testcases']:
                if tc.get('fixture') or not tc.get('perfvalues') or \
                        tc['result'] not in ('pass', 'fail') or \
                        tc.get('fail_phase') not in (None, 'performance'):
                    continue

                family = tc['name'].split()[0]
                cls = registry.get(family)
                for key, (value, *_, unit, _) in tc['perfvalues'].items():
                    var = key.rsplit(':', 1)[1]
                    if cls is None:
                        judged.setdefault(tc['display_name'].split(' %.')[0],
                                          []).append(value)
                        continue
                    fig = cls.figures.find(var)
                    if fig is None or fig.better in (None, OBSERVED):
                        continue
                    params = {p: tc[p] for p in cls.param_space.params
                              if not p.startswith('.')}
                    ident = (family, tc['partition'],
                             json.dumps(params, sort_keys=True), var)
                    entry = cases.setdefault(ident, ([], unit, []))
                    entry[0].append(value)
                    cv = tc['perfvalues'].get(f'{key}_cv', [None])[0]
                    entry[2].extend([cv / 100] if cv is not None else [])

    return cases, judged
