'''Labelled steps: how every family tells its tool runs apart in a job's
output. The job echoes a label before each run; the parser cuts the output
at the labels, so a missing or failed run can never pass for another one.

    iogap-step: op=write rep=1
'''

import re

_LABEL = re.compile(r'^iogap-step:((?: [\w.-]+=\S+)+)\s*$')


def label(stream='stdout', **fields):
    '''The shell line that labels the next step (values may be shell
    variables, e.g. ``rep='$rep'``).'''
    words = ' '.join(f'{k}={v}' for k, v in fields.items())
    redirect = ' >&2' if stream == 'stderr' else ''
    return f'echo "iogap-step: {words}"{redirect}'


def sections(text, preamble=False):
    '''``[(labels, text)]``: each label and the output up to the next one.
    What precedes the first label is left out, or with ``preamble`` comes
    first with empty labels.'''
    found = [({}, [])] if preamble else []
    for line in text.splitlines(keepends=True):
        if m := _LABEL.match(line):
            found.append((dict(kv.split('=', 1)
                               for kv in m.group(1).split()), []))
        elif found:
            found[-1][1].append(line)

    return [(labels, ''.join(lines)) for labels, lines in found]
