"""Exception classes of drydb, one per status code of the C library."""

from __future__ import annotations

from typing import Dict, Optional, Type

__all__ = [
    "Error", "InvalidError", "ClosedError", "BadHandleError", "CorruptError",
    "VersionError", "KeyTooLargeError", "DuplicateKeyError", "BadKeyError",
    "IOFailure", "NoMemoryError", "NoTableError", "NoIndexError", "FilterError",
    "TooLargeError", "InternalError", "ForkError", "LibraryError",
]

# Status codes (include/drydb.h).
OK = 0
NOTFOUND = 1
INVALID = 2
CLOSED = 3
BADHANDLE = 4
CORRUPT = 5
VERSION = 6
KEYTOOLARGE = 7
DUPLICATE = 8
BADKEY = 9
IO = 10
NOMEM = 11
NOTABLE = 12
NOINDEX = 13
FILTER = 14
TOOLARGE = 15
INTERNAL = 16
#: Not a library status: the process was forked after the library started.
FORKED = -1
#: Not a library status: the library could not be found or has the wrong version.
NOLIBRARY = -2


class Error(Exception):
    """Base class of every error drydb raises.

    ``code`` is the C library's status code (``drydb.CORRUPT``, ...), or a
    negative value for conditions detected by the binding itself
    (``drydb.FORKED``, ``drydb.NOLIBRARY``). ``str(err)`` is the detail
    message (``drydb_errmsg()``), which starts with ``drydb:``.
    """

    default_code: int = INTERNAL

    def __init__(self, message: str, code: Optional[int] = None) -> None:
        if code is None:
            code = self.default_code
        super().__init__(message, code)
        self.code: int = code
        self.message: str = message

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return "%s(%r, code=%d)" % (type(self).__name__, self.message, self.code)


class InvalidError(Error, ValueError):
    """DRYDB_INVALID: an argument the library refused (bad option, absurd length)."""
    default_code = INVALID


class ClosedError(Error):
    """DRYDB_CLOSED: the database, cursor or builder was closed."""
    default_code = CLOSED


class BadHandleError(Error):
    """DRYDB_BADHANDLE: a handle of the wrong kind (a binding bug if ever seen)."""
    default_code = BADHANDLE


class CorruptError(Error):
    """DRYDB_CORRUPT: a checksum or structure check failed; the file is damaged
    or was changed underneath an open database."""
    default_code = CORRUPT


class VersionError(Error):
    """DRYDB_VERSION: the file's format version is not supported by this library."""
    default_code = VERSION


class KeyTooLargeError(Error, ValueError):
    """DRYDB_KEYTOOLARGE: the key is longer than the page size allows."""
    default_code = KEYTOOLARGE


class DuplicateKeyError(Error):
    """DRYDB_DUPLICATE: a builder was given the same key twice (table or
    unique index); raised when the build runs."""
    default_code = DUPLICATE


class BadKeyError(Error, ValueError):
    """DRYDB_BADKEY: the key does not fit the table's key kind."""
    default_code = BADKEY


class IOFailure(Error, OSError):
    """DRYDB_IO: an operating-system error (open, read, write, mmap)."""
    default_code = IO

    def __init__(self, message: str, code: Optional[int] = None) -> None:
        Error.__init__(self, message, code)

    def __str__(self) -> str:
        return self.message


class NoMemoryError(Error, MemoryError):
    """DRYDB_NOMEM: out of memory."""
    default_code = NOMEM


class NoTableError(Error, KeyError):
    """DRYDB_NOTABLE: no table of that name (also a ``KeyError``, so ``db[name]``
    behaves like a mapping)."""
    default_code = NOTABLE

    def __str__(self) -> str:  # KeyError would repr() the args
        return self.message


class NoIndexError(Error, KeyError):
    """DRYDB_NOINDEX: no index of that name (also a ``KeyError``)."""
    default_code = NOINDEX

    def __str__(self) -> str:
        return self.message


class FilterError(Error):
    """DRYDB_FILTER: the file uses a page filter this library does not have."""
    default_code = FILTER


class TooLargeError(Error, ValueError):
    """DRYDB_TOOLARGE: a value or the file exceeds a format limit."""
    default_code = TOOLARGE


class InternalError(Error):
    """DRYDB_INTERNAL: an internal error in the library (a recovered panic)."""
    default_code = INTERNAL


class ForkError(Error):
    """The process was forked after the library started: the Go runtime inside
    it cannot run in the child. Use multiprocessing's "spawn" or "forkserver"
    start method, or open databases only in the children."""
    default_code = FORKED


class LibraryError(Error, ImportError):
    """libdrydb could not be found or loaded, or has an incompatible version."""
    default_code = NOLIBRARY


_BY_CODE: Dict[int, Type[Error]] = {
    INVALID: InvalidError, CLOSED: ClosedError, BADHANDLE: BadHandleError,
    CORRUPT: CorruptError, VERSION: VersionError, KEYTOOLARGE: KeyTooLargeError,
    DUPLICATE: DuplicateKeyError, BADKEY: BadKeyError, IO: IOFailure,
    NOMEM: NoMemoryError, NOTABLE: NoTableError, NOINDEX: NoIndexError,
    FILTER: FilterError, TOOLARGE: TooLargeError, INTERNAL: InternalError,
    FORKED: ForkError, NOLIBRARY: LibraryError,
}


def error_class(code: int) -> Type[Error]:
    """The exception class raised for a status code."""
    return _BY_CODE.get(code, Error)
