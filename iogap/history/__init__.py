'''The nights' records: run reports, the results database, run guards.'''
