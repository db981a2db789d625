'''What a night costs, and a night that fits a budget (``iogap plan``):
the profile's cases, their cost, canaries and a rotation.'''
