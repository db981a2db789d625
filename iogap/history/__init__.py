'''TODO'''
