'''fio: several threads reading on one core.'''
