'''ReFrame's job clock, steady: a wall clock stepped by NTP fails no healthy
job (``job timed out (3602s > 824s)``) nor lets a hung one sleep past its
limit. ReFrame's timing modules get the wall time advanced monotonically.'''

import importlib
import time


class SteadyClock:
    '''``time``, but ``time()`` is its start's wall time + monotonic since.'''

    def __init__(self):
        self._wall, self._monotonic = time.time(), time.monotonic()

    def time(self):
        return self._wall + (time.monotonic() - self._monotonic)

    def __getattr__(self, name):
        return getattr(time, name)


#: ReFrame's modules whose ``time.time()`` differences are limits and polls
TIMING_MODULES = ('reframe.core.schedulers', 'reframe.core.schedulers.local',
                  'reframe.core.schedulers.slurm',
                  'reframe.frontend.executors',
                  'reframe.frontend.executors.policies')

CLOCK = SteadyClock()
for _name in TIMING_MODULES:
    _module = importlib.import_module(_name)
    if _module.time is time:
        _module.time = CLOCK
