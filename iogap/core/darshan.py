'''Darshan as a variant of the I/O families: a ``darshan=on`` case runs its
steps under darshan-runtime, whose logs become figures, their bytes held to
what the tool says it moved: a benchmark that skipped its I/O fails.'''

import os

from reframe.core.exceptions import SanityError

from iogap.core.figures import Figure

#: Darshan modules reported, by short name
MODULES = {'POSIX': 'posix', 'MPI-IO': 'mpiio', 'STDIO': 'stdio'}
#: The counters whose sum is a module's operations
_OPS = {'POSIX': ('READS', 'WRITES'), 'STDIO': ('READS', 'WRITES'),
        'MPI-IO': tuple(f'{k}_{way}' for k in ('INDEP', 'COLL', 'SPLIT', 'NB')
                        for way in ('READS', 'WRITES'))}
#: Relative difference allowed between Darshan's bytes and the tool's
TOLERANCE = 0.01
#: Darshan's default directories to ignore, less /var/ (/var/tmp scratch)
EXCLUDE_DIRS = ('/etc/,/dev/,/usr/,/bin/,/boot/,/lib/,/opt/,/sbin/,/sys/,'
                '/proc/')
#: POSIX access-size buckets: counter suffix -> its largest access
_BUCKETS = {'0_100': 100, '100_1K': 2**10, '1K_10K': 10 * 2**10,
            '10K_100K': 100 * 2**10, '100K_1M': 2**20, '1M_4M': 4 * 2**20,
            '4M_10M': 10 * 2**20, '10M_100M': 100 * 2**20,
            '100M_1G': 2**30, '1G_PLUS': 2**30}

_MOD = tuple(MODULES.values())
BYTES = Figure('darshan_{module}_{way}_bytes', 'B', better=None, module=_MOD,
               way=('read', 'written'))
OPS = Figure('darshan_{module}_ops', 'ops', better=None, module=_MOD)
TIME = Figure('darshan_{module}_io_time', 's', better=None, module=_MOD)
SHARE = Figure('darshan_posix_{kind}_share', '%', better=None,
               kind=('sequential', 'consecutive'))
ACCESS = Figure('darshan_posix_access_size', 'B', better=None)
FILES = Figure('darshan_files', 'files', better=None)

#: What a family with the variant adds to its figures
FIGURES = (BYTES, OPS, TIME, SHARE, ACCESS, FILES)


class Darshan:
    '''darshan-runtime for a case's steps, and their logs, checked.'''

    def __init__(self, test):
        self.test = test
        self.on = getattr(test, 'darshan', 'off') == 'on'
        self.lib = None

    def apply(self, job):
        '''Set-up: find the library; the job keeps one log per step.'''
        if not self.on:
            return
        test = self.test
        self.lib = test.tool('libdarshan.so', subdirs=('lib',),
                             what='darshan-runtime', runs=False)
        job['setup'].extend(
            [*(f'module unload {m}' for m in
               test.current_partition.extras['darshan_unload']),
             'mkdir -p darshan'])
        test.env_vars['DARSHAN_EXCLUDE_DIRS'] = EXCLUDE_DIRS
        test.keep_files = [*test.keep_files, 'darshan/*.darshan']
        test.note('darshan-runtime preloaded')

    def env(self, step):
        '''``env ...`` words that preload Darshan for one step.'''
        if not self.on:
            return []
        return ['env', f'LD_PRELOAD={self.lib}',
                f'DARSHAN_LOGFILE=$PWD/darshan/{step}.darshan']

    def figures(self, expected):
        '''The logs' summed figures, each log's bytes checked against
        ``expected``: ``{step: (module, read, written, slack)}``.'''
        if not self.on:
            return {}
        counts = {}
        test = self.test
        root = os.path.realpath(test.current_partition.extras['scratch_root'])
        for step, (module, read, written, slack) in expected.items():
            path = os.path.join(test.stagedir, 'darshan', f'{step}.darshan')
            found = read_log(path, under=root)
            for way, want in (('read', read), ('written', written)):
                got = found['bytes'].get((module, way), 0)
                if not want <= got <= want * (1 + TOLERANCE) + slack:
                    raise SanityError(
                        f'Darshan saw {got} bytes {way} by {module} in step '
                        f'{step}, the tool moved {want}: the step did not do '
                        f'the I/O it reports')
            _add(counts, found)
        test.note(f'darshan logs: {len(expected)}')
        return {name: (value, _unit(name))
                for name, value in figures_of(counts).items()}


