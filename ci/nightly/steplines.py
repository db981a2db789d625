'''The change-point summary's notes on what was not judged and its lines
on the rule that judged: how many thresholds were calibrated on their
nights, and each figure judged for breakage only, as its nights show or
as its reference file declares (:mod:`iogap.judge.breakage`).'''

from iogap.judge import calibration


def notes(failed, short, gone):
    '''One line per failed case, one for the figures too new to judge,
    one for those gone tonight.'''
    lines = [f'change points: {case} failed tonight: its figures have no '
             f'value to judge' for case in sorted(failed)]
    if short:
        lines.append(f'change points: {len(short)} figure(s) with too few '
                     f'nights to judge (new or renamed), e.g. {short[0][0]}'
                     f' ({short[0][2]})')
    if gone:
        lines.append(f'change points: {len(gone)} figure(s) of cases that '
                     f'ran tonight have no value tonight (renamed or '
                     f'dropped), e.g. {gone[0]}')
    return lines


def rules(cases):
    '''``(a line saying how many thresholds were calibrated on their
    nights and how many kept the conservative rule; one line per figure
    judged for breakage only)``.'''
    said = [(name, why) for name, _, why in cases]
    calibrated = sum(calibration.CALIBRATED in why for _, why in said)
    others = len(said) - calibrated
    rules = [f'change points: {calibrated} of {len(said)} figure(s) with '
             f'the threshold calibrated on their clean nights' +
             (f', {others} with Bonferroni at {calibration.ALPHA:.0%} '
              f'(fewer than {calibration.MIN_NIGHTS} clean nights)'
              if others else '')] if said else []
    return rules, [f'change points: {name} {calibration.BREAKAGE_ONLY}: '
                   f'{why}' for name, why in said
                   if calibration.BREAKAGE_ONLY in why]
