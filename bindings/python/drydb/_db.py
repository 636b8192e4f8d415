"""Reading: Database, Table, Index, Cursor."""

from __future__ import annotations

import os
import sys
import threading
import weakref
import ctypes
from collections.abc import ItemsView, KeysView, Mapping, ValuesView
from ctypes import byref, c_size_t, c_ubyte, c_uint64, c_void_p
from typing import (Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple,
                    Union)

from . import _fast
from . import _lib as L
from ._bounds import bound_kinds, partial_end, prefix_bounds
from ._copy import FULL, Cols, Row
from ._errors import (BADHANDLE, CLOSED, INVALID, NOTFOUND, TOOLARGE, ClosedError, Error,
                      TooLargeError)
from .codecs import Codec, get_codec
from .keys import KeyCodec

__all__ = ["Database", "Table", "Index", "Cursor", "open_memory"]  # not open: see drydb/__init__

_MEM: Any = L.MEM
_SIGN = 1 << 63
_BATCH = 256
_AUTO: Any = object()
_DEFAULT_INCL = (True, False)
_ViewWindow = c_ubyte * (1 << 62)
_COMPRESSION_NAMES = {0: None, 1: "zstd", 2: "s2"}
_TABLE_HASH = 0x2  # drydb_table_info.flags: DRYDB_HASH
_BUILTIN = type(len)  # get and [] made by the library (_fast._builtins)
# One-row copy-out reads (drydb/_copy.py) by the columns they fill
_ONE = Row(True)
_PAIR = Row(True, True)
_CUR_ROW = Row(True, False, True)  # key, (primary key), value
_CUR_PK = Row(False, True, False)
# Index scans' columns (index key, primary key, value), pooled by rows
_IX_BATCH = (True, True, True)
_IX_CAPS = (32 << 10, 32 << 10, 128 << 10)
_ix_pools: Dict[int, List[Cols]] = {}


def _name(b: bytes) -> str:
    """A table or index name from the file. Names are UTF-8 when a builder
    of this project wrote them; bytes that are not are kept as lone
    surrogates (the "surrogateescape" error handler, as ``os.fsdecode``), so
    that the name still opens its table: :func:`_name_bytes` turns it back."""
    return b.decode("utf-8", "surrogateescape")


def _name_bytes(name: str) -> bytes:
    return name.encode("utf-8", "surrogateescape")


def _too_many(what: str, n: int) -> TooLargeError:
    """len() of a table or index claiming more rows than Python's len() can
    return (sys.maxsize)."""
    return TooLargeError("drydb: %s has %d entries, more than len() can return; use count()"
                         % (what, n), TOOLARGE)


class _TLS(threading.local):
    """Per-thread scratch objects (ctypes out-arguments and batch arrays)."""

    def __init__(self) -> None:
        self.s = _Scratch()


class _Handle(c_void_p):
    """A cursor handle that a WeakSet can hold (so close() can invalidate it)."""

    __hash__ = object.__hash__


class _Scratch:
    """Out-arguments of one thread: a size_t and a uint64."""

    __slots__ = ("n1", "u64", "rn1", "ru64")

    def __init__(self) -> None:
        self.n1 = c_size_t()
        self.u64 = c_uint64()
        self.rn1 = byref(self.n1)
        self.ru64 = byref(self.u64)


_tls = _TLS()


def _recorded_codec(h: c_void_p) -> str:
    """The codec name the table's builder recorded ("" for none)."""
    p = ctypes.c_char_p()
    L.check(L.table_codec(h, byref(p)), "table_codec")
    return (p.value or b"").decode("utf-8", "replace")


