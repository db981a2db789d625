'''The dd families' figures, without ReFrame (the report, the plan and the
benchmarks import them).'''

from iogap.core import Figure, Figures

#: A write, the first read after eviction, the mean of three unflushed reads
PATTERNS = ('write', 'read_once', 'read_3x')
LABELS = {'write': 'write', 'read_once': 'read once',
          'read_3x': 'read 3 times'}
BW = Figure('{pattern}_bw', 'MB/s', meaning='{pattern} bandwidth of one '
            'dd stream (median of the repetitions)', pattern=PATTERNS)
BW_SPREAD = Figures.spread(BW.template, BW.unit, pattern=PATTERNS)
PASS_BW = Figure('read_3x_pass{n}_bw', 'MB/s', better=None,
                 meaning='bandwidth of read pass {n} of read_3x', n=(1, 2, 3))
MEMORY_BW = Figure('memory_bw', 'MB/s', better=None,
                   meaning='dd from /dev/zero to /dev/null: the speed with '
                   'no device at all')

#: Over the memory copy of the same repetition (:mod:`iogap.dd.control`):
#: what the node's state of the moment does to both cancels out
PAIRED = Figure('{pattern}_bw_paired', 'ratio', meaning='{pattern} '
                'bandwidth over the memory copy run just before it in the '
                'same repetition (geometric mean of the repetitions)',
                pattern=PATTERNS)
