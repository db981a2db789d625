'''iogap report on captured run reports and a results database
(tests/data/report, see SOURCES.md): every expected figure, panel and
series, judged through the figures.json manifest the renderer writes.

matplotlib's savefig (layout and rasterising: most of the time) is replaced
by a stub in most tests; the manifest is read from the drawn axes before
saving, so it is unaffected. One test saves real PNGs.
'''

import json
import os
import sqlite3
import struct
import subprocess
import sys

import pytest

pytest.importorskip('matplotlib')

from matplotlib.figure import Figure     # noqa: E402

from iogap.history import load             # noqa: E402
from iogap.__main__ import main as iogap    # noqa: E402
from iogap.errors import EXIT             # noqa: E402


def main(args):
    return iogap(['report', *args])


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
DATA = os.path.join(ROOT, 'tests', 'data', 'report')
GENERIC = os.path.join(DATA, 'generic-run-report.json')
LOCALPAIR = os.path.join(DATA, 'localpair-run-report.json')
DB = os.path.join(DATA, 'generic-results.db')
PNG = b'\x89PNG\r\n\x1a\n'


def _stub_savefig(self, path, **kw):
    with open(path, 'wb') as fp:
        fp.write(PNG)


@pytest.fixture(scope='module')
def render(tmp_path_factory):
    '''``render(*args) -> (manifest, html, outdir)``, each input once.'''
    done = {}

    def run(*args):
        if args not in done:
            out = tmp_path_factory.mktemp('report')
            with pytest.MonkeyPatch.context() as mp:
                mp.setattr(Figure, 'savefig', _stub_savefig)
                assert main([*args, '-o', str(out)]) == 0
            with open(out / 'figures.json') as fp, \
                    open(out / 'index.html') as page:
                done[args] = (json.load(fp), page.read(), out)
        return done[args]

    return run


def figures(manifest):
    return {f['file']: f for s in manifest['sections'] for f in s['figures']}


def section(manifest, key):
    return next(s for s in manifest['sections'] if s['key'] == key)


def panel(figure, title):
    return next(p for p in figure['panels'] if p['title'] == title)


def test_generic_run_draws_dd_ior_osu(render):
    manifest, html, out = render(GENERIC)
    found = figures(manifest)
    assert set(found) == {
        'dd.png', 'ior_posix_procs_per_node.png',
        'ior_mpiio_procs_per_node.png', 'ior_hdf5_procs_per_node.png',
        'ior_collective.png', 'mdtest.png', 'osu_pt2pt.png',
        'osu_collective.png'}
    assert all((out / f).exists() for f in found)
    dd = found['dd.png']
    assert [p['title'] for p in dd['panels']] == ['write', 'read once',
                                                 'read 3 times']
    for p in dd['panels']:
        assert p['ylabel'] in ('bandwidth (MB/s)', '')
        assert p['xlabel'] == 'I/O mode'
        assert p['series'] == ['default (bind=default)',
                               'default (bind=cores)']
    assert dd['panels'][0]['yscale'] == 'log'    # 900 to 14,000 MB/s
    assert 'No study figure applies to anyhost:default' in \
        section(manifest, 'dd')['notes'][0]


def test_generic_ior_panels_follow_the_declared_constraints(render):
    found = figures(render(GENERIC)[0])
    posix = found['ior_posix_procs_per_node.png']
    assert [p['title'] for p in posix['panels']] == [
        f'POSIX {m}: {ph}' for m in ('buffered', 'fsync', 'direct')
        for ph in ('write', 'read once', 'read 3 times')]
    # IOR 4.0.0 does O_DIRECT only through POSIX: no direct MPIIO panels
    mpiio = found['ior_mpiio_procs_per_node.png']
    assert [p['title'].split(':')[0] for p in mpiio['panels']][::3] == [
        'MPIIO buffered', 'MPIIO fsync']
    write = panel(posix, 'POSIX buffered: write')
    assert write['series'] == [
        'default, fpp, bind=default', 'default, fpp, bind=cores',
        'default, ssf, bind=default', 'default, ssf, bind=cores']
    assert panel(posix, 'POSIX direct: write')['xlabel'] == \
        'processes per node'
    assert write['ylabel'] == 'bandwidth (MiB/s)'
    coll = found['ior_collective.png']
    assert [p['title'] for p in coll['panels']] == [
        'MPIIO: write', 'HDF5: write', 'MPIIO: read once', 'HDF5: read once']
    assert [p['title'] for p in found['mdtest.png']['panels']] == [
        'create', 'stat', 'read', 'remove']
    assert found['mdtest.png']['panels'][0]['ylabel'] == \
        'operations per second (ops/s)'
    assert 'One node per case' in section(render(GENERIC)[0], 'ior')[
        'notes'][0]