class Database:
    """An open drydb database (read-only, memory-mapped).

    Use :func:`drydb.open`. A context manager: the ``with`` block closes it.
    ``db["name"]`` (or ``db.table("name")``) gives a :class:`Table`;
    ``db.tables`` lists the table names. May be shared between threads.
    """

    def __init__(self, path: Union[str, "os.PathLike[str]", None] = None, *, verify: bool = False,
                 cache_size: int = 0, _memory: Optional[bytes] = None) -> None:
        self._h = c_void_p()
        self._closed = True
        self._fork = False
        self._deferred = False
        self._lock = threading.Lock()
        self._views: Dict[int, Tuple[Any, Any]] = {}
        self._children: "weakref.WeakSet[Any]" = weakref.WeakSet()
        self._tables: Dict[str, Table] = {}
        self._ranges: List[Tuple[int, int]] = []
        self._memory: Any = None
        if not isinstance(verify, bool):
            raise TypeError("drydb: verify must be a bool")
        if not isinstance(cache_size, int) or isinstance(cache_size, bool):
            raise TypeError("drydb: cache_size must be an int (bytes)")
        if cache_size < 0:
            raise ValueError("drydb: cache_size must be >= 0 (0 = default)")
        flags = 1 if verify else 0
        if L.forked():
            # A child forked after the library started cannot call it. The
            # open "succeeds" and every use raises ForkError: a fork Pool's
            # initializer that opens a database then does not die (and get
            # respawned by the Pool, forever); the first task raises, and
            # the Pool hands that error to the parent.
            self.path = None if path is None else os.fsdecode(os.fspath(path))
            self._fork = True
            return
        L.load()
        if _memory is not None:
            self.path: Optional[str] = None
            buf = (c_ubyte * len(_memory)).from_buffer_copy(_memory) if _memory else (c_ubyte * 1)()
            self._memory = buf
            L.check(L.open_memory(buf, c_size_t(len(_memory)), flags, c_uint64(cache_size),
                                  byref(self._h)), "open_memory")
            from ctypes import addressof
            self._ranges = [(addressof(buf), addressof(buf) + len(_memory))]
        else:
            if path is None:
                raise TypeError("drydb: open() needs a path")
            p = os.fspath(path)
            if not isinstance(p, str):
                p = os.fsdecode(p)
            self.path = p
            L.check(L.open(os.fsencode(p), flags, c_uint64(cache_size), byref(self._h)),
                    "open %r" % p)
            # Values inside the file image stay valid until close: only those
            # are handed out as zero-copy views (drydb_db_info.map_addr/len).
            info = L.DbInfo()
            L.check(L.info(self._h, byref(info)), "info")
            if info.map_len:
                self._ranges = [(info.map_addr, info.map_addr + info.map_len)]
        self._closed = False

    # --- lifetime -----------------------------------------------------------

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called."""
        return self._closed

    def close(self) -> None:
        """Close the database. Idempotent.

        Tables, indexes and cursors of the database raise :class:`ClosedError`
        afterwards. Zero-copy views (``get(..., view=True)``) are released:
        using them raises ``ValueError``. If the program still holds slices
        or buffer exports of a view, the file stays mapped (never freed under
        a live view) until the last of them is gone.
        """
        if self._closed:
            return
        self._closed = True
        for obj in list(self._children):
            (obj if isinstance(obj, _Handle) else obj._h).value = None
            paths = getattr(obj, "_paths", None)
            if paths is not None:
                paths.kill(_fast._closed)
        with self._lock:
            entries = list(self._views.values())
        for _wa, wm in entries:
            mv = wm()
            if mv is not None:
                try:
                    mv.release()
                except BufferError:
                    pass  # exported elsewhere: stays pinned
            mv = None
        with self._lock:
            if self._views:
                self._deferred = True
                return
        self._native_close()

    def _native_close(self) -> None:
        h = self._h
        if h.value:
            rc = L.close(h)
            h.value = None
            L.check(rc, "close")

    def _view_gone(self, key: int) -> None:
        with self._lock:
            self._views.pop(key, None)
            last = self._deferred and not self._views
        if last:
            self._deferred = False
            try:
                self._native_close()
            except Error:
                pass

    def __enter__(self) -> "Database":
        return self

    def __reduce__(self) -> Any:
        raise TypeError("drydb: a Database cannot be pickled; pass its path to the other "
                        "process and open it there")

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            if not self._closed:
                self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return "<drydb.Database %r %s>" % (self.path if self.path is not None else "<memory>", state)

    def _check_open(self) -> None:
        if self._closed:
            if self._fork:
                raise L.fork_error()
            raise ClosedError("drydb: database is closed", CLOSED)

    def _fail(self, rc: int, context: str = "") -> Exception:
        if self._closed and rc in (CLOSED, BADHANDLE, INVALID):
            return ClosedError("drydb: database is closed", CLOSED)
        return L.fail(rc, context)

    # --- zero-copy views ----------------------------------------------------

    def _view(self, p: int, n: int) -> memoryview:
        for a, b in self._ranges:
            if a <= p and p + n <= b:
                break
        else:
            return memoryview(_MEM[p:p + n])  # not in the mapping: a private copy
        arr = _ViewWindow.from_address(p)
        base = memoryview(arr)
        c = base.cast("B")
        mv = c[:n]
        c.release()
        base.release()
        key = id(arr)
        db = self

        def gone(_r: Any, key: int = key) -> None:
            db._view_gone(key)
        wa = weakref.ref(arr, gone)
        with self._lock:
            if getattr(self, "_refreshing", False) or not any(a <= p and p + n <= b for a, b in self._ranges):
                # a refresh is replacing the mapping, or did since the range
                # check above; p is still mapped (this thread made no call
                # since): copy it
                mv.release()
                return memoryview(_MEM[p:p + n])
            # close() sets _closed before it looks at _views under this lock:
            # a view registered here keeps the file mapped, and one that comes
            # too late is refused before anything reads through it (the
            # library call that gave p may have returned just before close)
            if self._closed:
                mv.release()
                raise ClosedError("drydb: database is closed", CLOSED)
            self._views[key] = (wa, weakref.ref(mv))
        return mv

    # --- tables -------------------------------------------------------------

    @property
    def tables(self) -> List[str]:
        """Names of the tables, in file order."""
        self._check_open()
        s = _tls.s
        rc = L.table_count(self._h, s.rn1)
        if rc:
            raise self._fail(rc, "table_count")
        out = []
        for i in range(s.n1.value):
            rc, f = _ONE.read(L._copy_table_name, self._h, c_size_t(i))
            if rc:
                raise self._fail(rc, "table_name")
            out.append(_name(f[0]))
        return out

    def table(self, name: str, *, codec: Union[None, str, Codec] = _AUTO,
              raw_keys: bool = False) -> "Table":
        """Open a table.

        ``codec``: how values are decoded: ``None`` for bytes, ``"json"``,
        ``"msgpack"`` or a codec object. By default the codec recorded in the
        file by the builder (if any). ``raw_keys=True``: keys are given and
        returned as their encoded bytes, whatever the table's key kind.
        Raises :class:`NoTableError` (a ``KeyError``) if there is no such table.
        """
        if not isinstance(name, str):
            raise TypeError("drydb: table name must be a str, not %s" % type(name).__name__)
        self._check_open()
        if codec is _AUTO and not raw_keys:
            t = self._tables.get(name)
            if t is not None:
                return t
        h = c_void_p()
        bname = _name_bytes(name)
        if b"\0" in bname:
            raise ValueError("drydb: a table name cannot contain NUL")
        rc = L.table_open(self._h, bname, byref(h))
        if rc:
            raise self._fail(rc, "table %r" % name)
        cache = codec is _AUTO and not raw_keys
        if codec is _AUTO:
            codec = _recorded_codec(h)
            try:
                c = get_codec(codec)
            except (ValueError, ImportError) as e:
                raise type(e)("drydb: table %r records codec %r: %s; pass codec= (None for bytes)"
                              % (name, codec, str(e).replace("drydb: ", ""))) from None
        else:
            c = get_codec(codec)
        t = Table(self, name, h, c, raw_keys)
        self._children.add(t)
        if cache:
            self._tables[name] = t
        return t

    def __getitem__(self, name: str) -> "Table":
        return self.table(name)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.tables

    def __iter__(self) -> Iterator[str]:
        return iter(self.tables)

    def __len__(self) -> int:
        return len(self.tables)

    # --- database-wide -----------------------------------------------------

    def meta(self, key: Union[bytes, str]) -> Optional[bytes]:
        """User metadata stored by the builder (``Builder.set_meta``), or None."""
        self._check_open()
        if isinstance(key, str):
            key = key.encode("utf-8")
        if not isinstance(key, (bytes, bytearray)):
            raise TypeError("drydb: meta key must be bytes or str")
        rc, f = _ONE.read(L._copy_meta, self._h, bytes(key), len(key))
        if rc == 0:
            return f[0]
        if rc == NOTFOUND:
            return None
        raise self._fail(rc, "meta")

    def meta_keys(self) -> List[bytes]:
        """The metadata keys, in byte order (``drydb.codec.*`` included)."""
        self._check_open()
        p, n, out = ctypes.POINTER(c_ubyte)(), c_size_t(), []
        while True:
            rc = L.meta_key(self._h, c_size_t(len(out)), byref(p), byref(n))
            if rc == NOTFOUND:
                return out
            if rc:
                raise self._fail(rc, "meta_key")
            out.append(ctypes.string_at(p, n.value))

    @property
    def metadata(self) -> Dict[bytes, bytes]:
        """Every metadata pair, as a dict (a copy)."""
        return {k: self.meta(k) or b"" for k in self.meta_keys()}

    @property
    def info(self) -> Dict[str, Any]:
        """Format version, page size, file size, build time (ns), build id, table count."""
        self._check_open()
        i = L.DbInfo()
        rc = L.info(self._h, byref(i))
        if rc:
            raise self._fail(rc, "info")
        return {"format_version": i.format_version, "page_size": i.page_size,
                "file_size": i.file_size, "created_unix_ns": i.created_unix_ns,
                "build_id": bytes(i.build_id), "table_count": i.table_count}

    # --- live data (hot swap) -----------------------------------------------

    def refresh(self) -> bool:
        """Follow the path: if the file now at it is another file (a builder
        renamed a new version over it), open it and make it the current
        version. Returns True if the version changed, False if the file is the
        one already open.

        Tables and indexes stay valid and answer from the new version from
        their next call on; a table or index the new version lacks raises
        :class:`NoTableError` / :class:`NoIndexError` until a later version has
        it again (its ``len()`` and ``key_kind`` describe the last version that
        had it). A :class:`Cursor` (``Table.cursor``, ``Index`` scans) reads
        the version it was opened on until it is closed; ``Table.range`` and
        iteration over a table fetch 256 rows per library call, so a walk over
        more rows than that continues in the new version from its next batch
        (keys stay in order; use a cursor to read one version throughout). Zero-copy views (``get(..., view=True)``) of the old version
        are released (using them raises ``ValueError``); while one is exported
        elsewhere (a slice or buffer of it is alive) refresh raises
        :class:`InvalidError` and the database keeps its version. A file that is missing,
        truncated or corrupt raises (:class:`IOFailure`, :class:`CorruptError`)
        and the database keeps the version it had. A database opened with
        :func:`open_memory` cannot refresh (:class:`InvalidError`).
        """
        from ctypes import c_int
        from ._errors import InvalidError
        self._check_open()
        with self._lock:
            # from here until the new ranges are set, _view copies
            self._refreshing = True
            entries = list(self._views.values())
        try:
            exported = False
            for wa, wm in entries:  # outside the lock: releasing runs _view_gone
                mv = wm()
                if mv is not None:
                    try:
                        mv.release()
                    except BufferError:
                        exported = True
                mv = None
                # a slice or buffer of the view keeps the window alive
                exported = exported or wa() is not None
            if exported:
                raise InvalidError("drydb: refresh: a zero-copy view of the current version is still "
                                   "exported (a slice or buffer of it is alive); release it first",
                                   INVALID)
            with self._lock:
                changed = c_int()
                rc = L.refresh(self._h, byref(changed))
                if rc:
                    raise self._fail(rc, "refresh %r" % self.path)
                if not changed.value:
                    return False
                info = L.DbInfo()
                L.check(L.info(self._h, byref(info)), "info")
                self._ranges = [(info.map_addr, info.map_addr + info.map_len)] if info.map_len else []
        finally:
            self._refreshing = False
        for obj in list(self._children):
            reload = getattr(obj, "_reload_info", None)
            if reload is not None:
                reload()
        return True

    def refresh_every(self, ms: int) -> None:
        """Check the path automatically, as :meth:`refresh` does, at most every
        ``ms`` milliseconds, at the start of calls that enter the library's Go
        side (opening tables, counts of compressed tables, cursors, ...); 0
        turns it off (the default). Table lengths and zero-copy ranges follow
        only explicit :meth:`refresh` calls; prefer those where that matters."""
        from ctypes import c_int64
        self._check_open()
        if not isinstance(ms, int) or isinstance(ms, bool):
            raise TypeError("drydb: ms must be an int")
        rc = L.refresh_every(self._h, c_int64(ms))
        if rc:
            raise self._fail(rc, "refresh_every")

    @property
    def version(self) -> Tuple[bytes, int]:
        """``(build_id, seq)`` of the current version: the file's 16-byte build
        id (random per build) and the number of refreshes that replaced the
        file since open (0 at open)."""
        self._check_open()
        bid = (c_ubyte * 16)()
        seq = c_uint64()
        rc = L.db_version(self._h, bid, byref(seq))
        if rc:
            raise self._fail(rc, "version")
        return bytes(bid), seq.value

    def cache_stats(self) -> Dict[str, int]:
        """Hits, misses, evictions and bytes of the decompressed-page cache."""
        self._check_open()
        c = L.CacheStats()
        rc = L.cache_stats(self._h, byref(c))
        if rc:
            raise self._fail(rc, "cache_stats")
        return {"hits": c.hits, "misses": c.misses, "evictions": c.evictions, "bytes": c.bytes}

    def verify(self) -> None:
        """Check every page checksum and structure (reads the whole file; the
        GIL is released). Raises :class:`CorruptError` on damage."""
        self._check_open()
        rc = L.verify(self._h)
        if rc:
            raise self._fail(rc, "verify")


def open(path: Union[str, "os.PathLike[str]"], *, verify: bool = False,
         cache_size: int = 0) -> Database:
    """Open the drydb file at ``path`` read-only.

    ``verify=True`` checks every page checksum first (reads the whole file).
    ``cache_size``: bytes of cache for decompressed pages of compressed
    tables (0 = library default). Raises :class:`IOFailure`,
    :class:`CorruptError`, :class:`VersionError`, :class:`FilterError`.
    """
    return Database(path, verify=verify, cache_size=cache_size)


def open_memory(data: Union[bytes, bytearray, memoryview], *, verify: bool = False,
                cache_size: int = 0) -> Database:
    """Open a database image held in memory (a private copy is made)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("drydb: open_memory() takes bytes, not %s" % type(data).__name__)
    return Database(None, verify=verify, cache_size=cache_size, _memory=bytes(data))


