'''The study's plots from ReFrame run reports and the results database.

    python -m iogap.report output/reports/run-report-*.json -o report/
    python -m iogap.report --db output/results.db -o report/
    python -m iogap.report --study-example -o study/

:mod:`~iogap.report.load` turns reports and database sessions into one flat
table of figures, each family package's ``report`` module draws its own
section (found by :mod:`~iogap.report.family`), the ``plot_*`` modules draw
the page's own sections and :mod:`~iogap.report.page` writes
``index.html`` with a ``figures.json`` manifest. matplotlib (the ``report``
extra) is imported only when drawing: the registry imports every module of
the family packages, their ``report`` modules too, when a run loads.
'''
