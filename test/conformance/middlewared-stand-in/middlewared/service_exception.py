"""A stand-in, written for stor's tests, for the appliance's `middlewared.service_exception`.

With py_exceptions on, the official client rebuilds the appliance's exception with a plain
`pickle.loads` (truenas_api_client/__init__.py:595-603 at TS-25.10.1), which imports the class by
its module path: the module must exist where the client runs, as it does on the appliance. This
one has the classes the emulator pickles, under the same names, bases and constructor signatures
as 25.10.1's (MW/service_exception.py:11-100), because unpickling an exception calls
`cls(*args)` and then restores `__dict__`: a signature that differs would fail here as it would
on a real client. Nothing else of the real module (its helpers, its __str__ wording) is
reproduced, and the tests assert only what the pickle carries: class, attributes, arguments.
"""
import errno as _errno

from truenas_api_client import ErrnoMixin


class CallException(ErrnoMixin, Exception):
    pass


class CallError(CallException):
    def __init__(self, errmsg, errno=_errno.EFAULT, extra=None):
        self.errmsg, self.errno, self.extra = errmsg, errno, extra


class ValidationError(CallException):
    def __init__(self, attribute, errmsg, errno=_errno.EINVAL):
        self.attribute, self.errmsg, self.errno = attribute, errmsg, errno


class ValidationErrors(CallException):
    def __init__(self, errors=None):
        self.errors = errors or []
        super().__init__(self.errors)


class InstanceNotFound(ValidationError):
    def __init__(self, errmsg):
        super().__init__(None, errmsg, _errno.ENOENT)


class MatchNotFound(IndexError):
    pass