def test_generic_osu_latency_bandwidth_and_collectives(render):
    found = figures(render(GENERIC)[0])
    pt2pt = found['osu_pt2pt.png']
    smallest = panel(pt2pt, 'latency at the smallest message (0 or 1 B)')
    assert smallest['ylabel'] == 'latency (us)'
    assert smallest['xlabel'] == 'rank placement'
    sizes = panel(pt2pt, 'latency against message size')
    assert (sizes['xscale'], sizes['yscale']) == ('log', 'log')
    assert sizes['series'] == ['default, same socket, bind=default',
                               'default, same socket, bind=cores']
    assert panel(pt2pt, 'peak bandwidth')['ylabel'] == 'bandwidth (MB/s)'
    coll = found['osu_collective.png']
    assert [p['title'] for p in coll['panels']] == [
        'all-to-all latency', 'allreduce latency']
    assert 'default, 64K B, bind=cores' in coll['panels'][0]['series']


def test_sections_without_data_name_the_families_they_need(render):
    manifest, html, _ = render(GENERIC)
    assert 'DDFrequencySweep, IORFrequencySweep' in \
        section(manifest, 'sweep')['missing']
    assert 'AbsoluteCheck, RatioCheck, FitCheck' in \
        section(manifest, 'ratios')['missing']
    assert 'two or more sessions' in section(manifest, 'history')['missing']
    assert 'Sections without data' in html
    assert 'Drawn from the study' not in html


def test_localpair_partitions_keep_their_colors(render):
    manifest = render(LOCALPAIR)[0]
    colors = {}
    for f in figures(manifest).values():
        for p in f['panels']:
            for label, color in p['colors'].items():
                part = label.split(' ')[0].rstrip(',')
                if part in ('all', 'one'):
                    colors.setdefault(part, set()).add(color)
    assert len(colors['all']) == len(colors['one']) == 1
    assert colors['all'] != colors['one']
    assert figures(manifest)['dd.png']['panels'][0]['series'] == [
        'all (bind=default)', 'all (bind=cores)', 'one (bind=default)',
        'one (bind=cores)']


def test_localpair_ratio_is_judged_at_a_glance(render):
    manifest = render(LOCALPAIR)[0]
    ratios = section(manifest, 'ratios')
    chart = figures(manifest)['judge_ratiocheck.png']['panels'][0]
    assert chart['title'] == '1 judged, none failed'
    assert set(chart['series']) == {'pass', 'reference band'}
    [row] = ratios['table']['rows']
    assert row[:3] == ['RatioCheck', 'one_over_all_direct_write_bw', 'one']
    assert row[3] == pytest.approx(1.2078, abs=1e-4)     # the run's value
    # a report from before judgements logged their false-alarm rate
    assert row[4:10] == [1.0, 0.7, 1.3, 'ratio', '', 'pass']


def db_sessions():
    '''``[(uuid, run report)]`` of the committed database, oldest first.'''
    with sqlite3.connect(DB) as conn:
        found = [(u, json.loads(blob)) for u, blob in conn.execute(
            'SELECT uuid, json_blob FROM sessions ORDER BY session_start_unix')]
    conn.close()
    return found


def test_history_from_the_results_db_puts_regressions_first(render):
    manifest, html, _ = render('--db', DB)
    assert [s['uuid'] for s in manifest['sessions']] == \
        [u for u, _ in db_sessions()]
    history = figures(manifest)['history_anyhost.png']
    # each figure's series, beside the box of its past nights
    assert len(history['panels']) == 24
    assert all(p['title'].startswith(('tonight ', 'no '))
               for p in history['panels'][1::2])
    table = section(manifest, 'history')['table']['rows']
    # the study's figures first, the harness's (controls, counters) after,
    # each by how far the newest night moved the wrong way
    internal = [r[1] == 'harness' for r in table]
    assert internal == sorted(internal)
    worse = [r[5] for r, i in zip(table, internal)
             if r[5] is not None and not i]
    assert worse == sorted(worse, reverse=True)
    # The newest session ran with the scratch device throttled to 150 MB/s:
    # its first reads from the device are the regressions, 90 % and more
    assert history['panels'][0]['title'] == table[0][0]
    assert table[0][0].endswith(': read_once_bw') and worse[0] > 90
    # Sections 1-5 draw the newest session
    assert figures(manifest)['dd.png']['panels'][0]['series'] == [
        'default (bind=default, darshan=off)',
        'default (bind=default, darshan=on)',
        'default (bind=cores, darshan=off)']


