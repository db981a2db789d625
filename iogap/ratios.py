'''Ratios as first-class performance variables.

One engine divides any two measurements named in ``reference/<system>.yaml``:
across partitions (KNL over Haswell), across modes (direct over buffered) or
across variants (core_spec 4 over 0). A ratio check depends on the tests it
compares, reads their performance values once they have run, and reports
the quotient with its reference, so ReFrame's own assertion, perflogs and
results database cover ratios like any other figure.
'''

import reframe as rfm
import reframe.core.runtime as rt
import reframe.utility.sanity as sn
from reframe.core.builtins import run_after, run_before, sanity_function
from reframe.core.exceptions import SanityError, SkipTestError

from iogap import references, registry


def current_ratios():
    '''Ratio entries of the system ReFrame runs on (``[]`` outside it).'''
    try:
        system = rt.runtime().system.name
    except Exception:   # no ReFrame runtime: imported outside a run
        return []

    return references.load(system)[1]


def measured(test, side):
    '''The performance value ``side`` names, taken from the test that ran.'''
    key = f'{test.current_system.name}:{side["partition"]}:{side["var"]}'
    try:
        value = test.perfvalues[key][0]
    except (AttributeError, KeyError):
        value = None

    if value is None:
        raise SanityError(f'{test.display_name} on {side["partition"]} '
                          f'reported no {side["var"]}')

    return value


def divide(name, numerator, denominator):
    if denominator == 0:
        raise SanityError(f'{name}: the denominator is 0, the ratio is '
                          f'undefined')

    return numerator / denominator


class RatioCheck(rfm.RunOnlyRegressionTest):
    '''Quotient of two measurements; the check's ``ratio`` parameter holds
    one entry of the system's reference file.'''

    valid_prog_environs = ['+tools']
    executable = 'true'
    local = True

    @run_after('init')
    def _ratio_dependencies(self):
        system = rt.runtime().system.name
        self.sides = {}
        for side in ('numerator', 'denominator'):
            spec = self.ratio[side]
            family = registry.family(spec['test'])
            name = registry.variant_name(family, spec.get('params') or {})
            self.sides[side] = (name, spec)
            self.depends_on(name, how=_on_partition(spec['partition']))

        # Runs beside the numerator; the quotient itself is computed locally
        self.valid_systems = [
            f'{system}:{self.ratio["numerator"]["partition"]}'
        ]
        self.descr = self.ratio.get('provenance', '')

    @run_after('setup')
    def _ratio_partitions_selected(self):
        selected = {p.name for p in self.current_system.partitions}
        for name, spec in self.sides.values():
            if spec['partition'] not in selected:
                raise SkipTestError(f'needs {spec["test"]} on '
                                    f'{self.current_system.name}:'
                                    f'{spec["partition"]}, which this run '
                                    f'did not select')

    @sanity_function
    def validate(self):
        values = {}
        for side, (name, spec) in self.sides.items():
            dep = self.getdep(name, part=spec['partition'])
            values[side] = measured(dep, spec)

        self.value = divide(self.ratio['name'], values['numerator'],
                            values['denominator'])
        return True

    @run_before('performance')
    def _ratio_performance(self):
        entry, name = self.ratio, self.ratio['name']
        self.reference = {'*': {name: (*entry['ref'], entry['unit'])}}
        self.perf_variables = {
            name: sn.make_performance_function(sn.getattr(self, 'value'),
                                               entry['unit'])
        }


def _on_partition(partition):
    def how(src, dst):
        return dst[0] == partition and dst[1] == src[1]

    return how
