'''The figures of the OSU families, without ReFrame (the report and the
benchmarks import them).'''

from iogap.core import Figure

LATENCY_SMALLEST = Figure('latency_smallest', 'us', better=Figure.LOWER,
                          meaning='the study\'s "0-byte latency": the least '
                          'latency of the sizes up to 8 B')
SMALLEST_SIZE = Figure('smallest_size', 'B', better=None,
                       meaning='the size latency_smallest was measured at')
LATENCY_AT = Figure('latency_{size}B', 'us', better=Figure.LOWER,
                    meaning='latency at {size} bytes', size=int)
BW_PEAK = Figure('bw_peak', 'MB/s', meaning='the highest bandwidth of any '
                 'message size')
BW_PEAK_SIZE = Figure('bw_peak_size', 'B', better=None,
                      meaning='the message size of bw_peak')

#: Over its control (:mod:`iogap.osu.control`): what the nodes' state of
#: the moment does to both cancels out
LATENCY_PAIRED = Figure('latency_smallest_paired', 'ratio',
                        better=Figure.LOWER,
                        meaning='latency_smallest over its control\'s, run '
                        'just before it in the same repetition (inter-node '
                        'over two ranks on one of the nodes, cross-socket '
                        'over same-socket; geometric mean of the '
                        'repetitions)')
LATENCY_GROWTH = Figure('latency_{size}B_over_smallest', 'ratio',
                        better=Figure.LOWER, size=int,
                        meaning='latency at {size} bytes over '
                        'latency_smallest of the same run')
PER_PEER = Figure('latency_{size}B_per_peer_paired', 'ratio',
                  better=Figure.LOWER, size=int,
                  meaning='all-to-all latency per peer at {size} bytes over '
                  'that at half the ranks, run just before it in the same '
                  'repetition (geometric mean of the repetitions)')