def test_a_failed_judgement_comes_first_in_the_history(tmp_path, render):
    # A second night made from the real localpair report: same values, but
    # its one RatioCheck marked failed, as ReFrame would on a regression
    with open(LOCALPAIR) as fp:
        night = json.load(fp)
    night['session_info'].update(uuid='second-night', time_start_unix=(
        night['session_info']['time_start_unix'] + 86400))
    for tc in night['runs'][0]['testcases']:
        for pv in tc['perfvalues'].values():
            if tc['name'].startswith('RatioCheck'):
                pv[5] = 'fail'
    path = tmp_path / 'second-night.json'
    path.write_text(json.dumps(night))
    manifest = render(LOCALPAIR, str(path))[0]
    history = figures(manifest)['history_localpair.png']
    first = history['panels'][0]
    assert first['title'] == '[one] one_over_all_direct_write_bw'
    assert first['ylabel'] == 'ratio'
    rows = section(manifest, 'history')['table']['rows']
    assert rows[0][0] == first['title'] and rows[0][6] == "fail"
    assert all(r[6] == '' for r in rows[1:])
    assert section(manifest, 'ratios')['table']['rows'][0][9] == 'fail'


def test_a_session_in_a_report_and_the_db_counts_once(tmp_path):
    # The newest session's run report, as ReFrame stored it in the database
    (uuid, report), = db_sessions()[-1:]
    path = tmp_path / 'newest.json'
    path.write_text(json.dumps(report))
    sessions, rows = load.load([str(path)], DB)
    assert len(sessions) == 3
    newest = load.latest(rows)
    assert {r.session.uuid for r in newest} == {sessions[-1].uuid} == {uuid}
    assert len({(r.case, r.figure) for r in newest}) == len(newest)


def test_sweep_fit_line_r2_and_intercept(tmp_path, render):
    # Not measured data: three points on a known line test the fit itself
    with open(GENERIC) as fp:
        report = json.load(fp)
    case = next(tc for tc in report['runs'][0]['testcases']
                if tc['name'].startswith('DDSingleStream'))
    cases = []
    for khz in (1200000, 1600000, 2000000):
        name = f'DDFrequencySweep %cpu_freq={khz} %mode=buffered'
        cases.append(dict(case, name=name, display_name=name, cpu_freq=khz,
                          perfvalues={'anyhost:default:write_bw': [
                              100 * khz / 1e6 + 50, 0, None, None, 'MB/s',
                              'pass']}))
    report['runs'][0]['testcases'] = cases
    path = tmp_path / 'sweep.json'
    path.write_text(json.dumps(report))
    manifest = render(str(path))[0]
    sweep = figures(manifest)['sweep.png']['panels'][0]
    assert sweep['xlabel'] == 'CPU clock (GHz)'
    assert sweep['series'] == ['default: r²=1.00, b=50 MB/s']
    [row] = section(manifest, 'sweep')['table']['rows']
    assert row[3:7] == [3, 1.0, 100.0, 50.0]


def test_a_report_without_figures_says_what_is_missing(tmp_path, render):
    with open(GENERIC) as fp:
        report = json.load(fp)
    report['runs'][0]['testcases'] = [
        tc for tc in report['runs'][0]['testcases'] if tc['fixture']]
    path = tmp_path / 'fixtures-only.json'
    path.write_text(json.dumps(report))
    manifest, html, out = render(str(path))
    assert not figures(manifest)
    for s in manifest['sections']:
        assert s['missing'].startswith('No data: this section needs')
    assert 'DDSingleStream cases' in html and 'OSULatency' in html
    assert 'IORBench, IORCollective, MDTestBench cases' in html


def test_study_example_says_it_is_not_a_run(render):
    manifest, html, out = render('--study-example')
    top = html[:html.index('<h2')]
    assert "Drawn from the study's published figures, not from a run" in top
    assert manifest['study_example'] and 'reference/cori.yaml' in top
    with open(out / 'study-example-report.json') as fp:
        cases = json.load(fp)['runs'][0]['testcases']
    values = {(tc['partition'], tc.get('placement'), k.split(':')[2]): v[0]
              for tc in cases if tc['name'].startswith(('OSULatency',
                                                        'DDSingleStream'))
              for k, v in tc['perfvalues'].items()}
    assert values[('knl', None, 'write_bw')] == 306
    assert [values[(p, pl, 'latency_smallest')] for pl in
            ('same_socket', 'inter_node') for p in ('haswell', 'knl')] == \
        [0.23, 0.63, 1.97, 4.92]
    found = figures(manifest)
    assert "study's value (CUG'17)" in found['dd.png']['panels'][0]['series']
    assert set(found['osu_pt2pt.png']['panels'][0]['series']) == {
        'haswell', 'knl', 'reference band (AbsoluteCheck)',
        'reference bound'}
    assert {'judge_absolutecheck.png', 'judge_ratiocheck.png'} <= set(found)


