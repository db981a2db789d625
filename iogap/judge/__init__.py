'''Judgement: the reference store, the judgement checks and re-baselining.'''

from iogap.judge.skips import split_skips, unexpected_skips  # noqa: F401
