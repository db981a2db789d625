'''ReFrame's clock for timing jobs, made steady: a wall clock stepped by
NTP or an operator fails no healthy job and frees no hung one.

ReFrame 4 times jobs and its polling with ``time.time()``. A step of an
hour forward fails a healthy local job (``job timed out (3602s >
824s)``); a step back makes its poll loop sleep for the hour (its next
poll is due "an hour from now") and lets a hung job run past its limit.
The modules that do so are given a clock that starts at the wall time and
advances with the monotonic clock: every duration they take is then
monotonic, every time they record still reads as a wall time, and their
code is unchanged. The harness inside the job times its steps the same
way (``iogap_elapsed`` in ``job.sh``); Slurm enforces its own limits.
'''

import importlib
import time


class SteadyClock:
    '''The ``time`` module, but for ``time()``: the wall time at start
    plus the monotonic time since.'''

    def __init__(self):
        self._wall, self._monotonic = time.time(), time.monotonic()

    def time(self):
        return self._wall + (time.monotonic() - self._monotonic)

    def __getattr__(self, name):
        return getattr(time, name)


#: ReFrame's modules whose ``time.time()`` differences are limits, polls
#: and waits
TIMING_MODULES = ('reframe.core.schedulers', 'reframe.core.schedulers.local',
                  'reframe.core.schedulers.slurm',
                  'reframe.frontend.executors',
                  'reframe.frontend.executors.policies')

CLOCK = SteadyClock()
for _name in TIMING_MODULES:
    _module = importlib.import_module(_name)
    if _module.time is time:
        _module.time = CLOCK