@pytest.mark.parametrize('name,content', [
    ('empty.json', ''),
    ('foreign.json', '{"name": "not a report"}'),
    ('list.json', '[1, 2, 3]'),
    ('text.json', 'Traceback? no: plain text'),
])
def test_bad_report_is_one_line_naming_the_file(tmp_path, capsys, name,
                                                content):
    path = tmp_path / name
    path.write_text(content)
    assert main([str(path), '-o', str(tmp_path / 'out')]) == EXIT['input']
    err = capsys.readouterr().err
    assert err.count('\n') == 1 and str(path) in err
    assert 'Traceback' not in err and 'run report' in err


@pytest.mark.parametrize('content', [b'not sqlite at all', None])
def test_bad_database_is_one_line(tmp_path, capsys, content):
    path = tmp_path / 'results.db'
    if content is None:
        with sqlite3.connect(path) as conn:
            conn.execute('CREATE TABLE other(x)')
        conn.close()
    else:
        path.write_bytes(content)
    assert main(['--db', str(path), '-o', str(tmp_path / 'out')]) == EXIT['input']
    err = capsys.readouterr().err
    assert err.count('\n') == 1 and 'not a ReFrame results database' in err


def test_no_input_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(['-o', str(tmp_path)])
    assert exit_.value.code == 2
    assert 'give a run report, --db PATH or --study-example' in \
        capsys.readouterr().err


def test_cli_exit_code_and_no_traceback(tmp_path):
    empty = tmp_path / 'empty.json'
    empty.write_text('')
    proc = subprocess.run([sys.executable, '-m', 'iogap', 'report', str(empty),
                           '-o', str(tmp_path / 'out')],
                          capture_output=True, text=True,
                          cwd=ROOT)
    assert proc.returncode == EXIT["input"]
    assert proc.stderr == \
        f'iogap report: {empty}: empty file, not a ReFrame run report\n'


def test_importing_the_package_does_not_import_matplotlib():
    # The registry imports every module of iogap when a run loads
    code = ('import sys; from iogap.core import registry; registry.names(); '
            'import iogap.report.sections; '
            'print("matplotlib" in sys.modules)')
    proc = subprocess.run([sys.executable, '-c', code], capture_output=True,
                          text=True, cwd=ROOT)
    assert proc.stdout.strip() == 'False', proc.stderr


def test_real_png_files(tmp_path):
    with open(LOCALPAIR) as fp:
        report = json.load(fp)
    report['runs'][0]['testcases'] = [
        tc for tc in report['runs'][0]['testcases']
        if tc['name'].startswith(('DDSingleStream', 'RatioCheck'))]
    path = tmp_path / 'dd.json'
    path.write_text(json.dumps(report))
    assert main([str(path), '-o', str(tmp_path / 'out')]) == 0
    for name in ('dd.png', 'judge_ratiocheck.png'):
        data = (tmp_path / 'out' / name).read_bytes()
        width, height = struct.unpack('>II', data[16:24])
        assert data.startswith(PNG) and width >= 1000 and height >= 150
    assert 'data:image/png;base64,' in (tmp_path / 'out' /
                                         'index.html').read_text()


def test_darshan_section_draws_every_instrumented_case(tmp_path, data):
    '''A real run of darshan=on cases: I/O time per module and the dominant
    access size, one bar per case.'''
    out = tmp_path / 'page'
    proc = subprocess.run([sys.executable, '-m', 'iogap', 'report',
                           data('report', 'darshan-run-report.json'),
                           '-o', str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((out / 'figures.json').read_text())
    [darshan] = [s for s in manifest['sections'] if s['key'] == 'darshan']
    [figure] = darshan['figures']
    times, sizes = figure['panels']
    assert times['title'] == 'Darshan I/O time per module'
    assert set(times['series']) >= {'POSIX', 'MPI-IO'}
    assert 'access size' in sizes['title'] and sizes['xscale'] == 'log'
