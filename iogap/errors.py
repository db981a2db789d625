'''Errors that reach the user as one line, never as a traceback.'''

from reframe.core.exceptions import ReframeError


class IogapError(ReframeError):
    '''A problem in the user's input: profile, references, sizes, scratch.'''


class ProfileError(IogapError):
    '''A system profile is unusable; the message names system, partition
    and key.'''


class ScratchError(IogapError):
    '''The scratch root cannot be used; the message says why and the fix.'''


class ReferenceFileError(IogapError):
    '''A reference file is malformed; the message names file, line, key and
    value.'''