class _Keyed:
    """Shared parts of Table and Index: key codec, bounds, batch scans."""

    _db: Database
    _h: c_void_p
    _key: KeyCodec

    def _bounds(self, start: Any, stop: Any, inclusive: Tuple[bool, bool]) -> Tuple[bytes, int, bytes, int]:
        lok, hik = bound_kinds(start, stop, inclusive)
        kc = self._key
        enc = kc.encode_bound
        lo, lok = (b"", lok) if start is None else partial_end(kc, start, enc(start), lok, True)
        hi, hik = (b"", hik) if stop is None else partial_end(kc, stop, enc(stop), hik, False)
        return lo, lok, hi, hik


class Table(_Keyed):
    """A table: a sorted map from keys to values. Get it with ``db["name"]``.

    Keys are Python values of the table's key kind (``int``, ``float``,
    ``str``, ``bytes``, ``uuid.UUID``, :class:`ULID`, or tuples for composite
    keys); values are ``bytes``, or Python objects with a codec. Reads may run
    from many threads at once.

    ``get``, ``get_many`` and ``count`` of an instance are closures specialised
    for the table's key kind and codec (``drydb._fast``), installed as instance
    attributes; they behave as the methods documented here, except that they
    also take ``view`` and ``inclusive`` positionally (keyword-only parameters
    would put every call on CPython's slower generic call path).
    """

    def __init__(self, db: Database, name: str, h: c_void_p, codec: Optional[Codec],
                 raw_keys: bool) -> None:
        self._db = db
        self._h = h
        self.name = name
        info = L.TableInfo()
        L.check(L.table_info(h, byref(info)), "table_info")
        self._info = info
        self._key = KeyCodec(info.key_kind, tuple(info.parts[:info.nparts]), raw=raw_keys)
        self._enc = self._key.encode
        self._kdec = self._key.decode
        self.codec: Optional[Codec] = codec
        self._vdec: Optional[Callable[[bytes], Any]] = codec.decode if codec else None
        self._compressed = info.compression != 0
        self._indexes: Dict[str, Index] = {}
        # value bytes a key of the last get_many_columns (+1/8): the next
        # one's first guess of its column's size (columnar.py)
        self._vper = 16
        paths = _fast.TablePaths(self)
        self._paths = paths
        self._getitem = paths.getitem
        self._contains = paths.contains
        for name in ("get", "get_many", "count"):
            f = getattr(paths, name)
            m = getattr(Table, name)
            if not isinstance(f, _BUILTIN):  # a builtin has its doc already
                f.__doc__, f.__name__, f.__qualname__ = m.__doc__, m.__name__, m.__qualname__
            setattr(self, name, f)

    def _reload_info(self) -> None:
        """After a refresh: the description of the new version's table (kept
        as it was if the table vanished: every read then raises NoTableError)."""
        info = L.TableInfo()
        if L.table_info(self._h, byref(info)) == 0:
            self._info = info
        for ix in list(self._indexes.values()):
            ix._reload_info()

    def __repr__(self) -> str:
        return "<drydb.Table %r %s, %d rows>" % (self.name, self._key.describe(), self._info.rows)

    # --- description --------------------------------------------------------

    @property
    def key_kind(self) -> str:
        """The key kind: ``"int64"``, ``"string"``, ``"composite(string, int64)"``..."""
        return self._key.describe()

    @property
    def compression(self) -> Optional[str]:
        """``None``, ``"zstd"`` or ``"s2"``."""
        return _COMPRESSION_NAMES.get(self._info.compression, str(self._info.compression))

    @property
    def hashed(self) -> bool:
        """Whether the table has a hash index (``Builder.table(hash=...)``):
        point lookups then find their row in one probe."""
        return bool(self._info.flags & _TABLE_HASH)

    @property
    def index_count(self) -> int:
        """Number of secondary indexes of the table."""
        return self._info.index_count

    def __len__(self) -> int:
        if self._db._closed:
            raise ClosedError("drydb: database is closed", CLOSED)
        n = self._info.rows
        if n > sys.maxsize:
            raise _too_many("table %r" % self.name, n)
        return n

    def _fail(self, rc: int, context: str = "") -> Exception:
        return self._db._fail(rc, context)

    # --- point reads --------------------------------------------------------

    def get(self, key: Any, default: Any = None, *, view: bool = False) -> Any:
        """The value of ``key``, or ``default`` if absent.

        ``view=True`` returns a zero-copy ``memoryview`` into the mapped file
        (a copy for compressed tables), ignoring the codec. The view is
        released when the database closes; using it afterwards raises
        ``ValueError`` (never reads unmapped memory). Unlike every other
        read, it is not guarded against the file shrinking underneath:
        reading a view of a page the file lost raises SIGBUS.
        """
        return self._paths.get(key, default, view=view)

    def __getitem__(self, key: Any) -> Any:
        return self._getitem(key)

    def __contains__(self, key: Any) -> bool:
        return self._contains(key)

    def get_many(self, keys: Iterable[Any], default: Any = None) -> List[Any]:
        """Values of many keys in one pass (``default`` for absent ones), in
        the order given. Much cheaper per key than repeated :meth:`get`: keys
        go to the library 256 at a time."""
        return self._paths.get_many(keys, default)

    # --- positions ----------------------------------------------------------

    def at(self, n: int) -> Tuple[Any, Any]:
        """The n-th row ``(key, value)`` in key order (negative n counts from
        the end). ``IndexError`` if out of range."""
        if not isinstance(n, int) or isinstance(n, bool):
            raise TypeError("drydb: row number must be an int")
        rows = self._info.rows
        if n < 0:
            n += rows
        if n < 0 or n >= 1 << 64:
            raise IndexError("drydb: row number out of range")
        rc, f = _PAIR.read(L._copy_at, self._paths.harg, n if n < 1 << 31 else c_uint64(n))
        if rc == 0:
            return self._kdec(f[0]), (f[1] if self._vdec is None else self._vdec(f[1]))
        if rc == NOTFOUND:
            raise IndexError("drydb: row %d out of range (%d rows)" % (n, rows))
        raise self._fail(rc, "at")

    def rank(self, key: Any) -> int:
        """Number of keys smaller than ``key`` (which need not exist): the
        position ``key`` has or would have."""
        k = self._key.encode_bound(key)
        s = _tls.s
        rc = L.rank(self._h, k, len(k), s.ru64)
        if rc:
            raise self._fail(rc, "rank")
        return s.u64.value

    def first(self) -> Optional[Tuple[Any, Any]]:
        """The first row ``(key, value)``, or None for an empty table."""
        return self.at(0) if self._info.rows else None

    def last(self) -> Optional[Tuple[Any, Any]]:
        """The last row ``(key, value)``, or None for an empty table."""
        return self.at(-1) if self._info.rows else None

    def count(self, start: Any = None, stop: Any = None, *,
              inclusive: Tuple[bool, bool] = (True, False), prefix: Any = None) -> int:
        """Number of rows with ``start <= key < stop`` (bounds per
        ``inclusive``; None is unbounded), or with ``prefix`` (as
        :meth:`prefix` takes it; no bounds then). Computed from page counts,
        not by walking the rows."""
        return self._paths.count(start, stop, inclusive, prefix)

    # --- scans ----------------------------------------------------------------

    def _open_cursor(self, start: Any, stop: Any, inclusive: Tuple[bool, bool],
                     prefix: Any = None) -> c_void_p:
        h = _Handle()
        if prefix is not None:
            p = self._key.encode_prefix(prefix)
            rc = L.cursor_open_prefix(self._h, p, len(p), byref(h))
        else:
            lo, lok, hi, hik = self._bounds(start, stop, inclusive)
            rc = L.cursor_open(self._h, lo, len(lo), lok, hi, len(hi), hik, byref(h))
        if rc:
            raise self._fail(rc, "cursor")
        self._db._children.add(h)  # close() invalidates it
        return h

    def range(self, start: Any = None, stop: Any = None, *,
              inclusive: Tuple[bool, bool] = (True, False), reverse: bool = False,
              keys: bool = True, values: bool = True) -> Iterator[Any]:
        """Iterate over rows with ``start <= key < stop`` in key order
        (``reverse=True``: descending). ``inclusive=(lo, hi)`` says whether
        each bound is included; None is unbounded. Composite tables accept
        partial tuples as bounds. Yields ``(key, value)``, or only keys
        (``values=False``) or only values (``keys=False``). Rows are fetched
        16 in the first library call, doubling up to 256 per call
        (``drydb_range``: no cursor is opened)."""
        if not keys and not values:
            raise ValueError("drydb: range() needs keys or values")
        return self._paths.range(start, stop, inclusive, reverse,
                                 0 if keys and values else (1 if keys else 2))

    def prefix(self, prefix: Any, *, reverse: bool = False, keys: bool = True,
               values: bool = True) -> Iterator[Any]:
        """Iterate over rows whose key starts with ``prefix``: a str/bytes
        prefix for string/bytes keys, a tuple prefix for composite keys."""
        if not keys and not values:
            raise ValueError("drydb: prefix() needs keys or values")
        return self._paths.prefix(prefix, reverse, 0 if keys and values else (1 if keys else 2))

    # columns (drydb.columnar, which documents them): copies into buffers the result owns
    def get_many_columns(self, keys: Any, output: Optional[str] = None) -> Tuple[Any, Any]:
        """(values, found) of a column of keys, as columns (drydb.columnar)."""
        from . import columnar
        return columnar.get_many_columns(self, keys, output)

    def range_columns(self, start: Any = None, stop: Any = None, **kw: Any) -> Tuple[Any, Any]:
        """(keys, values) of a range as columns (drydb.columnar)."""
        from . import columnar
        return columnar.range_columns(self, start, stop, **kw)

    def prefix_columns(self, prefix: Any, **kw: Any) -> Tuple[Any, Any]:
        """(keys, values) of the rows with a prefix as columns (drydb.columnar)."""
        from . import columnar
        return columnar.prefix_columns(self, prefix, **kw)

    def keys(self) -> "KeysView[Any]":
        """The keys, a ``collections.abc.KeysView``: ``len()``, ``in``,
        iteration in key order (``reversed()`` too)."""
        return _TableKeys(self)

    def values(self) -> "ValuesView[Any]":
        """The values in key order, a ``collections.abc.ValuesView``."""
        return _TableValues(self)

    def items(self) -> "ItemsView[Any, Any]":
        """The ``(key, value)`` rows in key order, a ``collections.abc.ItemsView``."""
        return _TableItems(self)

    def __iter__(self) -> Iterator[Any]:
        return self._paths.range(None, None, _DEFAULT_INCL, False, 1)

    def __reversed__(self) -> Iterator[Any]:
        return self._paths.range(None, None, _DEFAULT_INCL, True, 1)

    def cursor(self, start: Any = None, stop: Any = None, *,
               inclusive: Tuple[bool, bool] = (True, False), prefix: Any = None) -> "Cursor":
        """A :class:`Cursor` over the rows within the bounds (or with the
        prefix), unpositioned: ``next()`` goes to the first row."""
        return Cursor(self, self._open_cursor(start, stop, inclusive, prefix), None)

    # --- indexes ----------------------------------------------------------------

    @property
    def indexes(self) -> List[str]:
        """Names of the table's secondary indexes, sorted."""
        self._db._check_open()
        out = []
        i = 0
        while True:
            rc, f = _ONE.read(L._copy_index_name, self._h, c_size_t(i))
            if rc == NOTFOUND:  # past the last index
                return out
            if rc:
                raise self._fail(rc, "table_index_name")
            out.append(_name(f[0]))
            i += 1

    def index(self, name: str) -> "Index":
        """The secondary index ``name``; :class:`NoIndexError` (a KeyError) if absent."""
        if not isinstance(name, str):
            raise TypeError("drydb: index name must be a str")
        ix = self._indexes.get(name)
        if ix is not None and ix._h.value:
            return ix
        h = c_void_p()
        rc = L.index_open(self._h, _name_bytes(name), byref(h))
        if rc:
            raise self._fail(rc, "index %r of table %r" % (name, self.name))
        ix = Index(self, name, h)
        self._db._children.add(ix)
        self._indexes[name] = ix
        return ix


