"""Exception classes named like tf.errors (TF1's OpError hierarchy)."""

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """A failure while running an op; carries the op, its NodeDef and an error code."""

    __module__ = "lens.errors"  # its public path (tf.errors.OpError)

    error_code = UNKNOWN

    def __init__(self, node_def, op, message, error_code=None):
        super().__init__(message)
        self._node_def = node_def
        self._op = op
        self._message = message
        if error_code is not None:
            self.error_code = error_code

    @property
    def message(self):
        """The error message."""
        return self._message

    @property
    def op(self):
        """The Operation that failed, or None."""
        return self._op

    @property
    def node_def(self):
        """The NodeDef of the failed op, or None."""
        return self._node_def

    def __str__(self):
        return self._message

    def __reduce__(self):
        return (type(self), (None, None, self._message))


def _make(name, code, doc):
    """Define an OpError subclass with a fixed error code."""
    def __init__(self, node_def, op, message, *args):
        OpError.__init__(self, node_def, op, message, code)
    # Shown as lens.errors.<Name> in tracebacks: the public path users catch it by (tf.errors).
    return type(name, (OpError,), {"__init__": __init__, "error_code": code, "__doc__": doc,
                                   "__module__": "lens.errors"})


CancelledError = _make("CancelledError", CANCELLED, "An operation was cancelled.")
UnknownError = _make("UnknownError", UNKNOWN, "An unknown error.")
InvalidArgumentError = _make("InvalidArgumentError", INVALID_ARGUMENT, "An op got an invalid argument.")
DeadlineExceededError = _make("DeadlineExceededError", DEADLINE_EXCEEDED, "A deadline expired.")
NotFoundError = _make("NotFoundError", NOT_FOUND, "A requested entity was not found.")
AlreadyExistsError = _make("AlreadyExistsError", ALREADY_EXISTS, "An entity already exists.")
PermissionDeniedError = _make("PermissionDeniedError", PERMISSION_DENIED, "Permission denied.")
UnauthenticatedError = _make("UnauthenticatedError", UNAUTHENTICATED, "No valid credentials.")
ResourceExhaustedError = _make("ResourceExhaustedError", RESOURCE_EXHAUSTED, "A resource ran out.")
FailedPreconditionError = _make("FailedPreconditionError", FAILED_PRECONDITION,
                                "The system is not in a state to run the op (e.g. uninitialized variable).")
AbortedError = _make("AbortedError", ABORTED, "The operation was aborted.")
OutOfRangeError = _make("OutOfRangeError", OUT_OF_RANGE, "Iterated past the valid range (end of input).")
UnimplementedError = _make("UnimplementedError", UNIMPLEMENTED, "The operation is not implemented.")
InternalError = _make("InternalError", INTERNAL, "An internal invariant was broken.")
UnavailableError = _make("UnavailableError", UNAVAILABLE, "The runtime is unavailable.")
DataLossError = _make("DataLossError", DATA_LOSS, "Unrecoverable data loss or corruption.")

_CODE_TO_CLASS = {cls.error_code: cls for cls in (
    CancelledError, UnknownError, InvalidArgumentError, DeadlineExceededError, NotFoundError,
    AlreadyExistsError, PermissionDeniedError, UnauthenticatedError, ResourceExhaustedError,
    FailedPreconditionError, AbortedError, OutOfRangeError, UnimplementedError, InternalError,
    UnavailableError, DataLossError)}


def exception_type_from_error_code(error_code):
    """The OpError subclass for a numeric error code."""
    return _CODE_TO_CLASS[error_code]


def error_code_from_exception_type(cls):
    """The numeric error code of an OpError subclass."""
    return cls.error_code
