'''``python -m iogap.report``: the study's plots from run reports and the
results database, as one HTML page with its figures in ``-o DIR``.'''

import argparse
import json
import os
import sys

from iogap.errors import IogapError


def parse(argv):
    parser = argparse.ArgumentParser(
        prog='python -m iogap.report',
        description='Draw the CUG\'17 study\'s plots from ReFrame run reports '
                    'and/or the results database into DIR/index.html.')
    parser.add_argument('reports', nargs='*', metavar='REPORT',
                        help='ReFrame JSON run report(s)')
    parser.add_argument('--db', metavar='PATH',
                        help='ReFrame results database (sqlite), e.g. '
                             'output/results.db: every session it holds')
    parser.add_argument('--study-example', action='store_true',
                        help="add a session of system 'cori' whose values are "
                             "the study's published figures (not a run)")
    parser.add_argument('-o', '--output', metavar='DIR', required=True,
                        help='directory for index.html, figures.json and the '
                             'figures')
    args = parser.parse_args(argv)
    if not (args.reports or args.db or args.study_example):
        parser.error('give a run report, --db PATH or --study-example')
    return args


def main(argv=None):
    args = parse(argv)
    try:
        import matplotlib   # noqa: F401
    except ImportError:
        sys.exit("iogap.report: drawing needs matplotlib: pip install "
                 "'iogap[report]' (or matplotlib>=3.7)")

    from iogap.report import load, page, sections, study
    try:
        reports = [study.example_report()] if args.study_example else []
        sessions, rows = load.load(args.reports, args.db, reports)
        if args.study_example:
            os.makedirs(args.output, exist_ok=True)
            with open(os.path.join(args.output, 'study-example-report.json'),
                      'w') as fp:
                json.dump(reports[0], fp, indent=1)
        manifest = sections.render(sessions, rows, args.output)
        path = page.write(manifest, args.output)
    except IogapError as err:
        print(f'iogap.report: {err}', file=sys.stderr)
        return 2
    except OSError as err:
        print(f'iogap.report: {err.filename or args.output}: {err.strerror}',
              file=sys.stderr)
        return 2

    count = sum(len(s['figures']) for s in manifest['sections'])
    print(f'iogap.report: wrote {path} ({count} figures)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
