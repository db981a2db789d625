'''The figures a family reports, declared once.

A :class:`Figure` is a name template with typed fields, a unit and the
direction that is better. The same declaration names a figure when a test
reports it (``BW.name(pattern='write')`` -> ``write_bw``), recognises it
when a reference file names it, and gives the unit and direction that
validation and re-baselining use. A family lists its figures in
:class:`Figures`; nothing else spells a figure's name.
'''

import re
import string

HIGHER, LOWER = 'higher', 'lower'

#: A direct observation of a mechanism (bytes resident, bytes the device
#: moved): judged against a fixed bound that holds on any healthy host,
#: never re-baselined from a machine's figures
OBSERVED = 'observed'


class Figure:
    '''One kind of figure, e.g. ``Figure('{pattern}_bw', 'MB/s',
    pattern=('write', 'read_once'))``. A field takes one of the values
    given, or any value of a type given instead (``nodes=int``).'''

    def __init__(self, template, unit, better=HIGHER, **fields):
        names = [f for _, f, _, _ in string.Formatter().parse(template) if f]
        if set(names) != set(fields):
            raise ValueError(f'figure {template!r}: fields {sorted(fields)} '
                             f'do not match the template')

        self.template, self.unit, self.better = template, unit, better
        self.fields = fields
        parts = []
        for literal, field, _, _ in string.Formatter().parse(template):
            parts.append(re.escape(literal))
            if field:
                parts.append(f'(?P<{field}>{_field_regex(fields[field])})')

        self._regex = re.compile(''.join(parts))

    def name(self, **values):
        for field, value in values.items():
            if not re.fullmatch(_field_regex(self.fields[field]), str(value)):
                raise ValueError(f'{self.template}: {field}={value!r} is not '
                                 f'declared')

        return self.template.format(**values)

    def parse(self, name):
        '''The field values of ``name``, or ``None`` if it is not this
        figure.'''
        m = self._regex.fullmatch(name)
        if m is None:
            return None

        return {k: int(v) if self.fields[k] is int else v
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


#: The spread that accompanies a median: suffix -> unit (``None``: the
#: median's own)
SPREAD = {'min': None, 'max': None, 'cv': '%'}


def spread_figures(base, unit, **fields):
    '''The spread figures that accompany a median ``base``: min and max
    (same unit) and the coefficient of variation in %. They describe a run;
    they are not judged.'''
    return tuple(Figure(f'{base}_{suffix}', own or unit, better=None,
                        **fields) for suffix, own in SPREAD.items())
