'''The shape of a reference file, as a JSON schema; what a fit may judge.'''

#: Statistics a fit judges, with the unit each takes (``{y}``, ``{x}``: the
#: figure's and the swept parameter's units)
FIT_STATS = {'r2': 'r2', 'slope': '{y}/{x}', 'intercept': '{y}',
             'slope_p': 'p', 'change_bound': 'fraction'}

#: Swept parameters a fit may run over: unit and factor from the
#: parameter's own unit
AXES = {'cpu_freq': ('GHz', 1e-6)}

_NUM = {'type': 'number'}
_RATE = {'type': 'number', 'exclusiveMinimum': 0, 'maximum': 1}
_BOUND = {'type': ['number', 'null']}
_CASE = {'test': {'type': 'string'}, 'partition': {'type': 'string'},
         'params': {'type': 'object'}, 'var': {'type': 'string'}}
_JUDGED = {'ref': {'type': 'array', 'items': [_NUM, _BOUND, _BOUND],
                   'minItems': 3, 'maxItems': 3},
           'unit': {'type': 'string'}, 'provenance': {'type': 'string',
                                                      'minLength': 1},
           # The noise a healthy night shows (iogap.judge.audit)
           'noise': {'type': 'object', 'additionalProperties': False,
                     'properties': {
                         # relative spread of the judged value per night
                         'cv': {'type': 'number', 'minimum': 0},
                         # the healthy value, where ref is a bound
                         'expected': {'type': 'number',
                                      'exclusiveMinimum': 0},
                         # a fit's healthy line: [intercept, slope]
                         'line': {'type': 'array', 'items': _NUM,
                                  'minItems': 2, 'maxItems': 2},
                         'runs': {'type': 'integer', 'minimum': 1},
                         'detects': _NUM,
                         'source': {'type': 'string', 'minLength': 1}}},
           # What was measured across set-ups (hosts, devices): runs, min,
           # median, max, cv; descriptive, beside the nightly noise
           'spread': {'type': 'object'},
           # Why the entry is kept although it exceeds the false-alarm
           # budget or cannot fail
           'waiver': {'type': 'string', 'minLength': 1}}


def _entry(required, **props):
    return {'type': 'object', 'additionalProperties': False,
            'required': required, 'properties': props}


_SIDE = _entry(['test', 'partition', 'var'], **_CASE)

#: What must hold on a host for a judgement to apply there: a ratio of
#: two figures against a one-sided bound, measured in the same run
_PRECONDITION = {**_entry(['what', 'numerator', 'denominator'],
                          what={'type': 'string', 'minLength': 1},
                          numerator=_SIDE, denominator=_SIDE,
                          at_most={'type': 'number'},
                          at_least={'type': 'number'}),
                 'oneOf': [{'required': ['at_most']},
                           {'required': ['at_least']}]}

#: Entries a host may find not applicable: what they need, in one line
_CONDITIONAL = {'precondition': _PRECONDITION,
                'applies_when': {'type': 'string', 'minLength': 1}}
SCHEMA = {
    'type': 'object', 'additionalProperties': False, 'required': ['system'],
    'properties': {
        'system': {'type': 'string'},
        'absolute': {'type': ['array', 'null'], 'items': _entry(
            ['test', 'partition', 'var', 'ref', 'unit', 'provenance'],
            **_CASE, **_JUDGED)},
        # A curve: ``over`` a swept parameter of both sides, at the points
        # ``at``, judged by the geometric mean of the points' ratios
        'ratios': {'type': ['array', 'null'], 'items': {**_entry(
            ['name', 'numerator', 'denominator', 'ref', 'unit',
             'provenance'], name={'type': 'string'}, numerator=_SIDE,
            denominator=_SIDE, over={'type': 'string'},
            at={'type': 'array', 'minItems': 2, 'uniqueItems': True},
            **_JUDGED, **_CONDITIONAL),
            'dependencies': {'over': ['at'], 'at': ['over']}}},
        # Direct observations of a mechanism (bytes resident, bytes the
        # device moved), against bounds that hold on any healthy host
        'mechanisms': {'type': ['array', 'null'], 'items': _entry(
            ['name', 'test', 'partition', 'var', 'ref', 'unit',
             'provenance'], name={'type': 'string'}, **_CASE, **_JUDGED,
            applies_when=_CONDITIONAL['applies_when'])},
        'fits': {'type': ['array', 'null'], 'items': _entry(
            ['name', 'test', 'partition', 'over', 'var', 'stat', 'ref',
             'unit', 'provenance'], name={'type': 'string'},
            over={'enum': list(AXES)}, stat={'enum': list(FIT_STATS)},
            **_CASE, **_JUDGED)},
        # The study's effects over several nights (iogap.judge.effects):
        # a ratio's nightly values (over another's) against the value the
        # effect's disappearance leaves
        'effects': {'type': ['array', 'null'], 'items': _entry(
            ['name', 'ratio', 'healthy', 'nights', 'provenance'],
            name={'type': 'string'}, ratio={'type': 'string'},
            over={'type': 'string'},
            healthy={'type': 'number', 'exclusiveMinimum': 0},
            vanished={'type': 'number', 'exclusiveMinimum': 0},
            nights={'type': 'integer', 'minimum': 1, 'maximum': 30},
            noise=_JUDGED['noise'], provenance=_JUDGED['provenance'],
            waiver=_JUDGED['waiver'])},
        # Figures the change-point verdict judges for breakage only
        # (iogap.judge.breakage): the goal is out of reach, and why
        'changepoints': {'type': ['array', 'null'], 'items': _entry(
            ['test', 'partition', 'var', 'breakage_only'], **_CASE,
            breakage_only={'type': 'string', 'minLength': 1})},
        'unjudged': {'type': ['array', 'null'], 'items': _entry(
            ['test', 'partition', 'var', 'reason'], reason={'type': 'string'},
            **_CASE)},
        # Per-figure noise where an entry records none: the first item
        # whose test, partition, params and var (a glob) match
        'noise': {'type': ['array', 'null'], 'items': _entry(
            ['var', 'cv', 'source'], test={'type': 'string'},
            partition={'type': 'string'}, params={'type': 'object'},
            var={'type': 'string'}, cv={'type': 'number', 'minimum': 0},
            source={'type': 'string', 'minLength': 1})},
        # False alarms allowed per judgement and per night (defaults:
        # iogap/judge/budget.yaml); a waiver says why a night exceeds it
        'budget': _entry([], judgement=_RATE, night=_RATE, effect=_RATE,
                         stress={'type': 'number', 'minimum': 1},
                         waiver={'type': 'string', 'minLength': 1}),
        # What a whole night skips on this system besides the judgements
        # not applicable on this host (the nightly pipeline fails when
        # more cases skip, or any because a tool vanished)
        'expected_skips': {'type': 'integer', 'minimum': 0},
    },
}
