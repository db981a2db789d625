'''A job script as named sections, laid out in one place.

A job is: set-up, the placement probe, then its steps (each one's
preparation, its timed command and what is read after it), then tear-down.
A timed command sits between ``iogap_begin`` and ``iogap_end`` (ReFrame's
main step), inside ``iogap_run`` or, repeated, inside ``iogap_calibrate``.
Families and variants add lines to a section by its name, never to a
position in ReFrame's ``prerun_cmds``; :meth:`JobSections.layout` turns the
sections into ``prerun_cmds`` and ``postrun_cmds`` once every hook has run,
so no preparation can land inside a timed step, whatever the order of the
hooks.

Launcher options are named parts too, rendered in one fixed order.
'''

from iogap.core import steps

#: The sections of a job outside its steps, in the order they run
SECTIONS = ('setup', 'probe', 'teardown')

#: Named launcher option groups, in the order the launcher gets them
#: (core specialization is a job resource, not a launcher option)
LAUNCHER_PARTS = ('cpu_freq', 'placement', 'binding')


class JobStep:
    '''One timed step: ``prepare`` lines, its command, ``after`` lines.

    The main step's command is ReFrame's own executable, launched by
    ReFrame (``command`` is ``None``); any other step gives its command
    with its launcher, run once or, calibrating, ``repeat`` times.'''

    def __init__(self, labels, command=None, repeat=None):
        self.labels, self.command, self.repeat = labels, command, repeat
        self.prepare, self.after = [], []

    @property
    def is_main(self):
        return self.command is None

    def timed(self):
        '''The step's timed line outside the main step.'''
        if self.repeat is None:
            return steps.run(self.command, **self.labels)

        words = ' '.join(f'{k}={v}' for k, v in self.labels.items())
        return f'iogap_calibrate {self.repeat} {words} -- {self.command}'


class JobSections:
    '''The named sections of one job, and its launcher options by part.'''

    def __init__(self):
        self.sections = {name: [] for name in SECTIONS}
        self.launcher = {name: [] for name in LAUNCHER_PARTS}
        self.steps = []

    def __getitem__(self, name):
        return self.sections[name]

    def step(self, command=None, repeat=None, **labels):
        '''Add a step (the main step when ``command`` is ``None``), run in
        the order steps are added; returns it, to add its preparation.'''
        if command is None and self.main():
            raise ValueError('a job has one main step')

        self.steps.append(JobStep(labels, command, repeat))
        return self.steps[-1]

    def main(self):
        return next((s for s in self.steps if s.is_main), None)

    def launcher_options(self):
        return [opt for name in LAUNCHER_PARTS for opt in self.launcher[name]]

    def layout(self):
        '''``(prerun_cmds, postrun_cmds)``: set-up, probe, the steps before
        the main one and its preparation; then the main step's end, the
        steps after it, tear-down. Without a main step (a driver script
        that labels its own steps) the executable sits between the two.'''
        pre = [*self['setup'], *self['probe']]
        post = []
        into = pre
        for step in self.steps:
            into += step.prepare
            if step.is_main:
                pre.append(steps.begin(**step.labels))
                into = post
                post.append(steps.end())
            else:
                into.append(step.timed())

            into += step.after

        return pre, post + self['teardown']
