"""Loading libdrydb and the ctypes declarations of its functions.

The library is loaded lazily, on the first call that needs it (``open``,
``Builder``, ``library_version``), and never unloaded (it embeds a Go runtime,
which cannot be). Lookup order:

1. the ``DRYDB_LIBRARY`` environment variable (a path to the ``.so``);
2. ``libdrydb.so`` inside this package (shipped by ``pip install``);
3. the system (``ctypes.util.find_library("drydb")``, then ``libdrydb.so.0``).

Two handles to the same library are kept: a ``PyDLL`` (the GIL stays held)
for the short calls, whose cost is dominated by ctypes itself, and a ``CDLL``
(the GIL is released) for the long ones: open, close, verify, builds.

After loading, the functions are module attributes named after the C
functions without their ``drydb_`` prefix (``_lib.get`` is ``drydb_get``).
In a child forked after loading they are replaced by stubs that raise
:class:`drydb.ForkError`, so the hot paths carry no extra check.

Calls pass handles as prebuilt ``c_void_p`` objects (handles are 64-bit) and
lengths as ``c_size_t`` objects, except in the first six argument positions
of hot functions, where a plain ``int`` is passed: ctypes converts it to a C
``int`` and libffi widens it with sign extension on every 64-bit target, so a
non-negative length below 2**31 (checked before) arrives intact as a
``size_t``.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
import sysconfig
import threading
import uuid
from ctypes import (Structure, byref, c_char, c_char_p, c_int, c_int32, c_int64,
                    c_uint8, c_uint32, c_uint64)
from typing import Any, List, Optional, Tuple

from ._errors import FORKED, ForkError, LibraryError, error_class

#: The major version of the C ABI this binding was written for, and the
#: lowest minor version it needs.
ABI_MAJOR = 0
ABI_MINOR_MIN = 1

_lock = threading.Lock()
_loaded = False
_path: Optional[str] = None
_pid = 0
_version = (0, 0, 0)

# Every byte of the address space as one ctypes char array: slicing it
# (``MEM[p:p + n]``) copies n bytes at address p into a new ``bytes`` with no
# foreign call. It is only ever sliced at (pointer, length) pairs the library
# just returned.
_Window = c_char * (1 << 62)
MEM: Any = _Window.from_address(0)


class DbInfo(Structure):
    """struct drydb_db_info."""
    _fields_ = [("format_version", c_uint32), ("page_size", c_uint32),
                ("file_size", c_int64), ("created_unix_ns", c_int64),
                ("build_id", c_uint8 * 16), ("table_count", c_uint64),
                ("map_addr", c_uint64), ("map_len", c_uint64), ("reserved", c_uint64 * 2)]


class TableInfo(Structure):
    """struct drydb_table_info."""
    _fields_ = [("key_kind", c_int32), ("nparts", c_uint32), ("parts", c_uint8 * 16),
                ("rows", c_uint64), ("index_count", c_uint32), ("compression", c_int32),
                ("level", c_int32), ("flags", c_uint32), ("reserved", c_uint64 * 4)]


class IndexInfo(Structure):
    """struct drydb_index_info."""
    _fields_ = [("key_kind", c_int32), ("nparts", c_uint32), ("parts", c_uint8 * 16),
                ("entries", c_uint64), ("unique", c_uint32), ("reserved0", c_uint32),
                ("reserved", c_uint64 * 4)]


class CacheStats(Structure):
    """struct drydb_cache_stats."""
    _fields_ = [("hits", c_uint64), ("misses", c_uint64), ("evictions", c_uint64),
                ("bytes", c_uint64), ("reserved", c_uint64 * 4)]


assert ctypes.sizeof(DbInfo) == 80 and ctypes.sizeof(TableInfo) == 80
assert ctypes.sizeof(IndexInfo) == 72 and ctypes.sizeof(CacheStats) == 64

# Functions called through the CDLL handle (GIL released): long calls.
_LONG = {"open", "open_memory", "close", "verify", "builder_build_file",
         "builder_build_memory", "builder_append_many", "builder_index_add_many",
         "builder_free"}
_RESTYPES = {"version": None, "version_string": c_char_p, "strerror": c_char_p,
             "errmsg": c_char_p, "free": None, "_get_word": c_uint64,
             "_get_word_i64": c_uint64, "_get_word_u64": c_uint64, "_count_word": c_uint64,
             "_count_word_i64": c_uint64, "_count_word_u64": c_uint64,
             "_py_get": ctypes.py_object, "_py_range": ctypes.py_object,
             "_py_fn": ctypes.py_object, "_py_init_uuid": ctypes.py_object}
_NAMES = [
    "version", "version_string", "strerror", "errmsg",
    "open", "open_memory", "close", "verify", "info", "meta_get", "table_count",
    "table_name", "cache_stats", "table_open", "table_info", "table_index_name", "get", "get_many",
    "count", "range", "rank", "at", "cursor_open", "cursor_open_prefix", "cursor_first",
    "cursor_last", "cursor_next", "cursor_prev", "cursor_seek", "cursor_seek_exact",
    "cursor_seek_row", "cursor_get", "cursor_primary_key", "cursor_next_batch",
    "cursor_close", "index_open", "index_info", "index_get", "index_count",
    "index_cursor_open", "index_cursor_open_prefix", "index_cursor_next_batch",
    "builder_new", "builder_set_meta", "builder_table", "builder_index",
    "builder_append", "builder_append_many", "builder_index_add",
    "builder_index_add_many", "builder_build_file", "builder_build_memory",
    "builder_free", "free", "set_memory_limit", "set_gc_percent",
    "builder_table_codec", "table_codec", "meta_key",
    # the bindings' calls (capi/drydb_bindings.h): one-word answers, and the
    # copy-out reads (drydb/_copy.py) that every read but a view goes through
    "_get_word", "_get_word_i64", "_get_word_u64", "_count_word", "_count_word_i64",
    "_count_word_u64", "_py_init", "_py_get", "_py_init_rows", "_py_range",
    "_py_init_fn", "_py_fn", "_py_fn_kill", "_py_init_uuid",
    "_copy_get", "_copy_get_many", "_copy_range", "_copy_at", "_copy_index_get",
    "_copy_cursor_get", "_copy_cursor_batch", "_copy_meta", "_copy_table_name",
    "_copy_index_name",
]

# Live data (Database.refresh): a refresh opens a file, so the GIL is released.
_NAMES += ["refresh", "refresh_every", "db_version"]
_LONG |= {"refresh"}


class _PyFunc(ctypes._CFuncPtr):  # type: ignore[name-defined]
    """A function of the library called with the GIL held (as through
    ``PyDLL``) whose class declares no ``_restype_``: ctypes then reads the C
    ``int`` result directly instead of going through the ``c_int`` type's
    converter, ~10 ns less per call than a ``PyDLL`` attribute. Used for the
    short calls that return a status."""

    _flags_ = ctypes._FUNCFLAG_CDECL | ctypes._FUNCFLAG_PYTHONAPI  # type: ignore[attr-defined]


# Populated by load(); declared for type checkers.
refresh: Any
refresh_every: Any
db_version: Any
version: Any
version_string: Any
strerror: Any
errmsg: Any
open: Any
open_memory: Any
close: Any
verify: Any
info: Any
meta_get: Any
table_count: Any
table_name: Any
cache_stats: Any
table_open: Any
table_info: Any
table_index_name: Any
get: Any
get_many: Any
count: Any
range: Any  # drydb_range (shadows the builtin inside this module, which never uses it)
rank: Any
at: Any
cursor_open: Any
cursor_open_prefix: Any
cursor_first: Any
cursor_last: Any
cursor_next: Any
cursor_prev: Any
cursor_seek: Any
cursor_seek_exact: Any
cursor_seek_row: Any
cursor_get: Any
cursor_primary_key: Any
cursor_next_batch: Any
cursor_close: Any
index_open: Any
index_info: Any
index_get: Any
index_count: Any
index_cursor_open: Any
index_cursor_open_prefix: Any
index_cursor_next_batch: Any
builder_new: Any
builder_set_meta: Any
builder_table_codec: Any
table_codec: Any
meta_key: Any
builder_table: Any
builder_index: Any
builder_append: Any
builder_append_many: Any
builder_index_add: Any
builder_index_add_many: Any
builder_build_file: Any
builder_build_memory: Any
builder_free: Any
free: Any
set_memory_limit: Any
set_gc_percent: Any
_get_word: Any
_get_word_i64: Any
_get_word_u64: Any
_count_word: Any
_count_word_i64: Any
_count_word_u64: Any
_copy_get: Any
_copy_get_many: Any
_copy_range: Any
_copy_at: Any
_copy_index_get: Any
_copy_cursor_get: Any
_copy_cursor_batch: Any
_copy_meta: Any
_copy_table_name: Any
_copy_index_name: Any
_py_init: Any
_py_get: Any
_py_init_rows: Any
_py_range: Any
_py_init_fn: Any
_py_fn: Any
_py_fn_kill: Any
_py_init_uuid: Any

#: Whether get and [] of tables are builtin functions of the library
#: (drydb__py_fn, see _fast.py); set at load.
FN = False

#: Whether drydb__py_range makes uuid.UUID keys itself (drydb__py_init_uuid);
#: set at load.
UUID = False

#: What drydb__py_get* return besides bytes (capi/fast.c): the key is absent;
#: ask drydb_get (an error, or an answer that is not bytes).
PY_MISSING = object()
PY_ASK = object()


# The docs of the builtin get and [] (drydb__py_fn): a text signature line,
# then Table.get's own doc (set by _db.py); kept alive with the module.
_FN_DOCS: List[bytes] = []


def _fn_layout_ok() -> bool:
    """Whether objects are laid out as drydb__py_fn reads them: CPython with
    the GIL and a plain object header (the type at word 1, a tuple's items
    from word 3), with every function it calls exported. Anything else
    (PyPy, a free-threaded or Py_TRACE_REFS build, CPython 3.8, whose
    PyObject_Vectorcall is inline) keeps the ctypes closures."""
    if sys.implementation.name != "cpython" or sysconfig.get_config_var("Py_GIL_DISABLED"):
        return False
    if os.environ.get("DRYDB_PY_BUILTIN", "1") == "0":
        return False
    try:
        api = ctypes.pythonapi
        for name in _FN_API:
            getattr(api, name)
    except (AttributeError, ValueError):
        return False
    word = ctypes.sizeof(ctypes.c_void_p)
    probe = ("drydb", b"", 1)
    return all(ctypes.c_void_p.from_address(id(o) + word).value == id(type(o)) for o in probe + (probe,)) \
        and all(ctypes.c_void_p.from_address(id(probe) + (3 + i) * word).value == id(o)
                for i, o in enumerate(probe))


_FN_API = ("PyCFunction_NewEx", "PyCapsule_New", "PyCapsule_GetPointer", "PyUnicode_AsUTF8AndSize",
           "PyBytes_AsStringAndSize", "PyLong_AsLongLongAndOverflow", "PyObject_Vectorcall", "PyErr_Clear")


def _init_fn(init: Any) -> None:
    """Hands drydb__py_init_fn CPython's functions, types and docs when the
    layout allows (FN says whether it did)."""
    global FN
    if not _fn_layout_ok():
        return
    api = ctypes.pythonapi
    addrs = [ctypes.cast(getattr(api, n), ctypes.c_void_p).value for n in _FN_API]
    addrs += [id(str), id(bytes), id(int), id(False)]
    arr = (ctypes.c_void_p * len(addrs))(*addrs)
    from ._db import Table  # loaded at the first open, after the package
    _FN_DOCS[:] = [b"get($self, key, default=None, view=False)\n--\n\n" + (Table.get.__doc__ or "").encode(),
                   b"__getitem__($self, key, /)\n--\n\nThe value of key; KeyError if absent."]
    FN = init(arr, ctypes.c_size_t(len(addrs)), ctypes.c_char_p(_FN_DOCS[0]), ctypes.c_char_p(_FN_DOCS[1])) == 0


def _uuid_slots() -> Optional[Tuple[int, int]]:
    """The byte offsets of uuid.UUID's int and is_safe slots, found in a
    UUID made by uuid.UUID itself, or None where a UUID is not the plain
    object of a class with those two slots (and a weak reference's) that
    drydb__py_init_uuid makes."""
    U = uuid.UUID
    if type(U) is not type or U.__new__ is not object.__new__ or U.__dictoffset__ != 0 \
            or set(U.__dict__.get("__slots__", ())) != {"int", "is_safe", "__weakref__"}:
        return None
    word = ctypes.sizeof(ctypes.c_void_p)
    probe = U(int=0x0123456789ABCDEF0123456789ABCDEF)
    words = list((ctypes.c_void_p * (U.__basicsize__ // word)).from_address(id(probe)))
    offs = [o * word for o, v in enumerate(words) if o >= 2 and v == id(probe.int)]
    safe = [o * word for o, v in enumerate(words) if o >= 2 and v == id(probe.is_safe)]
    if len(offs) != 1 or len(safe) != 1 or U.__weakrefoffset__ in (offs[0], safe[0]):
        return None
    return offs[0], safe[0]


def _init_uuid(init: Any) -> None:
    """Hands drydb__py_init_uuid what it makes and reads UUIDs with, where
    the builtins are on (FN: objects laid out as it expects), uuid.UUID has
    its slots where _uuid_slots finds them and CPython exports
    _PyLong_FromByteArray and _PyLong_AsByteArray; UUID says whether its
    probe matched uuid.UUID(bytes=). Elsewhere UUID keys are made in Python
    and a UUID table's get takes uuid.UUID keys through the closure."""
    global UUID
    api = ctypes.pythonapi
    try:
        fns = [ctypes.cast(f, ctypes.c_void_p).value
               for f in (api.PyType_GenericAlloc, api._PyLong_FromByteArray, api._PyLong_AsByteArray)]
    except AttributeError:
        return
    slots = _uuid_slots() if FN else None
    if slots is None:
        return
    arr = (ctypes.c_void_p * 5)(fns[0], fns[1], id(uuid.UUID), id(uuid.SafeUUID.unknown), fns[2])
    probe = bytes.fromhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")  # (range is drydb_range here)
    # _PyLong_AsByteArray took a sixth argument (with_exceptions) in 3.13
    args = 6 if sys.version_info >= (3, 13) else 5
    try:
        u = init(arr, ctypes.c_size_t(5), ctypes.c_size_t(slots[0]), ctypes.c_size_t(slots[1]), args, probe)
    except Exception:  # noqa: BLE001 - the probe could not be made (MemoryError): keys decoded in Python
        return
    want = uuid.UUID(bytes=probe)
    UUID = type(u) is uuid.UUID and u == want and u.int == want.int and u.is_safe is uuid.SafeUUID.unknown \
        and str(u) == str(want) and hash(u) == hash(want)


def _candidates() -> List[str]:
    env = os.environ.get("DRYDB_LIBRARY")
    if env:
        return [env]  # an explicit override is never second-guessed
    out = []
    # the file name setup.py gives the library inside a wheel of this platform
    name = {"win32": "drydb.dll", "darwin": "libdrydb.dylib"}.get(sys.platform, "libdrydb.so")
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
    if os.path.exists(here):
        out.append(here)
    found = ctypes.util.find_library("drydb")
    if found:
        out.append(found)
    out.append("libdrydb.so.0")
    return out


def load() -> None:
    """Load the library if it is not loaded yet (idempotent, thread-safe).

    Raises :class:`drydb.LibraryError` if no usable library is found, or
    :class:`drydb.ForkError` in a child forked after the library was loaded.
    """
    global _loaded, _path, _pid, _version
    if _loaded:
        if _pid != os.getpid():
            _forked()
        return
    with _lock:
        if _loaded:
            return
        errors = []
        for cand in _candidates():
            try:
                # RTLD_NODELETE is set by the library itself; RTLD_GLOBAL not needed.
                pydll = ctypes.PyDLL(cand)
                cdll = ctypes.CDLL(cand)
            except OSError as e:
                errors.append("%s: %s" % (cand, e))
                continue
            try:
                pydll.drydb_version
            except AttributeError:
                errors.append("%s: not libdrydb (no drydb_version)" % cand)
                continue
            major, minor, patch = c_int(), c_int(), c_int()
            pydll.drydb_version.restype = None
            pydll.drydb_version(byref(major), byref(minor), byref(patch))
            v = (major.value, minor.value, patch.value)
            if v[0] != ABI_MAJOR or v[1] < ABI_MINOR_MIN:
                errors.append("%s: version %d.%d.%d, this binding needs %d.%d or a later %d.x"
                              % (cand, v[0], v[1], v[2], ABI_MAJOR, ABI_MINOR_MIN, ABI_MAJOR))
                continue
            g = globals()
            for name in _NAMES:
                lib = cdll if name in _LONG else pydll
                try:
                    f = getattr(lib, "drydb_" + name)
                except AttributeError:
                    raise LibraryError("drydb: %s lacks drydb_%s (library too old?)"
                                       % (cand, name)) from None
                if lib is pydll and name not in _RESTYPES:
                    f = _PyFunc(("drydb_" + name, pydll))  # returns a C int
                else:
                    f.restype = _RESTYPES.get(name, c_int)
                g[name] = f
            # drydb__py_get* make the value's bytes object in C, through
            # CPython's own functions (their addresses, given once here)
            api = ctypes.pythonapi
            rc = g["_py_init"](ctypes.c_void_p(ctypes.cast(api.PyBytes_FromStringAndSize, ctypes.c_void_p).value),
                               ctypes.c_void_p(ctypes.cast(api.Py_IncRef, ctypes.c_void_p).value),
                               ctypes.py_object(PY_MISSING), ctypes.py_object(PY_ASK))
            if rc:
                raise LibraryError("drydb: %s: drydb__py_init failed (%d)" % (cand, rc))
            # and the functions drydb__py_range makes a scan's rows with
            fns = [api.PyList_New, api.PyList_SetItem, api.PyTuple_New, api.PyTuple_SetItem,
                   api.PyUnicode_DecodeUTF8, api.PyLong_FromLongLong, api.PyLong_FromUnsignedLongLong,
                   api.Py_DecRef]
            arr = (ctypes.c_void_p * len(fns))(*[ctypes.cast(f, ctypes.c_void_p).value for f in fns])
            rc = g["_py_init_rows"](arr, ctypes.c_size_t(len(fns)), ctypes.py_object(None))
            if rc:
                raise LibraryError("drydb: %s: drydb__py_init_rows failed (%d)" % (cand, rc))
            _init_fn(g["_py_init_fn"])
            _init_uuid(g["_py_init_uuid"])
            _path, _version, _pid = cand, v, os.getpid()
            if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
                os.register_at_fork(after_in_child=_poison)
            _loaded = True
            return
        raise LibraryError("drydb: cannot load libdrydb (set DRYDB_LIBRARY to its path): "
                           + "; ".join(errors))


def forked() -> bool:
    """True in a child forked after the library was loaded (where no call
    into it can run)."""
    return _loaded and _pid != os.getpid()


def fork_error() -> ForkError:
    """The error of every call in a forked child."""
    try:
        _forked()
    except ForkError as e:
        return e
    raise AssertionError("unreachable")  # pragma: no cover


def _forked(*_args: Any) -> Any:
    raise ForkError(
        "drydb: this process was forked after libdrydb started (parent pid %d); the Go "
        "runtime inside the library cannot run in a forked child. Use multiprocessing's "
        "'spawn' or 'forkserver' start method (multiprocessing.get_context('spawn')), or "
        "load drydb only in the children." % _pid, FORKED)


#: Called in a forked child after the functions above are replaced by stubs:
#: parts of the binding that hold library functions elsewhere (the fast paths
#: of tables, see _fast.py) register here to replace theirs too.
fork_hooks: List[Any] = []


def _poison() -> None:
    g = globals()
    for name in _NAMES:
        g[name] = _forked
    for hook in fork_hooks:
        hook()


def library_path() -> Optional[str]:
    """Path of the library, loading it if needed (raises
    :class:`drydb.LibraryError` when none is found)."""
    load()
    return _path


def library_version() -> tuple:
    """(major, minor, patch) of the loaded library, loading it if needed."""
    load()
    return _version


def fail(rc: int, context: str = "") -> "Exception":
    """The exception for a failing status, with this thread's detail message."""
    msg = b""
    try:
        m = errmsg()
        msg = m or b""
    except Exception:  # pragma: no cover - only if the library is gone
        pass
    text = msg.decode("utf-8", "replace") if msg else ""
    if not text:
        s = strerror(rc)
        text = "drydb: " + (s.decode() if s else "status %d" % rc)
    # one "drydb: " in front: a message wrapping another keeps only the outer one
    text = text.replace(": drydb: ", ": ")
    if context:
        text = "%s (%s)" % (text, context)
    return error_class(rc)(text, rc)


def check(rc: int, context: str = "") -> None:
    """Raise the exception for rc unless it is DRYDB_OK."""
    if rc:
        raise fail(rc, context)


__all__ = ["load", "library_path", "library_version", "MEM", "check", "fail"]
