'''dd's control: the memory copy run just before each repetition's I/O
steps, each pattern paired over it by the geometric mean of the ratios
(:mod:`iogap.core.control`), which bench/paired.py found as steady between
sessions as their maximum or steadier (CV 36/27/14 % against 36/39/20 %).'''

from iogap.core import Control, size_bytes

#: The memory copy, as the paired figure's errors name it
MEMORY_COPY = Control('I/O steps', 'memory copies', ('I/O', 'memory'),
                      'bandwidths', 'MB/s')

ratios, paired = MEMORY_COPY.ratios, MEMORY_COPY.paired


def control_count(block, count, size):
    '''Blocks the memory copy moves: ``size`` (``dd_control_size``) in
    whole blocks of ``block`` bytes, never fewer than the file's ``count``.'''
    least = size_bytes(size, 'the memory copy\'s size (dd_control_size)')
    return max(count, -(-least // block))
