'''OSU 5.x and 7.x output: tables that survive versions and noise. A row
whose fields do not fit the header (MPI warnings, ORTE_ERROR_LOG, a figure
without its decimals) is dropped, so a row broken by an interleaved warning
shows up as a missing size, never as a wrong number.'''

import re

from reframe.core.exceptions import SanityError

_TITLE = re.compile(r'^# (OSU .*?)\s+v(\d+(?:\.\d+)*)\s*$')
_DATATYPE = re.compile(r'^# Datatype: (\S+?)\.?\s*$')
# OSU prints figures with a fixed number of decimals and counts as integers:
# a figure without its decimals is a cut line, not a value
_FIGURE = re.compile(r'^-?\d+\.\d+$')
_COUNT = re.compile(r'^\d+$')
_ERROR = re.compile(r'^DATA VALIDATION ERROR\b.*$', re.M)


class Table:
    '''One OSU result table: title, version, columns and rows.'''

    def __init__(self, title='', version=''):
        self.title, self.version, self.datatype = title, version, ''
        #: Column names after ``Size``, e.g. ``['Latency (us)', 'Validation']``
        self.columns = []
        #: ``(size, {column: float or 'Pass'/'Fail'})`` in printed order
        self.rows = []

    def add_row(self, fields):
        if len(fields) != len(self.columns) + 1 or not fields[0].isdigit():
            return
        row = {}
        for name, field in zip(self.columns, fields[1:]):
            if name == 'Validation':
                if field not in ('Pass', 'Fail'):
                    return
                row[name] = field
            elif (_COUNT if 'Iterations' in name else _FIGURE).match(field):
                row[name] = float(field)
            else:
                return
        self.rows.append((int(fields[0]), row))

    def sizes(self):
        return [size for size, _ in self.rows]

    def column(self, word):
        '''Name of the first column whose header contains ``word``.'''
        for name in self.columns:
            if word in name:
                return name
        raise SanityError(f'OSU table {self.title!r} has no {word} column '
                          f'(columns: {", ".join(self.columns)})')

    def values(self, word):
        '''``{size: value}`` of the first column containing ``word``.'''
        name = self.column(word)
        return {size: row[name] for size, row in self.rows}

    def failed_sizes(self):
        return [size for size, row in self.rows
                if row.get('Validation') == 'Fail']


def parse_tables(text):
    '''Every table in ``text``; a repeated column header starts a new one
    (7.x ``-T all`` prints one block per datatype).'''
    tables, title, version, datatype = [], '', '', ''
    for line in text.splitlines():
        if m := _TITLE.match(line):
            title, version, datatype = m.group(1), m.group(2), ''
        elif m := _DATATYPE.match(line):
            datatype = m.group(1)
            if tables and not tables[-1].rows:
                tables[-1].datatype = datatype
        elif line.startswith('# Size'):
            table = Table(title, version)
            table.columns = re.split(r'\s{2,}', line[len('# Size'):].strip())
            table.datatype = datatype
            tables.append(table)
        elif tables and line[:1].isdigit():
            tables[-1].add_row(line.split())
    return tables


def checked_table(text, what, max_size, validated):
    '''The one complete table of a run, or a :class:`SanityError` saying
    what is wrong: no table, a validation failure, a cut-short table.'''
    check_validation(text, what)
    tables = parse_tables(text)
    if not tables or not tables[0].rows:
        raise SanityError(f'{what}: printed no result table')
    if len(tables) > 1:
        raise SanityError(f'{what}: printed {len(tables)} result tables, '
                          f'expected one')
    table = tables[0]
    if validated and 'Validation' not in table.columns:
        raise SanityError(f'{what}: -c was given but the table has no '
                          f'Validation column (columns: '
                          f'{", ".join(table.columns)})')
    check_sizes(table.sizes(), what, max_size)
    return table


def check_validation(text, what):
    '''Sanity: no ``Fail`` row and no ``DATA VALIDATION ERROR`` line.'''
    failed = [s for t in parse_tables(text) for s in t.failed_sizes()]
    errors = _ERROR.findall(text)
    if failed or errors:
        where = f' at {", ".join(f"{s} B" for s in failed)}' if failed else ''
        raise SanityError(f'{what}: OSU validation (-c) failed{where}'
                          + (f': {errors[0]}' if errors else ''))


def check_sizes(sizes, what, max_size):
    '''Sizes must double without a gap (0 then 1 allowed) up to
    ``max_size``: anything else is a truncated or corrupted table.'''
    for prev, size in zip(sizes, sizes[1:]):
        if size != (prev * 2 if prev else 1):
            raise SanityError(f'{what}: the table jumps from {prev} B to '
                              f'{size} B: rows are missing or garbled')
    if sizes[-1] != max_size:
        raise SanityError(f'{what}: the table stops at {sizes[-1]} B, '
                          f'expected rows up to {max_size} B: the run was '
                          f'cut short')


def stderr_error(text):
    '''The most telling line of a job's stderr: an OSU or MPI error rather
    than the launcher's dashed abort banner.'''
    lines = [l.strip() for l in text.splitlines() if l.strip().strip('-')]
    telling = re.compile(r'^(This test|Invalid|iogap:)|\b(error|Error|ERROR|'
                         r'failed|denied|Killed|signal)\b')
    line = next((l for l in lines if telling.search(l)), None)
    # Open MPI's abort banner names the failing rank's exit code
    code = next((m for l in lines
                 if (m := re.match(r'Exit code:\s*(\d+)$', l))), None)
    if line is None and code:
        line = f'a rank exited with code {code.group(1)}'
    return line or (lines[0] if lines else 'no error message on stderr')
