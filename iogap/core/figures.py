'''The figures a family reports, declared once.

A :class:`Figure` is a name template with typed fields, a unit, the
direction that is better and what it means. The same declaration names a figure when a test
reports it (``BW.name(pattern='write')`` -> ``write_bw``), recognises it
when a reference file names it, and gives the unit and direction that
validation and re-baselining use. A family package declares its figures
in its ``figures`` module, which imports nothing of ReFrame, so that the
report, the plan and the benchmarks name them without generating a test;
a family lists them in :class:`Figures`. Nothing else spells a figure's
name.
'''

import re
import string

from iogap.core import registry, stats
from iogap.core.stats import SPREAD

HIGHER, LOWER = 'higher', 'lower'

#: A direct observation of a mechanism (bytes resident, bytes the device
#: moved): judged against a fixed bound that holds on any healthy host,
#: never re-baselined from a machine's figures
OBSERVED = 'observed'


class Figure:
    '''One kind of figure, e.g. ``Figure('{pattern}_bw', 'MB/s',
    pattern=('write', 'read_once'))``. A field takes one of the values
    given, or any value of a type given instead (``nodes=int``).'''

    #: The directions a figure may have (``better=``)
    HIGHER, LOWER, OBSERVED = HIGHER, LOWER, OBSERVED

    def __init__(self, template, unit, better=HIGHER, meaning='', **fields):
        names = [f for _, f, _, _ in string.Formatter().parse(template) if f]
        if set(names) != set(fields):
            raise ValueError(f'figure {template!r}: fields {sorted(fields)} '
                             f'do not match the template')

        self.template, self.unit, self.better = template, unit, better
        #: What it measures, in a phrase (its fields in braces)
        self.meaning = meaning
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

    @staticmethod
    def spread(base, unit, **fields):
        '''The figures that accompany a median (:func:`spread_figures`).'''
        return spread_figures(base, unit, **fields)

    @staticmethod
    def of_repetitions(name, values, unit):
        '''``{name: (median, unit)}`` and its spread figures, measured.'''
        return stats.figures(name, values, unit)


def spread_figures(base, unit, **fields):
    '''The spread figures that accompany a median ``base``: min and max
    (same unit) and the coefficient of variation in %. They describe a run;
    they are not judged.'''
    return tuple(Figure(f'{base}_{suffix}', own or unit, better=None,
                        meaning=f'{what} of the repetitions\' {base}',
                        **fields) for suffix, (own, what) in SPREAD.items())


def catalog():
    '''``[(package, Figure)]``: every figure the family packages declare
    in their ``figures`` modules (:mod:`iogap.core.registry` finds them).'''
    import importlib
    import importlib.util
    found = []
    for package in registry.packages():
        if not importlib.util.find_spec(f'{package}.figures'):
            continue
        module = importlib.import_module(f'{package}.figures')
        for value in vars(module).values():
            for fig in value if isinstance(value, tuple) else (value,):
                if isinstance(fig, Figure) and (package, fig) not in found:
                    found.append((package, fig))
    return found


def render():
    '''docs/figures.md: every declared figure, its unit, direction and
    meaning (``iogap figures > docs/figures.md``).'''
    lines = ['# Figures', '', 'Generated by `iogap figures` '
             'from the declarations (each family package\'s `figures` '
             'module); tests/test_figures.py keeps it in sync. Fields in '
             'braces take the values listed.', '',
             '| package | figure | unit | better | meaning |',
             '|---|---|---|---|---|']
    for package, fig in catalog():
        fields = '; '.join(
            f'{k}: {", ".join(map(str, v)) if isinstance(v, tuple) else "any " + v.__name__}'
            for k, v in fig.fields.items())
        lines.append(f'| {package.split(".")[-1]} | `{fig.template}` | '
                     f'{fig.unit} | {fig.better or "-"} | {fig.meaning}'
                     f'{" (" + fields + ")" if fields else ""} |')
    return '\n'.join(lines) + '\n'
