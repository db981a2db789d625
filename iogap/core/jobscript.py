'''A job script as named sections and steps, laid out once every hook has
run (:meth:`JobSections.layout`): families add lines by name, never by
position in ``prerun_cmds``, so no preparation lands in a timed step.'''

from iogap.core import steps

#: The sections of a job outside its steps, in the order they run
SECTIONS = ('setup', 'probe', 'teardown')
#: Launcher option groups, in order (core specialization is a resource)
LAUNCHER_PARTS = ('cpu_freq', 'placement', 'binding')


class JobStep:
    '''One timed step: ``prepare`` lines, its command (``None``: ReFrame's
    executable, the main step) run once or ``repeat`` times, ``after``.'''

    def __init__(self, labels, command=None, repeat=None):
        self.labels, self.command, self.repeat = labels, command, repeat
        self.prepare, self.after = [], []

    @property
    def is_main(self):
        return self.command is None

    def timed(self):
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
        '''Add a step (``None``: the main one) after the others.'''
        if command is None and self.main():
            raise ValueError('a job has one main step')
        self.steps.append(JobStep(labels, command, repeat))
        return self.steps[-1]

    def main(self):
        return next((s for s in self.steps if s.is_main), None)

    def launcher_options(self):
        return [opt for name in LAUNCHER_PARTS for opt in self.launcher[name]]

    def layout(self):
        '''``(prerun_cmds, postrun_cmds)``, split at the main step, if any.'''
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
