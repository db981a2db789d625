'''The figures of the OSU families, declared once (no ReFrame here: the
report and the benchmarks import them).'''

from iogap.core.figures import LOWER, Figure

LATENCY_SMALLEST = Figure('latency_smallest', 'us', better=LOWER,
                          meaning='the study\'s "0-byte latency": the least '
                          'latency of the sizes up to 8 B')
SMALLEST_SIZE = Figure('smallest_size', 'B', better=None,
                       meaning='the size latency_smallest was measured at')
LATENCY_AT = Figure('latency_{size}B', 'us', better=LOWER,
                    meaning='latency at {size} bytes', size=int)
BW_PEAK = Figure('bw_peak', 'MB/s', meaning='the highest bandwidth of any '
                 'message size')
BW_PEAK_SIZE = Figure('bw_peak_size', 'B', better=None,
                      meaning='the message size of bw_peak')
