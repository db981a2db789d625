'''Stored sessions ReFrame 4.10 can read back.

ReFrame stores each session as one JSON blob, but reads a session's
``session_info`` back with a regular expression that ends at the first
``}`` (``reporting/storage.py``, ``_fetch_sessions``: ``\\{.*?\\}``), not
at the object's end. A ``}`` in any of its strings (a command line with
``--report-file '...-{sessionid}.json'``, a ``-n`` pattern ``x{2}``, a
session extra) cuts the object inside a string, and every stored-session
command of that database fails (``--list-stored-sessions``,
``--describe-stored-session``, ``--performance-compare``: "Expecting ','
delimiter"), for good.

The mend is lossless: such a ``}`` is written as the JSON escape
``\\u007d``, which decodes to the same string, so ReFrame's expression
finds the object's own end. Nothing else of the session changes.
'''

import json
import re

#: ReFrame 4.10's expression for a stored session's info (storage.py)
REFRAME_INFO = re.compile(r'\"session_info\":\s+(?P<sess_info>\{.*?\})')

#: What precedes the info object in a blob
_KEY = re.compile(r'\"session_info\":\s+')

#: Bytes of a blob read to find its info (ReFrame writes it first)
HEAD = 1 << 16


def readable(blob):
    '''Whether ReFrame reads the session info of ``blob`` back whole.'''
    found = REFRAME_INFO.search(blob)
    if found is None:
        return False
    try:
        json.loads(found.group('sess_info'))
    except ValueError:
        return False
    return True


def mended(blob):
    '''``blob`` with every ``}`` inside its session info's strings
    escaped; ``None`` when that does not make it readable unchanged.'''
    key = _KEY.search(blob)
    if key is None:
        return None
    try:
        info, end = json.JSONDecoder().raw_decode(blob, key.end())
    except ValueError:
        return None
    # A flat object: its last '}' is its own, every other one is quoted
    text = json.dumps(info)
    text = text[:-1].replace('}', '\\u007d') + '}'
    new = blob[:key.end()] + text + blob[end:]
    try:
        same = json.loads(new) == json.loads(blob)
    except ValueError:
        return None
    return new if same and readable(new) else None
