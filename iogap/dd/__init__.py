'''dd families: one stream in buffered, dsync and direct mode, and the
CPU-clock sweep of its writes.'''
