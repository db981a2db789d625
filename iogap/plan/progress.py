'''ReFrame's status lines with the time left (the planned seconds of the
unfinished cases, at tonight's pace), its last line with how many judgements
reached a verdict: a stream handler that ``-v``/``-q`` adjust.'''

import logging
import re
import sys
import time

from reframe.core.logging import register_log_handler

from iogap.history.runguard import COLOUR
from iogap.plan import cost
from iogap.plan import inventory as cases
from iogap.site import profile

#: ReFrame's status line: status, (done/total), display name, partition
STATUS = re.compile(r'\[\s*(?P<status>[A-Z]+)\s*\] (?:\(\s*(?P<done>\d+)/'
                    r'(?P<total>\d+)\) )?(?P<name>.+?) /[0-9a-f]{8,} '
                    r'@[^:\s]+:(?P<part>[^+\s]+)')
#: ReFrame's last line: '[  PASSED  ] Ran 6/6 test case(s) from ...'
SUMMARY = re.compile(r'\[\s*(PASSED|FAILED)\s*\] Ran ')
#: What ``--repeat`` adds to a display name (the plan names the case once)
_REPEAT = re.compile(r' %\$?\.?repeat_no=\d+')
#: Planned seconds of a case the planner does not cost (judgement, fixture)
UNPLANNED_SECONDS = 2.0
_JUDGES = {check for check, _ in cases.JUDGEMENTS}
#: The results database the planner reads (set by reframe_config.py)
_results_db = None


def duration(seconds):
    '''``45 s``, ``3 min 20 s``, ``2 h 05 min``.'''
    seconds = int(round(seconds))
    if seconds < 60:
        return f'{seconds} s'
    if seconds < 3600:
        return f'{seconds // 60} min {seconds % 60:02d} s'
    return f'{seconds // 3600} h {seconds % 3600 // 60:02d} min'


def planned_seconds(results_db):
    '''``{(display name, partition): seconds}`` of every case, planned.'''
    name = profile.current()['name']
    plan = {c.case.history_key: c.seconds for c in
            cost.costs(cases.measured(), results_db, name).values()}
    # judgements and fixtures that ran before: their own median
    for key, runs in (cost.measured(results_db, name) if results_db
                      else {}).items():
        plan.setdefault(key, sorted(runs)[len(runs) // 2])
    return plan


class Progress:
    '''Follows the status lines of one run and estimates what is left.'''

    def __init__(self, plan=None, clock=time.monotonic):
        self.plan, self.clock = plan, clock
        self.started, self.finished = {}, set()
        self.start, self.judged = None, {'OK': 0, 'FAIL': 0}

    def seconds(self, key):
        if self.plan is None:
            try:
                self.plan = planned_seconds(_results_db)
            except Exception:   # an estimate that cannot be made hides nothing
                self.plan = {}
        return self.plan.get(key, UNPLANNED_SECONDS)

    def line(self, text):
        '''``text``, with the time left appended to a finished case's line.'''
        plain = COLOUR.sub('', text)
        found = STATUS.search(plain)
        if not found:
            return self.summary(text) if SUMMARY.match(plain) else text
        key = (_REPEAT.sub('', found['name']), found['part'])
        ident = (found['name'], found['part'])
        if found['status'] in ('RUN', 'DRY'):
            self.start = self.clock() if self.start is None else self.start
            self.started.setdefault(ident, key)
            return text
        if not found['done']:
            return text
        self.started.setdefault(ident, key)
        self.finished.add(ident)
        if found['status'] in ('OK', 'FAIL'):
            self.judged[found['status']] += \
                found['name'].split()[0] in _JUDGES
        total = int(found['total'])
        if found['status'] == 'SKIP':
            # scripts read the reason that ends its line as ReFrame prints it
            return text
        if int(found['done']) >= total:
            return f'{text} (all done)'
        return f'{text} (about {duration(self.left(total))} left)'

    def summary(self, text):
        '''ReFrame's last line, saying how much the run judged.'''
        passed, failed = self.judged['OK'], self.judged['FAIL']
        if not passed + failed:
            return f'{text}; nothing judged (no judgement ran)'
        return (f'{text}; {passed + failed} judgement(s) reached a verdict: '
                f'{passed} passed, {failed} failed')

    def left(self, total):
        '''Seconds left of ``total`` cases, at this run's pace.'''
        planned = {i: self.seconds(k) for i, k in self.started.items()}
        running = sum(s for i, s in planned.items() if i not in self.finished)
        # unstarted cases at the mean planned cost, of the started or all
        known = [self.plan[k] for k in self.started.values()
                 if k in self.plan] or list(self.plan.values())
        unseen = max(total - len(planned), 0) * \
            (sum(known) / len(known) if known else UNPLANNED_SECONDS)
        # the pace only once a case the planner costs has finished
        done = [planned[i] for i in self.finished
                if self.started[i] in self.plan]
        elapsed = self.clock() - self.start if self.start is not None else 0
        pace = elapsed / sum(done) if done and elapsed else 1.0
        return (running + unseen) * pace


class ProgressHandler(logging.StreamHandler):
    '''ReFrame's stdout stream, with :class:`Progress` on status lines.'''

    #: ReFrame's -v and -q adjust the handlers of type 'stream'; this is one
    _rfm_type = property(lambda self: 'stream', lambda self, value: None)

    def __init__(self):
        super().__init__(stream=sys.stdout)
        self.progress = Progress()

    def format(self, record):
        return self.progress.line(super().format(record))


def register(results_db):
    '''Register the ``iogap_progress`` handler, costing from ``results_db``.'''
    global _results_db
    _results_db = results_db
    register_log_handler('iogap_progress')(
        lambda site_config, prefix: ProgressHandler())
