'''Judgement: the reference store, the judgement checks and re-baselining.'''