# A Table is a read-only Mapping: its keys(), values() and items() are the
# collections.abc views, iterated through the batch scans, sized by the row
# count and tested by point lookups.
class _TableKeys(KeysView):  # type: ignore[type-arg]
    _mapping: Table

    def __iter__(self) -> Iterator[Any]:
        return iter(self._mapping)

    def __reversed__(self) -> Iterator[Any]:
        return reversed(self._mapping)


class _TableValues(ValuesView):  # type: ignore[type-arg]
    _mapping: Table

    def __iter__(self) -> Iterator[Any]:
        return self._mapping._paths.range(None, None, _DEFAULT_INCL, False, 2)

    def __reversed__(self) -> Iterator[Any]:
        return self._mapping._paths.range(None, None, _DEFAULT_INCL, True, 2)


class _TableItems(ItemsView):  # type: ignore[type-arg]
    _mapping: Table

    def __iter__(self) -> Iterator[Tuple[Any, Any]]:
        return self._mapping._paths.range(None, None, _DEFAULT_INCL, False, 0)

    def __reversed__(self) -> Iterator[Tuple[Any, Any]]:
        return self._mapping._paths.range(None, None, _DEFAULT_INCL, True, 0)


Mapping.register(Table)


class Index(_Keyed):
    """A secondary index of a table: index keys to rows. Results are
    ``(primary_key, value)`` pairs, in index key order then primary key order."""

    def __init__(self, table: Table, name: str, h: c_void_p) -> None:
        self._db = table._db
        self.table = table
        self.name = name
        self._h = h
        self._harg = _fast.handle_arg(h.value)  # the cheapest handle argument (see _fast)
        info = L.IndexInfo()
        L.check(L.index_info(h, byref(info)), "index_info")
        self._info = info
        self._key = KeyCodec(info.key_kind, tuple(info.parts[:info.nparts]))

    def _reload_info(self) -> None:
        """After a refresh: as Table._reload_info."""
        info = L.IndexInfo()
        if L.index_info(self._h, byref(info)) == 0:
            self._info = info

    def __repr__(self) -> str:
        return "<drydb.Index %r of %r, %s%s, %d entries>" % (
            self.name, self.table.name, self._key.describe(),
            " unique" if self.unique else "", self._info.entries)

    @property
    def unique(self) -> bool:
        """True for a unique index."""
        return bool(self._info.unique)

    @property
    def key_kind(self) -> str:
        """The kind of the index keys."""
        return self._key.describe()

    def __len__(self) -> int:
        if self._db._closed:
            raise ClosedError("drydb: database is closed", CLOSED)
        n = self._info.entries
        if n > sys.maxsize:
            raise _too_many("index %r" % self.name, n)
        return n

    def get(self, ikey: Any, default: Any = None) -> Any:
        """The first ``(primary_key, value)`` with index key ``ikey``, or ``default``."""
        k = self._key.encode(ikey)
        rc, f = _PAIR.read(L._copy_index_get, self._harg, k, len(k))
        if rc == 0:
            t = self.table
            return t._kdec(f[0]), (f[1] if t._vdec is None else t._vdec(f[1]))
        if rc == NOTFOUND:
            return default
        raise self._db._fail(rc, "index get")

    def __getitem__(self, ikey: Any) -> Tuple[Any, Any]:
        r = self.get(ikey, _AUTO)
        if r is _AUTO:
            raise KeyError(ikey)
        return r

    def __contains__(self, ikey: Any) -> bool:
        return self.get(ikey, _AUTO) is not _AUTO

    def get_all(self, ikey: Any) -> List[Tuple[Any, Any]]:
        """Every ``(primary_key, value)`` with index key ``ikey``, in primary key order."""
        return list(self.range(ikey, ikey, inclusive=(True, True)))

    def count(self, start: Any = None, stop: Any = None, *,
              inclusive: Tuple[bool, bool] = (True, False), prefix: Any = None) -> int:
        """Number of entries with index key within the bounds, or starting
        with ``prefix`` (as :meth:`prefix` takes it; no bounds then)."""
        if prefix is not None:
            if start is not None or stop is not None:
                raise TypeError("drydb: count() takes bounds or prefix=, not both")
            lo, lok, hi, hik = prefix_bounds(self._key.encode_prefix(prefix))
        else:
            lo, lok, hi, hik = self._bounds(start, stop, inclusive)
        out = c_uint64()
        rc = L.index_count(self._h, lo, len(lo), lok, hi, len(hi), hik, byref(out))
        if rc:
            raise self._db._fail(rc, "index count")
        return out.value

    def _open_cursor(self, start: Any, stop: Any, inclusive: Tuple[bool, bool],
                     prefix: Any = None) -> c_void_p:
        h = _Handle()
        if prefix is not None:
            p = self._key.encode_prefix(prefix)
            rc = L.index_cursor_open_prefix(self._h, p, len(p), byref(h))
        else:
            lo, lok, hi, hik = self._bounds(start, stop, inclusive)
            rc = L.index_cursor_open(self._h, lo, len(lo), lok, hi, len(hi), hik, byref(h))
        if rc:
            raise self._db._fail(rc, "index cursor")
        self._db._children.add(h)  # close() invalidates it
        return h

    def _scan(self, ch: c_void_p, reverse: bool, with_ikey: bool) -> Iterator[Any]:
        db = self._db
        t = self.table
        kdec, vdec, idec = t._kdec, t._vdec, self._key.decode
        n = c_size_t()
        rn = byref(n)
        rev = 1 if reverse else 0
        fields = _fast._fields
        rows = _BATCH  # the columns' rows and the calls' max (its 3rd argument: a size_t)
        maxarg = c_size_t(rows)
        try:
            while True:
                pool = _ix_pools.setdefault(rows, [])
                c = pool.pop() if pool else Cols(rows, _IX_CAPS, _IX_BATCH)
                try:
                    while True:
                        rc = L._copy_cursor_batch(ch, rev, maxarg, c.ref, rn)
                        if rc != FULL or n.value:
                            break
                        c.grow_for(0)  # not even one entry fits
                    if rc == NOTFOUND:
                        return
                    if rc and rc != FULL:
                        raise db._fail(rc, "index cursor")
                    m = n.value
                    iks, pks, vals = (fields(c.bufs[i], c.lens[i][:m]) for i in range(3))
                finally:
                    if not c.big and len(pool) < 8:
                        pool.append(c)
                keys = [kdec(k) for k in pks]
                if vdec is not None:
                    vals = [vdec(v) for v in vals]
                if with_ikey:
                    yield from zip([idec(k) for k in iks], keys, vals)
                else:
                    yield from zip(keys, vals)
        finally:
            if ch.value:
                try:
                    L.cursor_close(ch)
                except Error:
                    pass
                ch.value = None

    def range(self, start: Any = None, stop: Any = None, *,
              inclusive: Tuple[bool, bool] = (True, False), reverse: bool = False,
              with_index_key: bool = False) -> Iterator[Any]:
        """Iterate over entries with index key within the bounds, yielding
        ``(primary_key, value)`` (or ``(index_key, primary_key, value)`` with
        ``with_index_key=True``)."""
        return self._scan(self._open_cursor(start, stop, inclusive), reverse, with_index_key)

    def prefix(self, prefix: Any, *, reverse: bool = False,
               with_index_key: bool = False) -> Iterator[Any]:
        """Iterate over entries whose index key starts with ``prefix``."""
        return self._scan(self._open_cursor(None, None, (True, False), prefix), reverse,
                          with_index_key)

    def __iter__(self) -> Iterator[Any]:
        return self.range()

    def cursor(self, start: Any = None, stop: Any = None, *,
               inclusive: Tuple[bool, bool] = (True, False), prefix: Any = None) -> "Cursor":
        """A :class:`Cursor` over index entries (``key`` is the index key,
        ``primary_key`` the row's key)."""
        return Cursor(self.table, self._open_cursor(start, stop, inclusive, prefix), self)


