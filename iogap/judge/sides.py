'''The sides a ratio entry reads, alike for its judgement, the file's
checks, the audit and the plan.'''


def ratio_sides(entry):
    '''A ratio's sides, numerator and denominator alternating: its two, or
    a curve's two at each point; then its precondition's, if any.'''
    pairs = [(entry['numerator'], entry['denominator'])]
    if 'over' in entry:
        pairs = [tuple({**side, 'params': {**(side.get('params') or {}),
                                           entry['over']: value}}
                       for side in pairs[0]) for value in entry['at']]
    pre = entry.get('precondition') or {}
    return [side for pair in pairs for side in pair] + \
        [pre[s] for s in ('numerator', 'denominator') if pre]


def curve_points(entry):
    '''How many points a ratio's value is the geometric mean of.'''
    return len(entry['at']) if 'over' in entry else 1
