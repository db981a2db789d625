'''Errors that reach the user as one line, never a traceback, and the exit
statuses every command keeps.'''

from reframe.core.exceptions import ReframeError

#: The exit statuses of every ``iogap`` command (and ``setup.sh``)
EXIT = {'ok': 0, 'red': 1, 'usage': 2, 'unjudged': 3, 'input': 4,
        'unreachable': 5}


class IogapError(ReframeError):
    '''A problem in the user's input: profile, references, sizes, scratch.'''


class Located:
    '''An error in a file a user writes: ``path:line: message``.'''

    def __init__(self, message, path=None, line=None, key=None):
        self.bare, self.path, self.line, self.key = message, path, line, key
        where = ':'.join(str(w) for w in (path, line) if w)
        super().__init__(f'{where}: {message}' if where else message)

    def at(self, path, line):
        '''This error, placed in ``path`` at ``line``.'''
        return type(self)(self.bare, path, line, self.key)


class ProfileError(Located, IogapError):
    '''A system profile is unusable: system, partition, key, file, line.'''


class ScratchError(IogapError):
    '''The scratch root cannot be used; the message says why and the fix.'''


class ReferenceFileError(Located, IogapError):
    '''A reference file is malformed: file, line, key and value.'''


class Unreachable(IogapError):
    '''A source the command needs cannot be reached; the rest still runs.'''