def _unit(name):
    return next(f.unit for f in FIGURES if f.parse(name) is not None)


def _add(into, counts):
    for key, value in counts.items():
        if isinstance(value, dict):
            _add(into.setdefault(key, {}), value)
        else:
            into[key] = into.get(key, 0) + value


def figures_of(counts):
    figures = {BYTES.name(module=MODULES[m], way=w): v
               for (m, w), v in counts.get('bytes', {}).items()}
    for fig, key in ((OPS, 'ops'), (TIME, 'time')):
        figures.update({fig.name(module=MODULES[m]): v
                        for m, v in counts.get(key, {}).items()})
    posix_ops = counts.get('ops', {}).get('POSIX', 0)
    if posix_ops:
        for kind in ('sequential', 'consecutive'):
            figures[SHARE.name(kind=kind)] = 100 * counts[kind] / posix_ops
        buckets = counts['sizes']
        figures[ACCESS.name()] = _BUCKETS[max(buckets, key=buckets.get)]
    figures[FILES.name()] = counts.get('files', 0)
    return figures


def _open_log(path):
    '''The pydarshan report of ``path``, or a sanity error saying why.'''
    try:
        import darshan
    except ImportError:
        raise SanityError('reading Darshan logs needs pydarshan: pip install '
                          'darshan') from None
    if not os.path.exists(path):
        raise SanityError(f'no Darshan log {path}: the step ran without '
                          f'darshan-runtime')
    try:
        return darshan.DarshanReport(path, read_all=True)
    except Exception as err:    # pydarshan raises bare RuntimeErrors
        first = str(err).strip().splitlines()[:2]
        raise SanityError(f'Darshan log {path} is unreadable: '
                          f'{" ".join(first)}') from None


def read_log(path, under=None):
    '''The counts of one log, of the files ``under`` a directory if given.'''
    report = _open_log(path)
    counts = {'bytes': {}, 'ops': {}, 'time': {}, 'files': 0,
              'sequential': 0, 'consecutive': 0, 'sizes': {}}
    for module in MODULES:
        if module not in report.records:
            continue
        frame = report.records[module].to_df()
        counters, fcounters = frame['counters'], frame['fcounters']
        if under and module != 'STDIO':
            names = report.name_records
            mine = [names.get(i, '').startswith(under + '/')
                    for i in counters['id']]
            counters, fcounters = counters[mine], fcounters[mine]
        prefix = module.replace('-', '')
        for way, key in (('read', 'READ'), ('written', 'WRITTEN')):
            counts['bytes'][(module, way)] = int(
                counters[f'{prefix}_BYTES_{key}'].sum())
        counts['ops'][module] = int(sum(counters[f'{prefix}_{c}'].sum()
                                        for c in _OPS[module]))
        counts['time'][module] = float(sum(
            fcounters[f'{prefix}_F_{k}_TIME'].sum()
            for k in ('READ', 'WRITE', 'META')))
        if module == 'POSIX':
            # Files opened: POSIX's (STDIO lists the terminal streams too)
            counts['files'] = len(set(counters['id']))
            for kind, key in (('sequential', 'SEQ'),
                              ('consecutive', 'CONSEC')):
                counts[kind] = int(counters[f'POSIX_{key}_READS'].sum() +
                                   counters[f'POSIX_{key}_WRITES'].sum())
            counts['sizes'] = {
                b: int(counters[f'POSIX_SIZE_READ_{b}'].sum() +
                       counters[f'POSIX_SIZE_WRITE_{b}'].sum())
                for b in _BUCKETS}
    return counts
