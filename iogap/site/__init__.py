'''The system a run is on: its profile, its host and its tool stack.'''
