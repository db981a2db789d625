'''What a run judged, against what its reference file holds: a figure is
judged when a judgement gave it a verdict (pass or fail); a run that judged
none, or fewer than the site's minimum, has not passed.'''

from collections import namedtuple
from dataclasses import dataclass

from iogap.history.rows import target_of

#: Lists of a reference file whose entries are judged
KINDS = ('absolute', 'ratios', 'fits', 'mechanisms')
#: The status of a run that judged nothing, and of one under the minimum
NOTHING, UNDER = 'NOT JUDGED', 'UNDER-JUDGED'
#: The setting that states the minimum; by default one figure
SETTING = 'IOGAP_MIN_JUDGED'


@dataclass
class Coverage:
    '''Reference entries judged and held (the file's, or a job's share of
    them), judgement cases that gave a verdict and that ran, of which not
    applicable, and figures the file lists unjudged.'''
    judged: int
    held: int
    verdicts: int
    ran: int
    not_applicable: int
    unjudged: int
    #: What ``held`` counts
    of: str = 'the reference file judges'
    #: A job's share of a night; holding no judgement, it judged no less
    share: bool = False

    def line(self):
        if self.share and self.held == 0:
            return ('COVERAGE: this job\'s share of the night holds no '
                    'judgement (another job of the night judges its '
                    'figures)')
        share = f' ({self.judged / self.held:.0%})' if self.held else ''
        return (f'COVERAGE: judged {self.judged} of the {self.held} figures '
                f'{self.of}{share}, by {self.verdicts} of {self.ran} '
                f'judgements ({self.not_applicable} not applicable here); '
                f'{self.unjudged} more figure(s) the file lists unjudged')

    def status(self, minimum):
        '''``(status, why)`` when too little was judged, else ``None``.'''
        if self.share and self.held == 0:
            return None
        if self.judged == 0:
            return NOTHING, (f'nothing was judged: 0 of the {self.held} '
                             f'figures {self.of}')
        count, text = minimum
        if self.judged < count(self.held):
            return UNDER, (f'judged {self.judged} of the {self.held} figures'
                           f' {self.of}, fewer than the site\'s minimum '
                           f'{SETTING}={text}')
        return None


def minimum(environ):
    '''``(held -> least count, text)`` from ``IOGAP_MIN_JUDGED`` (a count,
    or a share such as ``80%``); ``ValueError`` when it is neither.'''
    text = (environ.get(SETTING) or '1').strip()
    try:
        if text.endswith('%'):
            share = float(text[:-1]) / 100
            if not 0 <= share <= 1:
                raise ValueError
            return (lambda held: share * held), text
        count = int(text)
        if count < 0:
            raise ValueError
        return (lambda held: min(count, max(held, 1))), text
    except ValueError:
        raise ValueError(f'{SETTING}={text!r} is neither a count of figures '
                         f'nor a share such as 80%: set it to one') from None


def _absolute_entries(entries, name, var=None):
    '''The absolute entries that judge case ``name`` (of ``var``: the one).'''
    family, part, params = target_of(name)
    found = [e for e in entries if e['test'] == family and
             e['partition'] == part and var in (None, e['var']) and
             all(str(params.get(k)) == str(v)
                 for k, v in (e.get('params') or {}).items())]
    if var is None:
        return found
    return sorted(found, key=lambda e: len(e.get('params') or {}))[-1:]


#: One figure of one judgement case as a run gave it (``var`` ``None``
#: when the judgement reported none)
Reading = namedtuple('Reading', 'case family name var judged not_applicable')


def readings(cases):
    '''The :class:`Reading` of every judgement case of a run report.'''
    found = []
    for tc in cases:
        if 'judge' not in (tc.get('tags') or []):
            continue
        case = (tc['name'], tc.get('partition'))
        family, name = tc['name'].split()[0], tc.get('judgement') or ''
        na = bool(tc.get('not_applicable'))
        values = (tc.get('perfvalues') or {}).items()
        found += [Reading(case, family, name, key.rsplit(':', 1)[-1],
                          v[-1] in ('pass', 'fail'), na)
                  for key, v in values] or \
            [Reading(case, family, name, None, False, na)]
    return found


def _entries_of(reading, data):
    '''Keys of the reference entries a reading stands for.'''
    if reading.family == 'AbsoluteCheck':
        found = _absolute_entries(data.get('absolute') or [], reading.name,
                                  reading.var)
        return [('absolute', id(e)) for e in found]
    return [(kind, e['name']) for kind in KINDS[1:]
            for e in data.get(kind) or [] if e.get('name') == reading.name]


def measure(found, data, share=False):
    ''':class:`Coverage` of :func:`readings` against reference ``data``.'''
    judged, seen, cases = set(), set(), {}
    for reading in found:
        for key in _entries_of(reading, data):
            seen.add(key)
            if reading.judged:
                judged.add(key)
        was = cases.get(reading.case, (False, False))
        cases[reading.case] = (was[0] or reading.judged,
                               was[1] or reading.not_applicable)
    held = len(seen) if share else sum(len(data.get(k) or []) for k in KINDS)
    return Coverage(
        judged=len(judged), held=held,
        verdicts=sum(v for v, _ in cases.values()), ran=len(cases),
        not_applicable=sum(na for _, na in cases.values()),
        unjudged=len(data.get('unjudged') or []),
        of="this job's share judges" if share else
        'the reference file judges', share=share)
