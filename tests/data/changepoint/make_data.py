'''Write nights-results.db, the change-point tests' history database, from
the results database of a real run of the detection benchmark's nights
(bench/detection.py nights -o DIR): its first clean nights, in the order
they ran; the other sessions are removed. Every
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

#: Clean nights kept (the first ones)
CLEAN = 8


def main(source):
    db = os.path.join(HERE, 'nights-results.db')
    shutil.copyfile(source, db)
    conn = sqlite3.connect(db)
    rows = conn.execute('SELECT uuid, json_blob FROM sessions ORDER BY '
                        'session_start_unix').fetchall()
    kept, clean = [], 0
    for uuid, blob in rows:
        info = json.loads(blob)['session_info']
        if str(info.get('slowdown')) == '0' and clean < CLEAN:
            kept.append(uuid)
            clean += 1
    marks = ','.join('?' * len(kept))
    conn.execute(f'DELETE FROM testcases WHERE session_uuid NOT IN ({marks})',
                 kept)
    conn.execute(f'DELETE FROM sessions WHERE uuid NOT IN ({marks})', kept)
    conn.commit()
    conn.execute('VACUUM')
    conn.close()
    print(f'{db}: {len(kept)} clean sessions')


if __name__ == '__main__':
    main(sys.argv[1])