class Cursor:
    """A movable position in a table or index range.

    Unpositioned when created: ``next()`` goes to the first entry, ``prev()``
    to the last. Moves return True when on an entry, False when they ran off
    the range. ``key``, ``value``, ``item`` (and ``primary_key`` for index
    cursors) read the current entry. Iterating yields the entries from the
    next one on. Close it (or use ``with``); closing the database closes it
    too. A cursor belongs to one thread at a time.
    """

    def __init__(self, table: Table, h: c_void_p, index: Optional[Index]) -> None:
        self._table = table
        self._index = index
        self._db = table._db
        self._h = h
        self._db._children.add(self)
        self._kdec = index._key.decode if index is not None else table._kdec
        self._enc = (index._key if index is not None else table._key).encode_bound

    def _move(self, rc: int, what: str) -> bool:
        if rc == 0:
            return True
        if rc == NOTFOUND:
            return False
        raise self._db._fail(rc, "cursor " + what)

    def first(self) -> bool:
        """Go to the first entry of the range."""
        return self._move(L.cursor_first(self._h), "first")

    def last(self) -> bool:
        """Go to the last entry of the range."""
        return self._move(L.cursor_last(self._h), "last")

    def next(self) -> bool:
        """Go to the next entry (the first one on a fresh cursor)."""
        return self._move(L.cursor_next(self._h), "next")

    def prev(self) -> bool:
        """Go to the previous entry (the last one on a fresh cursor)."""
        return self._move(L.cursor_prev(self._h), "prev")

    def seek(self, key: Any) -> bool:
        """Go to the first entry with key >= ``key`` (within the range)."""
        k = self._enc(key)
        return self._move(L.cursor_seek(self._h, k, len(k)), "seek")

    def seek_exact(self, key: Any) -> bool:
        """Go to ``key`` exactly (index cursors: its first entry); False if absent."""
        k = self._enc(key)
        return self._move(L.cursor_seek_exact(self._h, k, len(k)), "seek_exact")

    def seek_row(self, n: int) -> bool:
        """Go to the n-th row of the table (0-based); False if outside the range."""
        if not isinstance(n, int) or isinstance(n, bool):
            raise TypeError("drydb: row number must be an int")
        if n < 0:
            raise ValueError("drydb: row number must be >= 0")
        return self._move(L.cursor_seek_row(self._h, c_uint64(n)), "seek_row")

    def _current(self) -> Tuple[bytes, bytes]:
        rc, f = _CUR_ROW.read(L._copy_cursor_get, self._h)
        if rc == NOTFOUND:
            raise Error("drydb: cursor is not on an entry", NOTFOUND)
        if rc:
            raise self._db._fail(rc, "cursor get")
        return f[0], f[1]

    @property
    def key(self) -> Any:
        """Key of the current entry (index cursors: the index key)."""
        return self._kdec(self._current()[0])

    @property
    def value(self) -> Any:
        """Value of the current entry (decoded by the table's codec)."""
        v = self._current()[1]
        d = self._table._vdec
        return v if d is None else d(v)

    @property
    def item(self) -> Tuple[Any, Any]:
        """``(key, value)`` of the current entry."""
        k, v = self._current()
        d = self._table._vdec
        return self._kdec(k), (v if d is None else d(v))

    @property
    def primary_key(self) -> Any:
        """Index cursors: the primary key of the current entry."""
        if self._index is None:
            raise TypeError("drydb: primary_key is for index cursors")
        rc, f = _CUR_PK.read(L._copy_cursor_get, self._h)
        if rc == NOTFOUND:
            raise Error("drydb: cursor is not on an entry", NOTFOUND)
        if rc:
            raise self._db._fail(rc, "cursor primary_key")
        return self._table._kdec(f[0])

    def __iter__(self) -> Iterator[Tuple[Any, Any]]:
        while self.next():
            yield self.item

    def close(self) -> None:
        """Free the cursor. Idempotent."""
        if self._h.value:
            try:
                L.cursor_close(self._h)
            finally:
                self._h.value = None

    def __enter__(self) -> "Cursor":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

