'''IOR and mdtest output: sizes, JSON summaries, SUMMARY tables, problems.
IOR's exit code is twice its bad transfers modulo 256 (128 errors exit 0),
so the warnings on stdout are the authority; its JSON summary has a file of
its own (``-O summaryFile``), as warnings and hint dumps land amid stdout.'''

import json
import re

from reframe.core.exceptions import SanityError

from iogap.core import JobSteps, size_bytes
from iogap.errors import IogapError
from iogap.pio.figures import MDTEST_OPS

#: Lines that mean data was lost, corrupted or not moved: always fatal
PROBLEM = re.compile(
    r'^(ERROR\b.*|WARNING: (Incorrect data|Expected aggregate file size|'
    r'task \d+, partial|unable to|.*\bfailed\b).*)$', re.M)


def check_sizes(block, transfer, direct):
    '''Raise a one-line :class:`IogapError` unless IOR can use the sizes.'''
    nblock = size_bytes(block, 'IOR block size')
    nxfer = size_bytes(transfer, 'IOR transfer size')
    if direct and nxfer % 4096:
        raise IogapError(f'direct I/O needs a transfer size that is a '
                         f'multiple of 4 KiB, got {transfer}')
    if nblock % nxfer:
        raise IogapError(f'IOR block size {block} is not a multiple of the '
                         f'transfer size {transfer}')
    return nblock, nxfer


def check_segments(segments):
    '''``segments``, or a one-line IogapError unless a positive int.'''
    if isinstance(segments, bool) or not isinstance(segments, int) or \
            segments < 1:
        raise IogapError(f'IOR segment count must be a positive integer, '
                         f'got {segments!r}')
    return segments


def problems(text):
    '''``[(step, line)]`` for every fatal line of IOR/mdtest stdout.'''
    return [(step.labels.get('step', 'before the first step'),
             m.group(0).strip())
            for step in JobSteps(text, preamble=True)
            for m in PROBLEM.finditer(step.text)]


def load_summary(path, name):
    '''The JSON document IOR wrote to ``path``; a missing, truncated or
    incomplete one is a sanity error naming the step.'''
    try:
        with open(path) as fp:
            doc = json.load(fp)
    except FileNotFoundError:
        raise SanityError(f'no IOR result for {name}: {path} is missing '
                          f'(the step did not run)') from None
    except ValueError as err:
        raise SanityError(f'IOR result for {name} is truncated or not JSON '
                          f'({err}): the run was cut short') from None
    if not isinstance(doc, dict) or not doc.get('summary'):
        raise SanityError(f'IOR result for {name} has no summary')
    return doc


def phase(doc, access, name, tasks, iterations, nbytes):
    '''Summary and per-iteration bandwidths of one access of one run, with
    the task count, iterations and bytes moved checked against the plan.'''
    rows = [s for s in doc['summary'] if s.get('operation') == access]
    if len(rows) != 1:
        raise SanityError(f'IOR result for {name} has no {access} summary')
    row = rows[0]
    samples = [r['bwMiB'] for t in doc.get('tests', [])
               for r in t.get('Results', []) if r.get('access') == access]
    if row['numTasks'] != tasks:
        raise SanityError(f'IOR {name} ran {row["numTasks"]} tasks, '
                          f'expected {tasks}')
    if len(samples) != iterations:
        raise SanityError(f'IOR {name} reported {len(samples)} {access} '
                          f'iterations, expected {iterations}')
    if abs(row['xsizeMiB'] * 2**20 - nbytes) > 0.001 * nbytes:
        raise SanityError(f'IOR {name} moved {row["xsizeMiB"]} MiB per '
                          f'{access}, expected {nbytes / 2**20:g} MiB')
    if min(samples) <= 0:
        raise SanityError(f'IOR {name} reported a {access} bandwidth of '
                          f'{min(samples)} MiB/s')
    return {'bw': row['bwMeanMIB'], 'bw_max': row['bwMaxMIB'],
            'bw_min': row['bwMinMIB'], 'iops': row['OPsMean'],
            'time': row['MeanTime'], 'samples': samples,
            'first': next(r for t in doc['tests'] for r in t['Results']
                          if r['access'] == access)}


def mdtest_runs(text):
    '''``{step: {'tasks': N, 'iterations': N, op: mean rate}}`` from mdtest
    stdout; a step without a complete SUMMARY table has no rates.'''
    runs = {}
    for step in JobSteps(text):
        run, in_rates = runs.setdefault(step['step'], {}), False
        for line in step.text.splitlines():
            if m := re.match(r'^mdtest-\S+ was launched with (\d+) total',
                             line):
                run['tasks'] = int(m.group(1))
            elif line.startswith('SUMMARY'):
                # Only the rate table: -P adds a time table with the same rows
                m = re.match(r'^SUMMARY rate: \(of (\d+) iterations\)', line)
                in_rates = bool(m)
                if m:
                    run['iterations'] = int(m.group(1))
            elif in_rates:
                for op, row in MDTEST_OPS.items():
                    if m := re.match(rf'^\s*{row}\s+(\S+)\s+(\S+)\s+(\S+)'
                                     r'\s+\S+$', line):
                        run[op] = float(m.group(3))
    return runs


def bandwidths(doc, access):
    '''The MiB/s IOR reports for each iteration of ``access``; none, or
    one not positive, is a sanity error.'''
    samples = [r['bwMiB'] for t in doc['tests'] for r in t['Results']
               if r.get('access') == access]
    if not samples or min(samples) <= 0:
        raise SanityError(f'IOR {access} reported bandwidths {samples}')
    return samples


def claimed_seconds(doc, access, nbytes):
    '''The seconds IOR claims for each iteration of ``access`` moving
    ``nbytes``: its bandwidths, which its summary derives, as time.'''
    return [nbytes / (bw * 2**20) for bw in bandwidths(doc, access)]


def check_bandwidths(doc, access, nbytes, found, step, block,
                     last_only=False, margin=JobSteps.TRACE_MARGIN):
    '''Sanity: IOR's bandwidths for ``access`` (each iteration's, and the
    summary's mean, least and most) agree with each other and, as time,
    with the clock and the traces of each rank's ``block`` bytes (``found``,
    ``last_only``, ``margin``: :meth:`iogap.core.JobSteps.held`).'''
    samples = bandwidths(doc, access)
    # Ranks busy-poll in MPI: their CPU time is no bound on IOR's own
    found.held(step, claimed_seconds(doc, access, nbytes), nbytes, block,
               f'IOR {access}', launched=True, last_only=last_only,
               margin=margin)
    [row] = [r for r in doc['summary'] if r.get('operation') == access]
    told = {'bwMeanMIB': sum(samples) / len(samples),
            'bwMaxMIB': max(samples), 'bwMinMIB': min(samples)}
    for key, want in told.items():
        if abs(row[key] - want) > 0.01 * want + 0.01:
            raise SanityError(f'IOR {access} summary {key} = {row[key]} '
                              f'MiB/s, but its iterations say {want:.2f}')
