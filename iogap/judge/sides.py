'''The sides a ratio entry reads, alike for its judgement, the file's
checks, the audit and the plan. A paired figure, already a ratio of two
runs of one job, is an entry with a numerator alone.'''

SIDES = ('numerator', 'denominator')


def named(entry):
    '''The sides an entry gives: both, or the numerator of a paired one.'''
    return [s for s in SIDES if s in entry]


def ratio_sides(entry):
    '''A ratio's sides, numerator and denominator alternating: its two, or
    a curve's two at each point; then its precondition's, if any.'''
    pairs = [tuple(entry[s] for s in named(entry))]
    if 'over' in entry:
        pairs = [tuple({**side, 'params': {**(side.get('params') or {}),
                                           entry['over']: value}}
                       for side in pairs[0]) for value in entry['at']]
    pre = entry.get('precondition') or {}
    return [side for pair in pairs for side in pair] + \
        [pre[s] for s in SIDES if pre]


def curve_points(entry):
    '''How many points a ratio's value is the geometric mean of.'''
    return len(entry['at']) if 'over' in entry else 1
