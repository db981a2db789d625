'''Every case of the loaded profile, as ReFrame will generate it: measured
cases (a family's variant on one partition) and judgements, both selected
by ``-n Check@variant``.'''

from iogap.core import registry
from iogap.core.base import runs_on
from iogap.judge import readings, references
from iogap.site import profile

#: Judgement checks and their parameter: the entries of the reference file
#: they take (its section, the parameter's plural; an absolute one's targets)
JUDGEMENTS = (('AbsoluteCheck', 'target'), ('RatioCheck', 'ratio'),
              ('FitCheck', 'fit'), ('MechanismCheck', 'mechanism'))


class Case:
    '''A measured case on one partition.'''

    def __init__(self, family, variant, params, part):
        self.family, self.variant, self.params = family, variant, params
        self.part = part
        self.partition = part.fullname.split(':')[1]
        cls = registry.get(family)
        self.unique = cls.variant_name(variant)
        #: ReFrame's display name: stable, unlike the variant number
        self.name = family + ''.join(
            f' %{p}={cls.raw_params[p].format(v)}' for p, v in
            cls.get_variant_info(variant)['params'].items())

    @property
    def key(self):
        return (self.unique, self.partition)

    @property
    def history_key(self):
        return (self.name, self.partition)

    @property
    def select(self):
        return f'{self.family}@{self.variant}'

    def __repr__(self):
        return f'{self.unique}@{self.partition}'


class Judgement:
    '''A judgement and the keys of the measured cases it reads.'''

    def __init__(self, check, variant, name, sides):
        self.check, self.variant, self.name, self.sides = \
            check, variant, name, sides

    @property
    def select(self):
        return f'{self.check}@{self.variant}'


def measured():
    '''``{key: Case}`` of every measured case of the loaded profile.'''
    found = {}
    for family in registry.names():
        cls = registry.get(family)
        for num in range(cls.num_variants):
            params = {k: v for k, v in
                      cls.get_variant_info(num)['params'].items()
                      if not k.startswith('.')}
            for part in profile.parts():
                if runs_on(cls, params, part):
                    case = Case(family, num, params, part)
                    found[case.key] = case
    return found


def judgements(cases, left_out=None):
    '''Every judgement whose sides are all in ``cases`` (else it skips).
    Those spanning partitions that lack a side go to ``left_out``, if
    given, as ``(Check@N, name, [(case, partition) missing])``.'''
    found, ref = [], references.current()
    for check, param in JUDGEMENTS:
        cls = getattr(readings, check)
        for num, entry in enumerate(
                readings.absolute_targets(ref) if param == 'target'
                else readings.entries(ref, f'{param}s')):
            # the judgement's own reading of its entry, without a test
            reader = type(check, (), {'cases': cls.cases, param: entry,
                                      'sides': getattr(cls, 'sides', None)})
            sides = list(dict.fromkeys(
                (_unique(family, params) or family, part)
                for family, part, params in reader().cases()))
            name = readings.target_name(entry) if param == 'target' \
                else entry['name']
            missing = [s for s in sides if s not in cases]
            if not missing:
                found.append(Judgement(check, num, name, sides))
            elif left_out is not None and len({p for _, p in sides}) > 1:
                left_out.append((f'{check}@{num}', name, missing))
    if left_out is not None:
        left_out += _absent_ratios()
    return found


def _absent_ratios():
    '''The ratios across partitions that got no ``RatioCheck`` here.'''
    ref, found = references.current(), []
    for entry in (ref.data['ratios'] if ref else []):
        sides = [entry[s] for s in ('numerator', 'denominator')
                 if s in entry]
        if id(entry) in ref.absent and \
                len({side['partition'] for side in sides}) > 1:
            found.append(('RatioCheck', entry['name'], [
                (side['test'], side['partition']) for side in sides
                if id(side) in ref.absent]))
    return found


def _unique(family, params):
    cls = registry.get(family)
    full = registry.full_params(cls, params)
    nums = cls.get_variant_nums(**{k: (lambda x, v=v: x == v)
                                   for k, v in full.items()})
    return cls.variant_name(nums[0]) if nums else None
