'''fio: several threads reading on one core.'''

#: Its modules define test families (see iogap.core.registry)
HOLDS_FAMILIES = True
