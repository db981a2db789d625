'''The figures of the fio family, without ReFrame.'''

from iogap.core import Figure

BW = Figure('read_bw', 'MB/s', meaning='read bandwidth of all the threads '
            'on one core')
IOPS = Figure('read_iops', 'ops/s', meaning='reads a second, all threads')
CLAT = Figure('clat_mean', 'us', better=Figure.LOWER,
              meaning='mean completion latency of a read')
