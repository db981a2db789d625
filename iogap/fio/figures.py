'''The figures of the fio family, without ReFrame.'''

from iogap.core import Figure

BW = Figure('read_bw', 'MB/s', meaning='read bandwidth of all the threads '
            'on one core')
IOPS = Figure('read_iops', 'ops/s', meaning='reads a second, all threads')
CLAT = Figure('clat_mean', 'us', better=Figure.LOWER,
              meaning='mean completion latency of a read')
BW_SPREAD = Figure('read_bw_spread', 'MB/s', meaning='read bandwidth of the '
                   'same threads over every CPU of the job')
BW_PAIRED = Figure('read_bw_paired', 'ratio', meaning='read_bw over '
                   'read_bw_spread of the same repetition (geometric mean): '
                   '1 where one core saturates the bandwidth')
