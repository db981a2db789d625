'''The morning page: one self-contained HTML page of a night and the nights
before it. matplotlib (the ``report`` extra) is imported only to draw.'''

import json
import os

from iogap.errors import IogapError
from iogap.history import load
from iogap.report import page, sections, study

__all__ = ['write_page']


def write_page(reports=(), db=None, output='.', study_example=False):
    '''Draw the page of run ``reports``, ``db`` and (``study_example``) the
    study's figures into ``output``; returns ``(path, figure count)``.'''
    try:
        import matplotlib  # noqa: F401 (only drawing needs it)
    except ImportError:
        raise IogapError("drawing needs matplotlib: pip install "
                         "'iogap[report]' (or matplotlib>=3.7)") from None
    examples = [study.example_report()] if study_example else []
    found, rows = load.load(reports, db, examples)
    os.makedirs(output, exist_ok=True)
    if study_example:
        with open(os.path.join(output, 'study-example-report.json'),
                  'w') as fp:
            json.dump(examples[0], fp, indent=1)
    manifest = sections.render(found, rows, output, db)
    return page.write(manifest, output), sum(
        len(s['figures']) for s in manifest['sections'])
