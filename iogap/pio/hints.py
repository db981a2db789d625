'''The MPI-IO hints ROMIO prints at each open (``ROMIO_PRINT_HINTS=1``:
``key = cb_nodes value = 2``), and the check that collective buffering put
as many aggregators as asked on every node of the job.'''

import re

from reframe.core.exceptions import SanityError

_HINT = re.compile(r'^key = (\S+)\s+value = (.*?)\s*$', re.M)


def reports(text):
    '''``[{hint: value}]``, one per file open that printed its hints.'''
    found, current = [], {}
    for key, value in _HINT.findall(text):
        if key in current:      # a key seen again: the next open
            found.append(current)
            current = {}
        current[key] = value
    if current:
        found.append(current)
    return found


def check_aggregators(text, ranks, cb_nodes):
    '''Sanity: every open printed ``cb_nodes`` and as many aggregator
    ranks, running on every node of the job (``ranks``: the placement
    probe's); returns a summary.'''
    found = reports(text)
    if not found:
        raise SanityError('the MPI-IO layer printed no hints (the profile\'s '
                          'mpiio_hints_display): the aggregators cannot be '
                          'verified')
    host = {r['rank']: r['host'] for r in ranks}
    nodes = sorted(set(host.values()))
    # IOR checks that the file exists by opening it on MPI_COMM_SELF, one
    # process, where ROMIO can only use one aggregator: not a data open
    found = [h for h in found if not (h.get('cb_nodes') == '1' and len(
        h.get('romio_aggregator_list', '').split()) == 1)]
    if not found:
        raise SanityError(f'no open of the shared file over the job\'s '
                          f'ranks printed its hints: cb_nodes={cb_nodes} '
                          f'cannot be verified')
    for hints in found:
        if hints.get('cb_nodes') != str(cb_nodes):
            raise SanityError(f'asked for cb_nodes={cb_nodes} but the MPI-IO '
                              f'layer used cb_nodes='
                              f'{hints.get("cb_nodes", "(none)")}')
        listed = hints.get('romio_aggregator_list', '').split()
        if len(listed) != cb_nodes or not all(a.isdigit() for a in listed):
            raise SanityError(f'romio_aggregator_list '
                              f'{hints.get("romio_aggregator_list")!r}: '
                              f'expected {cb_nodes} aggregator ranks')
        where = sorted({host.get(int(a), '?') for a in listed})
        if where != nodes:
            raise SanityError(f'the aggregators (ranks {" ".join(listed)}) '
                              f'ran on {", ".join(where)}, not on every node '
                              f'of the job ({", ".join(nodes)})')
    listed = found[0]['romio_aggregator_list'].split()
    return ' '.join(f'{a}@{host[int(a)]}' for a in listed)
