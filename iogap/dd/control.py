'''dd's control: the memory copy each repetition runs just before its I/O
steps, and the paired figure, each I/O pattern over it
(:mod:`iogap.core.control`).

bench/paired.py measured which summary of the repetitions varies least
between sessions: the geometric mean of the per-repetition ratios varied
as little as their maximum for direct write and less for direct read-once
and cached re-read (18 sessions on a shared 2-core VM, 5 repetitions: CV
36, 27 and 14 % against 36, 39 and 20 %), so it is the one used.
'''

from iogap.core import Control, size_bytes

#: The memory copy, as the paired figure's errors name it
MEMORY_COPY = Control('I/O steps', 'memory copies', ('I/O', 'memory'),
                      'bandwidths', 'MB/s')

ratios, paired = MEMORY_COPY.ratios, MEMORY_COPY.paired


def control_count(block, count, size):
    '''Blocks the memory copy moves: ``size`` (the profile's
    ``dd_control_size``) in whole blocks of ``block`` bytes, and never
    fewer than the file's ``count``.'''
    least = size_bytes(size, 'the memory copy\'s size (dd_control_size)')
    return max(count, -(-least // block))
