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

#: mdtest SUMMARY rows reported, by our short name
MDTEST_OPS = {'create': 'File creation', 'stat': 'File stat',
              'read': 'File read', 'remove': 'File removal'}
RATE = Figure('{op}_rate', 'ops/s', meaning='mdtest {op} operations a '
              'second, all tasks', op=tuple(MDTEST_OPS))
