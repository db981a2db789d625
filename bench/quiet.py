'''The quiet bench: real ReFrame nights on a device throttled every night,
clean nights included, with noise of a set size; the nightly's own
change-point verdict judged on them (issue 50).

    python bench/quiet.py device --mount DIR          # zram0, ext4, mounted
    python bench/quiet.py curve --scratch S -o CSV    # cap-to-rate, once
    python bench/quiet.py nights --scratch S --curve CSV -o OUT \\
        --seed 50 --spread 0.04 [--rho 0] [--level 10 --within 3 --gap 30]
    python bench/quiet.py judge -o OUT|CSV [--compare]  # the tables
    python bench/quiet.py judge -o OUT --export CSV   # its nights, kept
    python bench/quiet.py device --unmount DIR

Run it with the project's Python (its reframe is the one beside it) as
root (cgroup v1 blkio). bench/quietnights.py plans and runs the nights,
bench/quietjudge.py judges them, bench/caprate.py measures the relation.
'''

import argparse
import dataclasses
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench import caprate, quietjudge, quietnights, zram  # noqa: E402
from bench.quietnights import Plan  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(prog='bench/quiet.py',
                                     description=__doc__.split('\n')[0])
    sub = parser.add_subparsers(dest='what', required=True)
    dev = sub.add_parser('device')
    dev.add_argument('--mount')
    dev.add_argument('--unmount')
    dev.add_argument('--size', default='8G')
    cur = sub.add_parser('curve')
    cur.add_argument('--scratch', required=True)
    cur.add_argument('-o', '--out', required=True, help='the CSV written')
    cur.add_argument('--caps', default='150,160,170,175,180,185,190,195,'
                     '200,210,220', help='MB/s')
    cur.add_argument('--reps', type=int, default=4)
    cur.add_argument('--mib', type=int, default=1100)
    cur.add_argument('--seed', type=int, default=50)
    cur.add_argument('--show', action='store_true',
                     help='the table of an existing CSV')
    nig = sub.add_parser('nights')
    nig.add_argument('--scratch', required=True)
    nig.add_argument('--curve', required=True,
                     help='the cap-to-rate CSV (curve)')
    nig.add_argument('-o', '--out', required=True)
    nig.add_argument('--until', type=int, help='stop before this night')
    for field in Plan.__dataclass_fields__.values():
        required = field.default is dataclasses.MISSING
        nig.add_argument(f'--{field.name}', type=field.type,
                         required=required,
                         default=None if required else field.default)
    jud = sub.add_parser('judge')
    jud.add_argument('-o', '--out', required=True, action='append',
                     help='a series: its directory or its CSV (repeat for '
                     'several)')
    jud.add_argument('--export', help='write the (one) series as a CSV')
    jud.add_argument('--nightly', action='store_true',
                     help='also each trial as the nightly judges its '
                     'results database on each slowed night')
    jud.add_argument('--compare', action='store_true',
                     help='also the library detectors (ruptures)')
    jud.add_argument('--figures', action='store_true',
                     help='also the night\'s other summaries of its '
                     'repetitions (max, min, mean, paired), by the first '
                     'rule')
    jud.add_argument('--rules', default='library',
                     help='rules to judge by, comma separated '
                     '(bench/quietjudge.py RULES)')
    args = parser.parse_args(argv)

    if args.what == 'device':
        if args.mount:
            print(zram.up(args.mount, args.size))
        if args.unmount:
            zram.down(args.unmount)
    elif args.what == 'curve':
        if args.show:
            print(caprate.table(caprate.Curve.load(args.out)))
            return
        curve = caprate.measure(args.scratch, [float(c) * 1e6 for c in
                                               args.caps.split(',')],
                                args.reps, args.mib, args.seed, args.out)
        print(caprate.table(curve))
    elif args.what == 'nights':
        plan = Plan(**{k: getattr(args, k) for k in
                       Plan.__dataclass_fields__})
        quietnights.run_series(os.path.abspath(args.out), plan,
                               quietnights.load_curve(args.curve),
                               os.path.abspath(args.scratch), args.until)
    else:
        if args.export:
            quietjudge.export(os.path.abspath(args.out[0]), args.export)
            return
        quietjudge.main(args)


if __name__ == '__main__':
    main()
