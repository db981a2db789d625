'''The figures of IOR and mdtest, without ReFrame (the report, the plan
and the benchmarks import them).'''

from iogap.core import Figure

#: Write, first read after eviction (or O_DIRECT), mean of three reads
PHASES = ('write', 'read_once', 'read_3x')
LABELS = {'write': 'write', 'read_once': 'read once',
          'read_3x': 'read 3 times'}
BW = Figure('{phase}_bw', 'MiB/s', meaning='IOR {phase} bandwidth, all '
            'tasks (mean of the iterations)', phase=PHASES)
IOPS = Figure('{phase}_iops', 'ops/s', meaning='IOR {phase} transfers a '
              'second', phase=PHASES)
TIME = Figure('{phase}_time', 's', better=Figure.LOWER, meaning='IOR {phase} '
              'time (open to close)', phase=PHASES)
BW_SPREAD = Figure('{phase}_bw_{stat}', 'MiB/s', better=None,
                   meaning='the {stat} of the iterations\' {phase} '
                   'bandwidths', phase=('write', 'read_3x'),
                   stat=('min', 'max'))

#: The sides of IORPair's contrasts (:mod:`iogap.pio.pair`), A's first
SIDES = ('collective', 'independent', 'cb_large', 'cb_small', 'direct',
         'buffered', 'fewer', 'more', 'bound', 'unbound')
BW_SIDE = Figure('{phase}_bw_{side}', 'MiB/s', meaning='IORPair: the '
                 '{side} side\'s {phase} bandwidth (median of the '
                 'repetitions)', phase=PHASES, side=SIDES)
BW_PAIRED = Figure('{phase}_bw_paired', 'ratio', meaning='IORPair: A\'s '
                   '{phase} bandwidth over B\'s in the same repetition '
                   '(geometric mean of the repetitions)', phase=PHASES)

#: mdtest SUMMARY rows reported, by our short name
MDTEST_OPS = {'create': 'File creation', 'stat': 'File stat',
              'read': 'File read', 'remove': 'File removal'}
RATE = Figure('{op}_rate', 'ops/s', meaning='mdtest {op} operations a '
              'second, all tasks', op=tuple(MDTEST_OPS))
