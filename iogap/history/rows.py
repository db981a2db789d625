'''The table a report draws: sessions, and a row per figure of a test
case with its verdict and band.'''

import time
from dataclasses import dataclass, field

from iogap.errors import IogapError

#: Families that judge figures rather than measure them
JUDGEMENTS = ('AbsoluteCheck', 'RatioCheck', 'FitCheck', 'MechanismCheck')
#: The verdict of a judgement not applicable on the host it ran on
NOT_APPLICABLE = 'n/a'
#: Schema of ReFrame 4.10's sqlite results database (reporting/storage.py)
DB_SCHEMA = '1.0'


def night_of(uuid, pipeline):
    '''A session's night: its pipeline (a night split per partition is
    several sessions), else the session itself.'''
    return pipeline if pipeline and pipeline != 'local' else uuid


class InputError(IogapError):
    '''An input that is not a run report or results database.'''


@dataclass(frozen=True)
class Session:
    '''One ReFrame session, from a report file or the database.'''

    uuid: str
    start: float
    source: str
    info: dict = field(compare=False, hash=False, repr=False)
    #: ``{partition: [jobs, node-hours, job seconds]}`` the night took
    cost: dict = field(default_factory=dict, compare=False, hash=False,
                       repr=False)
    #: The run report itself
    report: dict = field(default=None, compare=False, hash=False,
                         repr=False)

    @property
    def night(self):
        '''The night the session belongs to (:func:`night_of`).'''
        return night_of(self.uuid, self.info.get('pipeline'))

    @property
    def when(self):
        return time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(self.start))

    @property
    def study_example(self):
        return bool(self.info.get('study_example'))


@dataclass
class Row:
    '''One figure of one test case in one session.'''

    session: Session
    system: str
    partition: str
    family: str
    case: str
    params: dict
    result: str
    figure: str
    value: float
    unit: str
    ref: float
    lower: float = None
    upper: float = None
    verdict: str = None
    method: str = ''
    #: A judgement's false-alarm rate per healthy night (iogap.judge.audit)
    false_alarms: float = None

    @property
    def where(self):
        return f'{self.system}:{self.partition}'

    @property
    def judged(self):
        return self.lower is not None or self.upper is not None

    def band(self):
        '''Absolute ``(low, high)`` bounds, ``None`` for an open side.'''
        scale = abs(self.ref)
        return (None if self.lower is None else self.ref + scale * self.lower,
                None if self.upper is None else self.ref + scale * self.upper)

    @property
    def judgement(self):
        '''What a judgement judges: its ratio, fit or target name.'''
        return next(iter(self.params.values()), self.case)

    def target(self):
        '''``(family, partition, {param: str})`` an AbsoluteCheck judged.'''
        return target_of(self.judgement)


def target_of(name):
    '''``(family, partition, {param: value})`` of a target's name.'''
    family, _, rest = name.partition('@')
    part, _, params = rest.partition(':')
    return family, part, dict(p.split('=', 1) for p in params.split(',')
                              if '=' in p)
