'''Tonight against the mean of the last N days, by ReFrame's own
``--performance-compare`` (``history.csv``, ``history.txt``).'''

import csv
import subprocess

from iogap.night.tonight import ROOT

#: ReFrame's CSV does not quote names that hold commas: ask for another
#: delimiter, then write proper CSV
_DELIM = '|'

_COLUMNS = ('change', 'tonight', 'before', 'nights', 'figure')


def spec(uuid, nights):
    '''Session ``uuid`` against the mean of the others of the last
    ``nights`` days, with its pass/fail and the past samples.'''
    return (f"{uuid}/now-{nights}d:now?uuid!='{uuid}'"
            f"/mean:/+result_L+psamples_R")


def compare(night, uuid):
    '''The comparison's rows (ReFrame's columns), kept and printed, or
    ``None`` if reframe could not compare.'''
    cmd = night.reframe('--performance-compare', spec(uuid, night.nights),
                        '--table-format=csv', f'--table-format-delim={_DELIM}',
                        '--term-lhs=tonight', '--term-rhs=before')
    proc = subprocess.run(cmd, cwd=ROOT, env=night.environ(), text=True,
                          capture_output=True)
    lines = proc.stdout.splitlines()
    if proc.returncode != 0 or not lines or _DELIM not in lines[0]:
        print(f'nightly: the history comparison failed (exit '
              f'{proc.returncode}):\n{proc.stdout}{proc.stderr}')
        return None

    header, *body = [line.split(_DELIM) for line in lines]
    rows = [dict(zip(header, values)) for values in body]
    with open(night.path('history.csv'), 'w', newline='') as fp:
        writer = csv.writer(fp)
        writer.writerow(header)
        writer.writerows(body)

    text = table(rows, night.nights)
    with open(night.path('history.txt'), 'w') as fp:
        fp.write(text)
    print(text, end='')
    return rows


def table(rows, nights):
    '''The comparison as a plain table: % change first.'''
    lines = [(_shown(r.get('pdiff (%)'), '{:+.2f}%', 'new'),
              *(_shown(r.get(f'pval (mean) ({term})'),
                       '{:.4g} ' + r.get('punit', ''), '-')
                for term in ('tonight', 'before')),
              _shown(r.get('psamples (before)'), '{:.0f}', '0'),
              f'{r["name"]} @{r["sysenv"]}: {r["pvar"]}') for r in rows]
    widths = [max(len(c) for c in col) for col in zip(_COLUMNS, *lines)]
    out = [f'history: tonight against the mean of the last {nights} days '
           f'({len(rows)} figures)']
    for line in [_COLUMNS, *lines]:
        out.append('  '.join(c.rjust(w) if i < 4 else c
                             for i, (c, w) in enumerate(zip(line, widths))))
    return '\n'.join(out) + '\n'


def _shown(text, form, otherwise):
    '''A number of ReFrame's table in ``form``, or ``otherwise``.'''
    try:
        return form.format(float(text))
    except (TypeError, ValueError):
        return otherwise
