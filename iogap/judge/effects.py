'''The study's effects, judged over several nights: each fails when the
geometric mean of its ratio's last ``nights`` values falls beyond a
threshold between ``healthy`` and ``vanished``, which one night's band
cannot see; the threshold keeps the budget's false alarms at its stress.'''

import math
import statistics

from iogap.judge import noise

#: Nights before the window from which the site's own spread is used
SITE_NIGHTS = 10
#: Most nights an effect may pool (longer: a drift, not a test)
MAX_NIGHTS = 30
#: Share of disappearances caught ("9 in 10")
POWER = 0.9

_PHI = statistics.NormalDist()


def _gain(entry):
    '''Log distance from vanished to healthy (positive: healthy above).'''
    return math.log(entry['healthy'] / entry.get('vanished', 1.0))


def threshold(entry, cv, alpha, stress):
    '''The log of the geometric mean beyond which the entry fails.'''
    sd = stress * cv / math.sqrt(entry['nights'])
    step = _PHI.inv_cdf(1 - alpha) * sd
    healthy = math.log(entry['healthy'])
    return healthy - step if _gain(entry) > 0 else healthy + step


def _fails(entry, cv, at, limit):
    '''Share of series whose mean (true log value ``at``) fails.'''
    sd = cv / math.sqrt(entry['nights'])
    low = _PHI.cdf((limit - at) / sd)
    return low if _gain(entry) > 0 else 1 - low


def rates(entry, cv, alpha, stress, at=1.0):
    '''``((false alarms, at stress), share caught once it vanished)``, the
    latter at ``at`` times the noise.'''
    limit = threshold(entry, cv, alpha, stress)
    healthy = math.log(entry['healthy'])
    return ((_fails(entry, cv, healthy, limit),
             _fails(entry, stress * cv, healthy, limit)),
            _fails(entry, at * cv, math.log(entry.get('vanished', 1.0)),
                   limit))


def nights_needed(entry, cv, alpha, stress, at=1.0):
    '''Fewest nights that catch the effect's loss 9 in 10 at ``at`` times
    the noise, or ``None``.'''
    for n in range(1, MAX_NIGHTS + 1):
        if rates({**entry, 'nights': n}, cv, alpha, stress, at)[1] >= POWER:
            return n
    return None


def check(ref, fail):
    '''Each effect names ratios of the file, healthy apart from vanished.'''
    ratios = {e['name'] for e in ref.data['ratios']}
    for i, entry in enumerate(ref.data.get('effects') or []):
        for key in ('ratio', 'over'):
            if key in entry and entry[key] not in ratios:
                fail(['effects', i, key], f'names no ratio of this file '
                     f'({entry[key]!r}): effects read the nightly values of '
                     f'a ratios: entry')
        if entry['healthy'] == entry.get('vanished', 1.0):
            fail(['effects', i, 'healthy'], 'equals vanished: the effect '
                 'has no size to test')


def series(entry, values_of):
    '''The effect's values on the nights both its ratios were judged,
    oldest first; ``values_of(ratio name)``: ``{night: value}``.'''
    top = values_of(entry['ratio'])
    under = values_of(entry['over']) if 'over' in entry else None
    nights = sorted(n for n in top if under is None or n in under)
    return [top[n] / (under[n] if under else 1.0) for n in nights]


def judge(entry, values, cv, alpha, stress):
    '''``(passed, message)`` of ``values`` (oldest first); ``passed`` is
    ``None`` while too few nights are kept.'''
    n = entry['nights']
    if len(values) < n:
        return None, (f'{len(values)} of the {n} nights it pools: not '
                      f'judged yet')
    # the nights before the longest window, so none is also judged
    before = values[:-n][-3 * SITE_NIGHTS:]
    source = 'assumed'
    if len(before) >= SITE_NIGHTS:
        # the site's own spread; a quieter site learns of a loss sooner
        cv, source = noise.spread(before), f'the {len(before)} nights before'
        n = min(n, nights_needed(entry, cv, alpha, stress) or n)
    limit = threshold({**entry, 'nights': n}, cv, alpha, stress)
    mean = statistics.fmean(math.log(v) for v in values[-n:])
    rising = _gain(entry) > 0
    passed = bool(mean >= limit if rising else mean <= limit)
    return passed, (f'geometric mean of the last {n} nights '
                    f'{math.exp(mean):.3g}, '
                    f'{"at least" if rising else "at most"} '
                    f'{math.exp(limit):.3g} needed (healthy '
                    f'{entry["healthy"]:g}, gone '
                    f'{entry.get("vanished", 1.0):g}; '
                    f'noise {cv:.1%} a night, {source})')
