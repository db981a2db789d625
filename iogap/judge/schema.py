'''The shape of a reference file, as a JSON schema; what a fit may judge.'''

#: Statistics a fit judges, with their units ({y}: the figure's, {x}: the
#: swept parameter's)
FIT_STATS = {'r2': 'r2', 'slope': '{y}/{x}', 'intercept': '{y}',
             'slope_p': 'p', 'change_bound': 'fraction'}

#: Swept parameters a fit may run over: unit, factor from the parameter's
AXES = {'cpu_freq': ('GHz', 1e-6)}

_NUM = {'type': 'number'}
_RATE = {'type': 'number', 'exclusiveMinimum': 0, 'maximum': 1}
_BOUND = {'type': ['number', 'null']}
_CASE = {'test': {'type': 'string'}, 'partition': {'type': 'string'},
         'params': {'type': 'object'}, 'var': {'type': 'string'}}
# ref: [value, lower, upper], relative bounds as ReFrame's (null: one-sided)
_JUDGED = {'ref': {'type': 'array', 'items': [_NUM, _BOUND, _BOUND],
                   'minItems': 3, 'maxItems': 3},
           'unit': {'type': 'string'}, 'provenance': {'type': 'string',
                                                      'minLength': 1},
           # a healthy night's noise (the audit's): cv, the relative spread
           # a night; expected, where ref is a bound; a fit's line
           'noise': {'type': 'object', 'additionalProperties': False,
                     'properties': {
                         'cv': {'type': 'number', 'minimum': 0},
                         'expected': {'type': 'number',
                                      'exclusiveMinimum': 0},
                         'line': {'type': 'array', 'items': _NUM,
                                  'minItems': 2, 'maxItems': 2},
                         'runs': {'type': 'integer', 'minimum': 1},
                         'detects': _NUM,
                         'source': {'type': 'string', 'minLength': 1}}},
           # measured across set-ups; descriptive, beside the noise
           'spread': {'type': 'object'},
           # why an entry over the false-alarm budget, or unable to fail,
           # is kept
           'waiver': {'type': 'string', 'minLength': 1}}


def _entry(required, **props):
    return {'type': 'object', 'additionalProperties': False,
            'required': required, 'properties': props}


_SIDE = _entry(['test', 'partition', 'var'], **_CASE)

#: What must hold on a host for a judgement to apply there: a ratio of
#: two figures of the same run against a one-sided bound
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
        # params left out match any value, the most specific entry winning
        # a case; a ratio's or mechanism's take their defaults
        'absolute': {'type': ['array', 'null'], 'items': _entry(
            ['test', 'partition', 'var', 'ref', 'unit', 'provenance'],
            **_CASE, **_JUDGED)},
        # a curve: ``over`` a parameter both sides sweep, at ``at``, judged
        # by the geometric mean of the points' ratios
        # a paired figure (a ratio of two runs of one job): no denominator
        'ratios': {'type': ['array', 'null'], 'items': {**_entry(
            ['name', 'numerator', 'ref', 'unit', 'provenance'],
            name={'type': 'string'}, numerator=_SIDE,
            denominator=_SIDE, over={'type': 'string'},
            at={'type': 'array', 'minItems': 2, 'uniqueItems': True},
            **_JUDGED, **_CONDITIONAL),
            'dependencies': {'over': ['at', 'denominator'],
                             'at': ['over']}}},
        # bounds that hold on any healthy host
        'mechanisms': {'type': ['array', 'null'], 'items': _entry(
            ['name', 'test', 'partition', 'var', 'ref', 'unit',
             'provenance'], name={'type': 'string'}, **_CASE, **_JUDGED,
            applies_when=_CONDITIONAL['applies_when'])},
        'fits': {'type': ['array', 'null'], 'items': _entry(
            ['name', 'test', 'partition', 'over', 'var', 'stat', 'ref',
             'unit', 'provenance'], name={'type': 'string'},
            over={'enum': list(AXES)}, stat={'enum': list(FIT_STATS)},
            **_CASE, **_JUDGED)},
        # over several nights (iogap.judge.effects)
        'effects': {'type': ['array', 'null'], 'items': _entry(
            ['name', 'ratio', 'healthy', 'nights', 'provenance'],
            name={'type': 'string'}, ratio={'type': 'string'},
            over={'type': 'string'},
            healthy={'type': 'number', 'exclusiveMinimum': 0},
            vanished={'type': 'number', 'exclusiveMinimum': 0},
            nights={'type': 'integer', 'minimum': 1, 'maximum': 30},
            noise=_JUDGED['noise'], provenance=_JUDGED['provenance'],
            waiver=_JUDGED['waiver'])},
        # judged for breakage only (iogap.judge.breakage), and why
        'changepoints': {'type': ['array', 'null'], 'items': _entry(
            ['test', 'partition', 'var', 'breakage_only'], **_CASE,
            breakage_only={'type': 'string', 'minLength': 1})},
        'unjudged': {'type': ['array', 'null'], 'items': _entry(
            ['test', 'partition', 'var', 'reason'], reason={'type': 'string'},
            **_CASE)},
        # noise where an entry records none: the first match (var a glob)
        'noise': {'type': ['array', 'null'], 'items': _entry(
            ['var', 'cv', 'source'], test={'type': 'string'},
            partition={'type': 'string'}, params={'type': 'object'},
            var={'type': 'string'}, cv={'type': 'number', 'minimum': 0},
            source={'type': 'string', 'minLength': 1})},
        # false alarms allowed (defaults: iogap/judge/audit/budget.yaml)
        'budget': _entry([], judgement=_RATE, night=_RATE, effect=_RATE,
                         stress={'type': 'number', 'minimum': 1},
                         waiver={'type': 'string', 'minLength': 1}),
        # what a night skips besides judgements not applicable here
        'expected_skips': {'type': 'integer', 'minimum': 0},
    },
}
