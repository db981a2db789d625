'''fio's JSON output, checked against the plan: every thread a job of its
own (no ``group_reporting``), each seen to run, read and hit no error.'''

import json

from iogap.errors import IogapError


def load(path):
    '''The JSON document fio wrote to ``path``; a clear error otherwise.'''
    try:
        with open(path) as fp:
            text = fp.read()
    except OSError as err:
        raise IogapError(f'fio wrote no JSON output ({path}: '
                         f'{err.strerror})') from None
    # fio may print notices before the document (e.g. on stderr merged)
    start = text.find('{')
    try:
        doc = json.loads(text[start:]) if start >= 0 else None
    except ValueError as err:
        raise IogapError(f'fio output {path} is not JSON: {err}') from None
    if not isinstance(doc, dict) or not isinstance(doc.get('jobs'), list):
        raise IogapError(f'fio output {path} holds no "jobs" list')
    return doc


def threads(doc, name, expected, options):
    '''The entries of job ``name``, checked: ``expected`` of them, each
    without error, run with ``options`` (fio's own echo of its job
    options, values as strings) and having read something.'''
    jobs = [j for j in doc['jobs'] if j.get('jobname') == name]
    if len(jobs) != expected:
        raise IogapError(f'fio reported {len(jobs)} thread(s) of job '
                         f'{name!r}, expected {expected}')
    for n, job in enumerate(jobs):
        what = f'fio thread {n} of {name!r}'
        if job.get('error'):
            raise IogapError(f'{what} failed with error {job["error"]}')
        given = job.get('job options', {})
        for key, value in options.items():
            if str(given.get(key)) != str(value):
                raise IogapError(f'{what} ran with {key}={given.get(key)}, '
                                 f'expected {value}')
        read = job.get('read', {})
        if not read.get('io_bytes') or not read.get('runtime'):
            raise IogapError(f'{what} read nothing ({read.get("io_bytes")} '
                             f'bytes in {read.get("runtime")} ms)')
    return jobs


def figures(jobs):
    '''``{bytes, seconds, read_bw, read_iops, clat_mean}`` of the threads
    together: over the longest runtime (fio's group bandwidth), in MB/s
    (10^6) like dd, ops/s, and microseconds averaged over every I/O.'''
    reads = [j['read'] for j in jobs]
    nbytes = sum(r['io_bytes'] for r in reads)
    ios = sum(r['total_ios'] for r in reads)
    seconds = max(r['runtime'] for r in reads) / 1000
    clat = sum(r['clat_ns']['mean'] * r['total_ios'] for r in reads) / ios
    return {'bytes': nbytes, 'seconds': seconds,
            'read_bw': nbytes / seconds / 1e6, 'read_iops': ios / seconds,
            'clat_mean': clat / 1000}
