'''IORPair: both variants of one of the study's contrasts in one job,
alternating by repetition (A B, B A, ...), so that both share the node's
and the file system's state of the moment; ``{phase}_bw_paired`` is the
geometric mean of A over B per repetition (:class:`iogap.core.Control`),
A being the side the study finds faster.'''

import statistics

from reframe.core.builtins import parameter, sanity_function
from reframe.core.exceptions import SanityError

from iogap.core import Control, Figures, JobSteps, family, size_bytes, \
    size_text, variant
from iogap.pio import parse
from iogap.pio.affinity import geometry as affinity_geometry
from iogap.pio.base import ParallelIOTest, ppn_sweep
from iogap.pio.collective import cb_transfer, collective_point, segment_count
from iogap.pio.figures import BW_PAIRED, BW_SIDE
from iogap.pio.ior import _TOTAL_TIME, CALIBRATIONS, IORBase

PAIRED = Control('A runs', 'B runs', ('A', 'B'), 'bandwidths', 'MiB/s')
#: ROMIO's (and Cray MPICH's) cb_buffer_size when no hint sets one
DEFAULT_CB = '16m'


def side(name, **kw):
    return {'name': name, 'api': 'POSIX', 'layout': 'fpp', 'mode':
            'buffered', 'io': 'independent', 'cb': None, 'env': {},
            'ppn': None, 'bound': False, **kw}


def contrasts(part):
    '''``{pair: (A, B, read passes, (nodes, ppn))}`` of ``part``; 0 read
    passes: the write is the contrast. A side's ``ppn`` other than the
    job's is launched with its own task count.'''
    x, found = part.extras, {}
    if 'mpi' not in part.features:
        return found
    sweep = ppn_sweep(part, study_points=False)
    powers = [n for n in sweep if n & (n - 1) == 0]
    point = collective_point(part, 0)
    if 'hdf5' in part.features:
        found['collective'] = (
            side('collective', api='HDF5', layout='ssf', io='collective'),
            side('independent', api='HDF5', layout='ssf'), 0, point)
    sizes = sorted(x['ior_cb_buffer_sizes'], key=size_bytes)
    if sizes:
        big = sizes[-1] if len(sizes) > 1 else DEFAULT_CB
        cb = dict(api='MPIIO', layout='ssf', io='collective')
        found['cb_buffer'] = (side('cb_large', **cb, cb=big),
                              side('cb_small', **cb, cb=sizes[0]), 0, point)
    for ppn in sorted({min(32, powers[-1]), powers[-1]}):
        if 'odirect' in part.features:
            found[f'direct_{ppn}'] = (side('direct', mode='direct'),
                                      side('buffered'), 1, (1, ppn))
    for more in x['ior_ppn_points']:
        fewer = max([n for n in powers if n < more], default=None)
        if fewer and more <= sweep[-1]:
            found[f'reread_{more}'] = (side('fewer', ppn=fewer),
                                       side('more'), 3, (1, more))
    if affinity_geometry(part):
        found['affinity'] = (side('bound', bound=True), side('unbound'), 1,
                             (1, affinity_geometry(part)[0]))
    if x['mpiio_direct_read']:
        mpiio = dict(api='MPIIO', layout='ssf')
        found['mpiio_direct_read'] = (
            side('direct', **mpiio, env=x['mpiio_direct_read']),
            side('buffered', **mpiio), 1, (1, powers[-1]))
    return found


