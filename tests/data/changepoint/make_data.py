'''Write nights-results.db, the change-point tests' history database, from
the results database of a real run of the detection benchmark's nights
(bench/detection.py nights -o DIR): the clean nights and the 25 % slowed
nights, in the order they ran; the other sessions are removed. Every
session is kept exactly as ReFrame stored it, so ReFrame's own tools read
the copy as they read the original.

    python tests/data/changepoint/make_data.py DIR/results.db
'''

import json
import os
import shutil
import sqlite3
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

#: Sessions kept, by the slowdown (%) their night ran with
KEEP = ('0', '25')

#: Clean nights kept (the first ones; every 25 % night is kept)
CLEAN = 12


def main(source):
    db = os.path.join(HERE, 'nights-results.db')
    shutil.copyfile(source, db)
    conn = sqlite3.connect(db)
    rows = conn.execute('SELECT uuid, json_blob FROM sessions ORDER BY '
                        'session_start_unix').fetchall()
    kept, clean = [], 0
    for uuid, blob in rows:
        info = json.loads(blob)['session_info']
        level = str(info.get('slowdown'))
        if level == '0' and clean < CLEAN or level in KEEP[1:]:
            kept.append(uuid)
            clean += level == '0'
    marks = ','.join('?' * len(kept))
    conn.execute(f'DELETE FROM testcases WHERE session_uuid NOT IN ({marks})',
                 kept)
    conn.execute(f'DELETE FROM sessions WHERE uuid NOT IN ({marks})', kept)
    conn.commit()
    conn.execute('VACUUM')
    conn.close()
    print(f'{db}: {len(kept)} sessions ({clean} clean)')


if __name__ == '__main__':
    main(sys.argv[1])
