'''Stored sessions ReFrame 4.10 can read back: it reads a stored
``session_info`` up to its first ``}``, so a ``}`` in one of its strings
(``--report-file '...-{sessionid}.json'``) breaks every stored-session
command for good; the lossless mend writes such a ``}`` as ``\\u007d``.'''

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
    '''``blob`` with every ``}`` in its session info's strings escaped;
    ``None`` unless that makes it readable, its content unchanged.'''
    key = _KEY.search(blob)
    if key is None:
        return None
    try:
        info, end = json.JSONDecoder().raw_decode(blob, key.end())
    except ValueError:
        return None
    # a flat object: its last '}' is its own, every other one is quoted
    text = json.dumps(info)[:-1].replace('}', '\\u007d') + '}'
    new = blob[:key.end()] + text + blob[end:]
    try:
        same = json.loads(new) == json.loads(blob)
    except ValueError:
        return None
    return new if same and readable(new) else None
