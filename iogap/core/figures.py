'''The figures a family reports, declared once in its package's ReFrame-free
``figures`` module: a :class:`Figure` names a figure, recognises it in a
reference file and gives its unit and direction.'''

import re
import string

from iogap.core import stats
from iogap.core.stats import SPREAD

HIGHER, LOWER = 'higher', 'lower'
#: A direct observation of a mechanism (bytes resident, bytes moved):
#: judged against a fixed bound, never re-baselined
OBSERVED = 'observed'


class Figure:
    '''One kind of figure: ``Figure('{pattern}_bw', 'MB/s', pattern=('write',
    'read_once'))``; a field takes a value given, or of a type (``n=int``).'''

    #: The directions a figure may have (``better=``)
    HIGHER, LOWER, OBSERVED = HIGHER, LOWER, OBSERVED

    def __init__(self, template, unit, better=HIGHER, meaning='', **fields):
        parsed = list(string.Formatter().parse(template))
        if {f for _, f, _, _ in parsed if f} != set(fields):
            raise ValueError(f'figure {template!r}: fields {sorted(fields)} '
                             f'do not match the template')
        self.template, self.unit, self.better = template, unit, better
        #: What it measures, in a phrase (its fields in braces)
        self.meaning = meaning
        self.fields = fields
        self._regex = re.compile(''.join(
            re.escape(literal) +
            (f'(?P<{field}>{_field_regex(fields[field])})' if field else '')
            for literal, field, _, _ in parsed))

    def name(self, **values):
        for field, value in values.items():
            if not re.fullmatch(_field_regex(self.fields[field]), str(value)):
                raise ValueError(f'{self.template}: {field}={value!r} is not '
                                 f'declared')
        return self.template.format(**values)

    def parse(self, name):
        '''The field values of ``name``, or ``None``: not this figure.'''
        m = self._regex.fullmatch(name)
        return None if m is None else {
            k: int(v) if self.fields[k] is int else v
            for k, v in m.groupdict().items()}

    def __repr__(self):
        return f'Figure({self.template!r}, {self.unit!r})'


def _field_regex(domain):
    if domain is int:
        return r'\d+'
    if domain is str:
        return r'[A-Za-z0-9]+'
    return '|'.join(re.escape(str(v)) for v in domain)


class Figures(tuple):
    '''A family's figures: look one up by the name a test or file gives.'''

    def __new__(cls, *figures):
        return super().__new__(cls, figures)

    def find(self, name):
        return next((f for f in self if f.parse(name) is not None), None)

    def templates(self):
        return [f.template for f in self]

    @staticmethod
    def spread(base, unit, **fields):
        '''The unjudged min, max and CV (%) of a median ``base``.'''
        return tuple(Figure(f'{base}_{suffix}', own or unit, better=None,
                            meaning=f'{what} of the repetitions\' {base}',
                            **fields)
                     for suffix, (own, what) in SPREAD.items())

    @staticmethod
    def of_repetitions(name, values, unit):
        '''``{name: (median, unit)}`` and its spread figures, measured.'''
        return stats.figures(name, values, unit)

