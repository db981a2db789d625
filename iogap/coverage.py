'''What a run judged, against what its reference file holds.

A figure of the reference file (an entry of ``absolute``, ``ratios``,
``fits`` or ``mechanisms``) is judged when a judgement gave it a verdict
(pass or fail) in the run; one not applicable on the host, skipped, or
whose judgement did not run is not. ``unjudged`` entries are held but
never judged. A run that judged no figure, or fewer than the site's
minimum (``IOGAP_MIN_JUDGED``: a count, or a share such as ``80%``), has
not passed, whatever else it did: its status says so.
'''

from dataclasses import dataclass

#: Lists of a reference file whose entries are judged
KINDS = ('absolute', 'ratios', 'fits', 'mechanisms')

#: The status of a run that judged nothing, and of one under the minimum
NOTHING, UNDER = 'NOT JUDGED', 'UNDER-JUDGED'

#: The setting that states the minimum; by default one figure
SETTING = 'IOGAP_MIN_JUDGED'


@dataclass
class Coverage:
    #: Reference entries judged in the run, and held (the file's, or the
    #: run's share of them: the judgements it ran)
    judged: int
    held: int
    #: Judgements (cases) that gave a verdict, and that the run ran
    verdicts: int
    ran: int
    #: Judgements not applicable on the host
    not_applicable: int
    #: Figures the file lists as unjudged
    unjudged: int
    #: What ``held`` counts
    of: str = 'the reference file judges'

    def line(self):
        share = f' ({self.judged / self.held:.0%})' if self.held else ''
        return (f'COVERAGE: judged {self.judged} of the {self.held} figures '
                f'{self.of}{share}, by {self.verdicts} of {self.ran} '
                f'judgements ({self.not_applicable} not applicable here); '
                f'{self.unjudged} more figure(s) the file lists unjudged')

    def status(self, minimum):
        '''``(name, why)`` when the run did not judge enough, else
        ``None``; ``minimum`` as :func:`minimum` returns it.'''
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
    '''``(held -> least count, text)`` from ``IOGAP_MIN_JUDGED``; raise
    ``ValueError`` naming the setting when it is neither a count nor a
    share.'''
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


def _target(name):
    '''``(family, partition, {param: value})`` of an absolute judgement's
    name (iogap.judge.targets.target_name).'''
    family, _, rest = name.partition('@')
    part, _, params = rest.partition(':')
    return family, part, dict(p.split('=', 1) for p in params.split(',')
                              if '=' in p)


def _absolute_entries(entries, name, var=None):
    '''The absolute entries that judge case judgement ``name`` (for
    ``var`` alone: the most specific one).'''
    family, part, params = _target(name)
    found = [e for e in entries if e['test'] == family and
             e['partition'] == part and var in (None, e['var']) and
             all(str(params.get(k)) == str(v)
                 for k, v in (e.get('params') or {}).items())]
    if var is None:
        return found
    return sorted(found, key=lambda e: len(e.get('params') or {}))[-1:]


def _entries_of(tc, data):
    '''``[(entry key, judged)]`` of the reference entries judgement
    case ``tc`` stands for, each judged in the run or not.'''
    name = tc.get('judgement') or ''
    if tc['name'].startswith('AbsoluteCheck'):
        entries = data.get('absolute') or []
        found = [(('absolute', id(e)), values[-1] in ('pass', 'fail'))
                 for var, values in (tc.get('perfvalues') or {}).items()
                 for e in _absolute_entries(entries, name,
                                            var.rsplit(':', 1)[-1])]
        # skipped or failed before it reported a figure: none judged
        return found or [(('absolute', id(e)), False)
                         for e in _absolute_entries(entries, name)]
    judged = any(v[-1] in ('pass', 'fail')
                 for v in (tc.get('perfvalues') or {}).values())
    return [((kind, e['name']), judged) for kind in KINDS[1:]
            for e in data.get(kind) or [] if e.get('name') == name]


def measure(cases, data, share=False):
    ''':class:`Coverage` of the run's final ``cases`` against reference
    ``data``; with ``share``, against the judgements the run ran (a job
    of a night split per partition runs its share of them).'''
    judges = [tc for tc in cases if 'judge' in (tc.get('tags') or [])]
    judged, seen = set(), set()
    for tc in judges:
        for key, verdict in _entries_of(tc, data):
            seen.add(key)
            if verdict:
                judged.add(key)
    held = len(seen) if share else sum(len(data.get(k) or []) for k in KINDS)
    return Coverage(
        judged=len(judged), held=held,
        verdicts=sum(tc['result'] in ('pass', 'fail') and any(
            v[-1] in ('pass', 'fail') for v in tc['perfvalues'].values())
            for tc in judges),
        ran=len(judges),
        not_applicable=sum(bool(tc.get('not_applicable')) for tc in judges),
        unjudged=len(data.get('unjudged') or []),
        of="this job's share judges" if share else
        'the reference file judges')