@family
class IORPair(IORBase):
    '''Both sides of a contrast (``pair``) in one job, alternating.'''

    figures = Figures(BW_SIDE, BW_PAIRED)
    #: The contrast (:func:`contrasts`)
    pair = parameter(variant.values(lambda part: list(contrasts(part))))
    core_spec = parameter(inherit_params=True, filter_params=lambda p: p[:1])
    darshan = parameter(inherit_params=True, filter_params=lambda p: p[:1])

    CONSTRAINTS = (
        lambda p, part: p['pair'] in contrasts(part),
        # the bound side is the job's binding, its other side unbound
        lambda p, part: (p['cpu_bind'] == 'cores') == (p['pair'] ==
                                                      'affinity'),
    )

    def configure(self):
        ParallelIOTest.configure(self)
        a, b, self.reads, (nodes, ppn) = contrasts(self.part)[self.pair]
        self.sides = {'A': a, 'B': b}
        self.num_tasks, self.num_tasks_per_node = nodes * ppn, ppn
        if self.pair == 'affinity':
            self.cores_per_task = affinity_geometry(self.part)[1]
        self.api, self.layout, self.mode = a['api'], a['layout'], a['mode']
        self.repetitions = self.repetitions or self.extra('repetitions')
        self.size_transfers(a, b, nodes)
        tasks = sum(self.tasks(s) for s in (a, b))
        self.scratch_bytes = tasks * self.block_bytes
        self.moved_bytes = self.scratch_bytes * (
            self.repetitions * (1 + self.reads) + 1)
        self.dd = self.tool('dd')
        self.ior = self.tool('ior')     # last: IOR's provider logged

    def size_transfers(self, a, b, nodes):
        '''IOR's sizes: the collective pairs' interleaved segments of one
        small call (:mod:`iogap.pio.collective`), else one block a task.'''
        total = size_bytes(self.block_size or self.extra('ior_block_size'),
                           'IOR block size')
        if a['io'] == 'collective':
            xfer = size_bytes(self.transfer_size or
                              self.extra('ior_collective_transfer_size'),
                              'IOR transfer size')
            if a['cb']:
                # at most a task's block: a small profile's buffers then
                # take fewer rounds than CB_ROUNDS
                xfer = min(total, cb_transfer(xfer, self.num_tasks, nodes,
                                              size_bytes(a['cb'])))
            self.segments = segment_count(total, xfer, 'IORPair')
            self.block_size = self.transfer_size = size_text(xfer)
        else:
            self.block_size = size_text(total)
            self.transfer_size = (self.transfer_size or
                                  self.extra('ior_transfer_size'))
            parse.check_sizes(self.block_size, self.transfer_size,
                              'direct' in (a['mode'], b['mode']))
        self.block_bytes = total
        self.note(f'{self.pair}: A {a["name"]}, B {b["name"]}, '
                  f'{self.segments} segment(s) of {self.transfer_size}')

    def tasks(self, s):
        nodes = self.num_tasks // self.num_tasks_per_node
        return nodes * s['ppn'] if s['ppn'] else self.num_tasks

    def main_side(self):
        '''The side the job's own launch runs: its task count, its binding
        and no environment of its own; the job ends with it.'''
        return next(k for k, s in self.sides.items()
                    if not s['ppn'] and not s['env'] and
                    s['bound'] == (self.cpu_bind == 'cores'))

    def launch(self, s):
        if s is self.sides[self.main_side()]:
            return self.launch_prefix()
        self.launch_prefix()        # the job's geometry, for its launcher
        parts, own = dict(self.job_sections.launcher), []
        launcher = self.job.launcher.command(self.job)
        if not s['bound']:
            # the tip's "otherwise": no binding, one CPU a task
            parts['binding'] = []
            launcher = [w for w in launcher
                        if not w.startswith('--cpus-per-task')]
            own = ['--cpus-per-task=1'] if self.cpu_bind == 'cores' else []
        if s['ppn']:
            own += [f'--ntasks={self.tasks(s)}',
                    f'--ntasks-per-node={s["ppn"]}']
        return ' '.join([*launcher, *own,
                         *[o for name in parts for o in parts[name]]])

    def options(self, s, flags, summary):
        return [f'-a {s["api"]}', *(['-F'] if s['layout'] == 'fpp' else []),
                *(['--posix.odirect'] if s['mode'] == 'direct' else []),
                *(['-c'] if s['io'] == 'collective' else []),
                *([f'--{s["api"].lower()}.hintsFileName=hints_'
                   f'{s["name"]}.txt'] if s['cb'] else []),
                flags, '-G 4242',
                f'-b {self.block_size} -t {self.transfer_size}',
                *([f'-s {self.segments}'] if self.segments > 1 else []),
                f'-o "$IOGAP_DIR/ior_{s["name"]}.dat"',
                '-O summaryFormat=JSON', f'-O summaryFile={summary}']

    def plan_steps(self):
        ParallelIOTest.plan_steps(self)
        job, main = self.job_sections, self.main_side()
        a = self.sides['A']
        calibrate = self.ranked(self.ior, f'-a {a["api"]} -w -G 4242 -b '
                                f'{self.transfer_size} -t '
                                f'{self.transfer_size}',
                                '-o "$IOGAP_DIR/calib.dat"',
                                '-O summaryFormat=JSON')
        job.step(f'{self.launch_prefix()} {calibrate}', repeat=CALIBRATIONS,
                 step='calibrate').after.append('rm -f "$IOGAP_DIR"/calib*')
        for key, s in self.sides.items():
            if s['cb']:
                job['setup'].append(
                    f'printf "%s\\n" IOR_HINT__MPI__cb_buffer_size='
                    f'{size_bytes(s["cb"])} IOR_HINT__MPI__romio_cb_write='
                    f'enable > hints_{s["name"]}.txt')
            if s['mode'] == 'direct':
                job['setup'].append(f'iogap_odirect {self.dd} '
                                    f'"$IOGAP_DIR/ior_{s["name"]}.dat" 4096')
            if self.launch(s) != self.launch_prefix():
                # where the side's own launch puts its tasks
                job['probe'].extend([JobSteps.label(probe=key),
                                     self.task_placement.probe_command(
                                         self.launch(s))])
        order = [(r, k) for r in range(1, self.repetitions + 1)
                 for k in ([main, 'AB'.replace(main, '')] if
                           (self.repetitions - r) % 2 else
                           ['AB'.replace(main, ''), main])]
        for r, key in order:
            self.side_steps(key, r, last=(r, key) == order[-1])
        job['teardown'].append('rm -f "$IOGAP_DIR"/ior_*.dat*')
        self.keep_files = [*self.keep_files, 'ior_*.json']

    def side_steps(self, key, rep, last):
        '''One repetition of a side: its write (verified after the first)
        and its read passes; the job's last step is ReFrame's own.'''
        s, job = self.sides[key], self.job_sections
        name, launch = s['name'], self.launch(s)
        ops = [('write', '-w -k', 1)]
        if rep == 1:
            ops.append(('verify', '-R -C -k', 1))
        if self.reads:
            ops.append(('read', '-r -R -C -k', self.reads))
        for op, flags, passes in ops:
            opts = self.options(s, f'{flags} -i {passes}',
                                f'ior_{name}_{op}_{rep}.json')
            command = self.ranked(self.ior, *opts)
            labels = {'side': key, 'rep': rep, 'op': op}
            if last and op == ops[-1][0]:
                self.executable, self.executable_opts = command, []
                step = job.step(**labels)
            else:
                step = job.step(f'{launch} {command}', **labels)
            step.prepare += [f'export {k}={v}' for k, v in s['env'].items()]
            step.after += [f'unset {k}' for k in s['env']]
            if op == 'write':
                step.after.append(f'iogap_bytes "$IOGAP_DIR"/ior_{name}.dat*')
            if op == 'read' and s['mode'] != 'direct':
                step.prepare.append(self.eviction.command(
                    f'{name}{rep}', self.dd, f'"$IOGAP_DIR"/ior_{name}.dat*'))

    def check_run(self):
        '''Sanity: no integrity problem, exit 0; the job's placement (its
        main side's), and where each other side's launch put its tasks.'''
        text = self.read('stdout')
        if bad := parse.problems(text):
            raise SanityError(f'ior step {bad[0][0]}: {bad[0][1]}')
        self.assert_exit_ok(self.TOOL)
        nodes = self.num_tasks // self.num_tasks_per_node
        head = text.split('\niogap-step:', 1)[0]
        _, cpus = self.task_placement.check(head, self.num_tasks, nodes)
        self.note(f'{self.main_side()}: cpus={cpus}')
        for step in JobSteps(text):
            if 'probe' in step.labels:
                s = self.sides[step['probe']]
                ranks = self.task_placement.ranks(step.text)
                self.task_placement.check_ranks(ranks, self.tasks(s), nodes)
                self.note(f'{step["probe"]}: cpus=' + ' '.join(
                    r['cpus'] for r in ranks))
        return text

    @sanity_function
    def validate(self):
        text = self.ran()
        found = JobSteps(text, lambda s: sum(
            float(t) for t in _TOTAL_TIME.findall(s.text)))
        phase = {1: 'read_once', 3: 'read_3x'}.get(self.reads)
        values, evicted = {}, {}
        for step in found:
            if step.labels.get('op') not in ('write', 'read'):
                continue
            key, rep, op = step['side'], int(step['rep']), step['op']
            s = self.sides[key]
            nbytes, what = self.tasks(s) * self.block_bytes, \
                f'{op} of {s["name"]}, repetition {rep}'
            doc = parse.load_summary(
                f'{self.stagedir}/ior_{s["name"]}_{op}_{rep}.json', what)
            parse.check_bandwidths(
                doc, op, nbytes, found, step, self.block_bytes,
                s['io'] != 'independent',
                JobSteps.TRACE_MARGIN + self.metadata_slack(self.block_bytes))
            got = parse.phase(doc, op, what, self.tasks(s),
                              1 if op == 'write' else self.reads, nbytes)
            if op == 'write':
                JobSteps.on_disk(step, nbytes, f'IOR {what}',
                                 self.metadata_slack(nbytes))
            elif s['mode'] != 'direct':
                evicted[f'{s["name"]}{rep}'] = nbytes
            bw = got['bw'] if op == 'write' or self.reads > 1 else \
                got['first']['bwMiB']
            values.setdefault('write' if op == 'write' else phase, {}) \
                .setdefault(key, {})[rep] = bw
        self.eviction.check(text, evicted)
        figures = {}
        for ph, by in values.items():
            for key, reps in by.items():
                name = BW_SIDE.name(phase=ph, side=self.sides[key]['name'])
                figures[name] = (statistics.median(reps.values()),
                                 BW_SIDE.unit)
            figures[BW_PAIRED.name(phase=ph)] = (
                PAIRED.paired(by['A'], by.get('B', {})), BW_PAIRED.unit)
        return self.report(figures)
