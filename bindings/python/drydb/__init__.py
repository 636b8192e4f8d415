"""drydb: a read-only embedded key/value database (Python binding).

A thin pure-Python layer over ``libdrydb.so`` through ctypes::

    import drydb

    with drydb.Builder("shop.drydb") as b:
        items = b.table("items", key="int64", codec="json")
        items.index("by_category", key="string", func=lambda k, v: v["category"])
        items.add(1, {"name": "pen", "category": "office"})

    with drydb.open("shop.drydb") as db:
        items = db["items"]
        items[1]                       # {'name': 'pen', 'category': 'office'}
        items.get(2)                   # None
        list(items.range(0, 10))       # [(1, {...})]
        items.index("by_category").get_all("office")

Caveats (the library embeds a Go runtime):

* Do not use drydb in a child forked after the library was loaded: calls there
  raise :class:`ForkError` (``drydb.open`` itself succeeds there and the
  first use raises, so a fork Pool's initializer does not fail and respawn
  forever: its first task raises instead). Use
  ``multiprocessing.get_context("spawn")`` (or ``"forkserver"``).
* The library is loaded on first use and never unloaded.
* The first call from each new OS thread costs a few microseconds.
* Zero-copy views (``get(k, view=True)``) are released when the database
  closes; the file stays mapped while slices or exports of them live. They
  are the only reads of the mapped file itself: every other read is copied
  inside the library call, so a file truncated underneath gives
  ``CorruptError`` (reading a view of a lost page kills the process with
  SIGBUS).
"""

from ._errors import (BADHANDLE, BADKEY, CLOSED, CORRUPT, DUPLICATE, FILTER, FORKED,
                      INTERNAL, INVALID, IO, KEYTOOLARGE, NOINDEX, NOLIBRARY, NOMEM,
                      NOTABLE, NOTFOUND, OK, TOOLARGE, VERSION, BadHandleError,
                      BadKeyError, ClosedError, CorruptError, DuplicateKeyError, Error,
                      FilterError, ForkError, InternalError, InvalidError, IOFailure,
                      KeyTooLargeError, LibraryError, NoIndexError, NoMemoryError,
                      NoTableError, TooLargeError, VersionError)
from ._db import Cursor, Database, Index, Table, open, open_memory
from .builder import FORMATS, Builder, IndexBuilder, TableBuilder, convert
from .codecs import Codec, JsonCodec, MsgpackCodec, get_codec, register_codec
from .keys import (KEY_BYTES, KEY_COMPOSITE, KEY_FLOAT64, KEY_INT64, KEY_STRING,
                   KEY_UINT64, KEY_ULID, KEY_UUID, ULID)
from ._lib import library_path, library_version
from .shard import shard_slots, write_hash_manifest, write_range_manifest

__version__ = "0.1.0"


def set_memory_limit(limit: int) -> int:
    """Set the soft limit of the library's Go heap in bytes (a negative value
    only reads it); returns the previous limit."""
    from ctypes import byref, c_int64
    from . import _lib
    _lib.load()
    old = c_int64()
    _lib.check(_lib.set_memory_limit(c_int64(limit), byref(old)), "set_memory_limit")
    return old.value


def set_gc_percent(percent: int) -> int:
    """Set the Go garbage collector's target percentage (negative disables
    it); returns the previous value."""
    from ctypes import byref, c_int
    from . import _lib
    _lib.load()
    old = c_int()
    _lib.check(_lib.set_gc_percent(int(percent), byref(old)), "set_gc_percent")
    return old.value


# Not "open": `from drydb import *` must not shadow the built-in open().
# Use drydb.open (or drydb.open_memory, drydb.Database).
__all__ = [
    "open_memory", "Database", "Table", "Index", "Cursor",
    "Builder", "TableBuilder", "IndexBuilder", "ULID", "Codec", "JsonCodec",
    "convert", "FORMATS",
    "MsgpackCodec", "get_codec", "register_codec", "library_path", "library_version", "set_memory_limit",
    "set_gc_percent",
    "Error", "InvalidError", "ClosedError", "BadHandleError", "CorruptError", "VersionError",
    "KeyTooLargeError", "DuplicateKeyError", "BadKeyError", "IOFailure", "NoMemoryError",
    "NoTableError", "NoIndexError", "FilterError", "TooLargeError", "InternalError",
    "ForkError", "LibraryError",
    "OK", "NOTFOUND", "INVALID", "CLOSED", "BADHANDLE", "CORRUPT", "VERSION", "KEYTOOLARGE",
    "DUPLICATE", "BADKEY", "IO", "NOMEM", "NOTABLE", "NOINDEX", "FILTER", "TOOLARGE",
    "INTERNAL", "FORKED", "NOLIBRARY",
    "KEY_BYTES", "KEY_STRING", "KEY_INT64", "KEY_UINT64", "KEY_FLOAT64", "KEY_UUID",
    "KEY_ULID", "KEY_COMPOSITE",
]
