'''Write the trimmed copies of captured ReFrame run reports and results DB
that tests/test_report.py reads (see SOURCES.md).

    python tests/data/report/make_data.py /tmp/artifacts

Every figure is kept as ReFrame wrote it; only fields the report does not
read (job and build output, commands, paths, timings) are dropped.
'''

import json
import os
import re
import shutil
import sqlite3
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

#: Test-case fields iogap.report reads, besides the case's parameters
KEEP = ('name', 'display_name', 'unique_name', 'system', 'partition',
        'environ', 'result', 'fixture', 'fail_phase', 'fail_reason',
        'perfvalues', 'method', 'job_completion_time_unix', 'uuid',
        'session_uuid', 'run_index',
        # what ReFrame's --performance-compare and --performance-report read
        'job_nodelist', 'filename', 'time_total')


def trim_case(tc):
    params = re.findall(r'%(\w+)=', tc['display_name'])
    return {k: tc[k] for k in (*KEEP, *params) if k in tc}


def trim(report):
    runs = [{**{k: v for k, v in run.items() if k != 'testcases'},
             'testcases': [trim_case(tc) for tc in run['testcases']]}
            for run in report['runs']]
    return {'session_info': report['session_info'], 'runs': runs,
            'restored_cases': report.get('restored_cases', [])}


def main(artifacts):
    # Each file is rewritten from its capture, where the capture is given
    for name in ('generic-run-report.json', 'localpair-run-report.json'):
        if not os.path.exists(os.path.join(artifacts, name)):
            continue
        with open(os.path.join(artifacts, name)) as fp:
            report = trim(json.load(fp))
        with open(os.path.join(HERE, name), 'w') as fp:
            json.dump(report, fp, indent=0, separators=(',', ':'))

    db = os.path.join(HERE, 'generic-results.db')
    if not os.path.exists(os.path.join(artifacts, 'generic-results.db')):
        return
    shutil.copyfile(os.path.join(artifacts, 'generic-results.db'), db)
    with sqlite3.connect(db) as conn:
        rows = conn.execute('SELECT uuid, json_blob FROM sessions').fetchall()
        for uuid, blob in rows:
            # ReFrame's own separators: it finds session_info by a pattern
            # that expects them (--list-stored-sessions)
            blob = json.dumps(trim(json.loads(blob)))
            conn.execute('UPDATE sessions SET json_blob = ? WHERE uuid = ?',
                         (blob, uuid))
    conn = sqlite3.connect(db)
    conn.execute('VACUUM')
    conn.close()


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else '/tmp/artifacts')
