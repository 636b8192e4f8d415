"""Writing: Builder, TableBuilder, IndexBuilder."""

from __future__ import annotations

import ctypes
import os
from array import array as _SizeArray
from ctypes import byref, c_int, c_int64, c_size_t, c_uint8, c_uint64, c_void_p, sizeof, string_at
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple, Union

from . import _lib as L
from ._errors import CLOSED, ClosedError
from ._db import _recorded_codec
from .codecs import Codec, get_codec
from .keys import KeyCodec, KeySpec, key_kind

__all__ = ["Builder", "TableBuilder", "IndexBuilder", "convert", "FORMATS"]

# File formats a Builder writes and convert converts to (docs/DRYDB14.md, "Writing 1.4 files").
FORMATS = ("native", "drydb-1.4")

_CHUNK = 4096
# the array typecode of size_t (unsigned long on LP64, unsigned long long on LLP64)
_SIZE_CODE = "L" if _SizeArray("L").itemsize == sizeof(c_size_t) else "Q"
_COMPRESSIONS = {None: 0, "none": 0, "zstd": 1, "s2": 2}
_DEFAULT: Any = object()


_HASH, _NO_HASH = 0x2, 0x4  # drydb_builder_table flags: DRYDB_HASH, DRYDB_NO_HASH


def _compression(spec: Any) -> int:
    if isinstance(spec, bool):
        raise TypeError("drydb: compression must be None, 'zstd' or 's2'")
    if isinstance(spec, int):
        if spec in (0, 1, 2):
            return spec
        raise ValueError("drydb: unknown compression %d" % spec)
    if spec is None or isinstance(spec, str):
        try:
            return _COMPRESSIONS[spec.lower() if isinstance(spec, str) else spec]
        except KeyError:
            raise ValueError("drydb: unknown compression %r (None, 'zstd' or 's2')" % spec) from None
    raise TypeError("drydb: compression must be None, 'zstd' or 's2', not %r" % (spec,))


# The library's entry points for the bindings alone (drydb__*, not in
# drydb.h: capi/bind_builder.go's drydb__builder_*, capi/columnar.go's), and the
# merge calls of drydb.h (prefix drydb_builder_), looked up on first use; long
# ones (release_gil) through a CDLL handle, which releases the GIL during the
# call. In a forked child they are dropped, so that the next use goes through
# L.load(), which raises ForkError, instead of into a Go runtime that cannot
# run there.
_private: Dict[Tuple[str, bool], Any] = {}
L.fork_hooks.append(_private.clear)


def _priv(name: str, release_gil: bool = False, prefix: str = "drydb__") -> Any:
    f = _private.get((prefix + name, release_gil))
    if f is None:
        L.load()
        lib = ctypes.CDLL if release_gil else ctypes.PyDLL
        f = getattr(lib(L.library_path()), prefix + name)
        f.restype = c_int
        _private[(prefix + name, release_gil)] = f
    return f


def _merge_call(name: str) -> Any:
    """drydb_builder_<name> of the merge API (drydb.h)."""
    return _priv(name, prefix="drydb_builder_")


def _lengths(items: List[bytes]) -> Any:
    """A size_t array of the items' lengths (through array: building a ctypes
    array from n arguments costs several times more)."""
    return _ctypes_sizes(_SizeArray(_SIZE_CODE, map(len, items)))


def _ctypes_sizes(a: Any) -> Any:
    return (c_size_t * len(a)).from_buffer(a)


def _as_bytes(v: Any, what: str) -> bytes:
    if type(v) is bytes:
        return v
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    raise TypeError("drydb: %s must be bytes-like (or give the table a codec), not %s"
                    % (what, type(v).__name__))


class Builder:
    """Builds a database file.

    ::

        with drydb.Builder("items.drydb", compression="zstd") as b:
            t = b.table("items", key="int64", codec="json")
            t.add(1, {"name": "pen"})
            t.add_many((i, {"n": i}) for i in range(2, 1000))

    Rows may be added in any order (the library sorts them). The file is
    written when the ``with`` block exits without an exception, to a temporary
    name then renamed, so it appears complete or not at all; when the block
    raises, nothing is written. Without ``with``, call :meth:`build` (or
    :meth:`abort`). ``path=None`` builds in memory: :meth:`build` returns the
    image as bytes (open it with :func:`drydb.open_memory`).

    ``page_size``: a power of two in [512, 65536] (default 4096).
    ``compression``: default for the tables: None, ``"zstd"`` or ``"s2"``.
    ``memory_budget``: bytes of RAM for sorting before spilling to disk
    (0 = library default). ``meta``: metadata pairs (read with ``db.meta``).
    ``format``: ``"native"`` or ``"drydb-1.4"``, a file the C# DryDB reads
    (built native, then written as 1.4; keys int64, string, bytes, uuid and
    ulid only; zstd on any table compresses the whole file; metadata, and so
    codecs, are not stored: read values with ``codec=`` given).
    A builder belongs to one thread at a time.
    """

    def __init__(self, path: Union[str, "os.PathLike[str]", None], *, page_size: int = 4096,
                 compression: Union[None, str, int] = None, memory_budget: int = 0,
                 meta: Optional[Dict[Union[str, bytes], Union[str, bytes]]] = None,
                 format: str = "native") -> None:
        self._init(path, page_size, compression, memory_budget, meta,
                   lambda h: L.builder_new(page_size, c_int64(memory_budget), byref(h)), format)

    @classmethod
    def merge(cls, base: Any, path: Union[str, "os.PathLike[str]", None], *, page_size: int = 0,
              compression: Union[None, str, int] = None, memory_budget: int = 0,
              meta: Optional[Dict[Union[str, bytes], Union[str, bytes]]] = None) -> "Builder":
        """A builder seeded from the open database ``base``: it writes base's
        rows with the changes given since applied, rewriting only the pages
        that changes fall into. Every table and index of base is in it, with
        its metadata (``meta`` adds or replaces pairs)::

            with drydb.Builder.merge(db, "items.new.drydb") as b:
                t = b.table("items")          # base's key kind and codec
                t.index("by_name", func=lambda k, v: v["name"])  # re-supplied
                t.add(7, {"name": "ink"})     # insert or replace
                t.delete(3)

        A function index's ``func`` runs on the added rows only; the entries
        of replaced and deleted rows are dropped, those of the rest kept. A
        key is changed once per merge: added twice raises
        :class:`DuplicateKeyError` at build, added and deleted
        :class:`InvalidError`. ``page_size`` 0 keeps base's; ``compression``
        applies to new tables (``table(name, compression=...)`` changes a
        base table's). ``base`` must stay open until the build ends (closed
        earlier, the builder's calls raise :class:`ClosedError`).
        """
        self = cls.__new__(cls)
        base._check_open()
        self._init(path, page_size, compression, memory_budget, meta,
                   lambda h: _merge_call("new_merge")(base._h, page_size, c_int64(memory_budget), byref(h)),
                   "native")
        self._base = base
        return self

    def _init(self, path: Union[str, "os.PathLike[str]", None], page_size: int,
              compression: Union[None, str, int], memory_budget: int,
              meta: Optional[Dict[Union[str, bytes], Union[str, bytes]]],
              new: Callable[[c_void_p], int], format: str) -> None:
        if format not in FORMATS:
            raise ValueError("drydb: format must be one of %s, not %r" % (FORMATS, format))
        L.load()
        self._h = c_void_p()
        self._done = True
        self._base: Any = None
        self.path = None if path is None else os.fspath(path)
        if self.path is not None and not isinstance(self.path, str):
            self.path = os.fsdecode(self.path)
        for name, v in (("page_size", page_size), ("memory_budget", memory_budget)):
            if not isinstance(v, int) or isinstance(v, bool):
                raise TypeError("drydb: %s must be an int" % name)
        if page_size and (page_size < 512 or page_size > 65536 or page_size & (page_size - 1)):
            raise ValueError("drydb: page_size must be a power of two in [512, 65536], not %d"
                             % page_size)
        if memory_budget < 0:
            raise ValueError("drydb: memory_budget must be >= 0")
        self._compression = _compression(compression)
        L.check(new(self._h), "builder_new")
        self._done = False
        if format != "native":
            L.check(_merge_call("set_format")(self._h, format.encode()), "format %r" % format)
        self._tables: Dict[str, TableBuilder] = {}
        for mk, mv in (meta or {}).items():
            self.set_meta(mk, mv)

    def _check(self) -> None:
        if self._done:
            raise ClosedError("drydb: builder already built or aborted", CLOSED)

    def set_meta(self, key: Union[str, bytes], value: Union[str, bytes]) -> None:
        """Store a metadata pair (str is stored as UTF-8)."""
        self._check()
        k = key.encode("utf-8") if isinstance(key, str) else _as_bytes(key, "meta key")
        v = value.encode("utf-8") if isinstance(value, str) else _as_bytes(value, "meta value")
        L.check(L.builder_set_meta(self._h, k, len(k), v, c_size_t(len(v))), "set_meta")

    def table(self, name: str, key: Any = _DEFAULT, *, compression: Any = _DEFAULT,
              level: int = 0, dictionary: bool = False,
              codec: Union[None, str, Codec] = None, hash: Optional[bool] = None) -> "TableBuilder":
        """Add a table and return its :class:`TableBuilder`.

        ``key``: the key kind (see :func:`drydb.keys.key_kind`): ``"int64"``,
        ``"uint64"``, ``"float64"``, ``"string"``, ``"bytes"``, ``"uuid"``,
        ``"ulid"``, a type (``int``, ``str``...), or a tuple for a composite
        key. ``compression`` defaults to the builder's; ``level`` is the zstd
        level, 1 (fastest) to 4 (best; the levels of klauspost/compress), 0
        the default, refused for s2 and plain tables, which have none;
        ``dictionary=True`` trains a compression dictionary.
        ``codec`` (``"json"``, ``"msgpack"``, an object) encodes values and is
        recorded in the file, so readers decode with it by default.
        ``hash``: a hash index, which finds a key's row in one probe instead
        of a tree descent (about 11 bytes a row): ``None`` (the default)
        builds one unless the table is compressed (it would undo much of
        what compression saves) or its keys are consecutive integers,
        ``True`` always, ``False`` never. ``Table.hashed`` says whether a
        table has one.

        On a builder from :meth:`merge`, a table of the base is returned with
        the base's key kind and codec (``key`` and ``codec`` may be left
        out); ``compression`` given re-encodes its rows with it.
        """
        self._check()
        if not isinstance(name, str):
            raise TypeError("drydb: table name must be a str")
        if not name or "\x00" in name:
            raise ValueError("drydb: table name must be non-empty without NUL")
        if name in self._tables:
            if self._base is not None:
                return self._tables[name]
            raise ValueError("drydb: table %r added twice" % name)
        if not isinstance(level, int) or isinstance(level, bool):
            raise TypeError("drydb: level must be an int")
        if level and (self._compression if compression is _DEFAULT else _compression(compression)) != 1:
            # s2 has no levels and plain pages none: a level there would be
            # stored and mean nothing
            raise ValueError("drydb: level=%d applies to zstd compression only (table %r)" % (level, name))
        if not 0 <= level <= 4:
            raise ValueError("drydb: zstd level must be 1 (fastest) to 4 (best), or 0 for the default; "
                             "not %d" % level)
        bt = self._base.table(name, codec=None, raw_keys=True) if self._base is not None and \
            name in self._base.tables else None
        h = c_void_p()
        if bt is not None:
            kind, parts = bt._key.kind, bt._key.parts
            if key is not _DEFAULT and key_kind(key) != (kind, parts):
                raise ValueError("drydb: table %r: a merge keeps the base's key kind (%s)"
                                 % (name, KeyCodec(kind, parts).describe()))
            if codec is None:
                codec = _recorded_codec(bt._h) or None
        else:
            kind, parts = key_kind("bytes" if key is _DEFAULT else key)
        if hash is not None and not isinstance(hash, bool):
            raise TypeError("drydb: hash must be None, True or False, not %r" % (hash,))
        flags = (1 if dictionary else 0) | {None: 0, True: _HASH, False: _NO_HASH}[hash]
        c = get_codec(codec)
        if bt is not None and compression is _DEFAULT and hash is None:
            L.check(_merge_call("merge_table")(self._h, name.encode("utf-8"), byref(h)), "table %r" % name)
        else:
            if compression is not _DEFAULT:
                comp = _compression(compression)
            else:  # a base's table keeps its compression when only hash is given
                comp = bt._info.compression if bt is not None else self._compression
            pbuf = (c_uint8 * len(parts))(*parts) if parts else None
            L.check(L.builder_table(self._h, name.encode("utf-8"), kind, pbuf, c_size_t(len(parts)),
                                    comp, level, flags, byref(h)),
                    "table %r" % name)
        if c is not None:
            cname = getattr(c, "name", None)
            if isinstance(cname, str) and cname:
                L.check(L.builder_table_codec(h, cname.encode("utf-8")), "table %r" % name)
        tb = TableBuilder(self, name, h, KeyCodec(kind, parts), c, bt)
        self._tables[name] = tb
        return tb

    def build(self) -> Optional[bytes]:
        """Write the database (file: temporary name, sync, rename; the GIL is
        released) and free the builder. Returns the image for ``path=None``.
        Raises :class:`DuplicateKeyError` if a key was added twice."""
        self._check()
        try:
            for tb in self._tables.values():
                tb._flush()
            if self.path is None:
                p, n = c_void_p(), c_size_t()
                L.check(L.builder_build_memory(self._h, byref(p), byref(n)), "build")
                try:
                    return string_at(p.value or 0, n.value) if n.value else b""
                finally:
                    L.free(p)
            L.check(L.builder_build_file(self._h, os.fsencode(self.path)), "build %r" % self.path)
            return None
        finally:
            self._free()

    def abort(self) -> None:
        """Discard everything; no file is written. Idempotent."""
        if not self._done:
            self._free()

    def _free(self) -> None:
        self._done = True
        for tb in self._tables.values():
            tb._keys.clear()
            tb._vals.clear()
        if self._h.value:
            h, self._h = self._h, c_void_p()
            L.builder_free(h)

    def __enter__(self) -> "Builder":
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is None:
            self.build()
        else:
            self.abort()

    def __del__(self) -> None:
        try:
            self.abort()
        except Exception:
            pass


IndexFunc = Callable[[Any, Any], Any]


class TableBuilder:
    """A table being built (from :meth:`Builder.table`)."""

    def __init__(self, b: Builder, name: str, h: c_void_p, key: KeyCodec,
                 codec: Optional[Codec], base: Any = None) -> None:
        self._b = b
        self._base = base  # the base's table, for a table of a merge
        self._h = h
        self.name = name
        self._key = key
        self._enc = key.encode
        self._venc = codec.encode if codec is not None else None
        self._funcs: List[Tuple["IndexBuilder", IndexFunc]] = []
        self._rows = False  # a row was added: an index function declared now would miss it
        # rows waiting for the next library call, keys and values apart
        self._keys: List[bytes] = []
        self._vals: List[bytes] = []
        # the longest key the table takes: a longer one is refused at the
        # call that gives it, not when the batch holding it is sent
        limit = c_size_t()
        L.check(_priv("builder_key_limit")(h, byref(limit)), "table %r" % name)
        self._maxk = limit.value

    def _value(self, v: Any) -> bytes:
        if self._venc is not None:
            return self._venc(v)
        return _as_bytes(v, "value")

    def _entries(self, key: Any, value: Any) -> List[Tuple["IndexBuilder", bytes]]:
        """The row's entries of the function indexes, every function run and
        every index key encoded before anything is added."""
        out = []
        for ib, f in self._funcs:
            r = f(key, value)
            if r is None:
                continue
            enc = ib._key.encode
            if not isinstance(r, list):
                out.append((ib, enc(r)))
                continue
            seen = set()
            for ik in r:
                e = enc(ik)
                if e not in seen:  # a repeated key is one entry of the row, not a duplicate
                    seen.add(e)
                    out.append((ib, e))
        return out

    def _append_row(self, k: bytes, v: bytes, entries: List[Tuple["IndexBuilder", bytes]]) -> None:
        """Add a row with its index entries now, after the rows waiting (the
        library numbers rows in order)."""
        self._flush()
        self._send_row(k, v, entries)

    def _send_row(self, k: bytes, v: bytes, entries: List[Tuple["IndexBuilder", bytes]]) -> None:
        """One row and its index entries in one library call, all or nothing
        (drydb__builder_append_row)."""
        n = len(entries)
        hs = iks = lens = None
        if n:
            hs = (c_uint64 * n)(*[ib._h.value for ib, _ in entries])
            ks = [ik for _, ik in entries]
            iks, lens = b"".join(ks), _lengths(ks)
        L.check(_priv("builder_append_row")(self._h, k, len(k), v, c_size_t(len(v)), c_size_t(n), hs,
                                            iks, lens), "table %r" % self.name)

    def add(self, key: Any, value: Any) -> None:
        """Add a row (any order). Raises :class:`KeyTooLargeError` or
        :class:`BadKeyError` at once; a duplicate key is reported by the build.
        With function indexes the row and its entries are added together or
        not at all (a function that raises adds nothing)."""
        self._b._check()
        k = self._enc(key)
        v = self._value(value)
        self._rows = True
        if self._funcs or len(k) > self._maxk:
            # sent now: a key over the limit is refused by this call, with
            # the library's message naming the row
            self._append_row(k, v, self._entries(key, value) if self._funcs else [])
            return
        self._keys.append(k)
        self._vals.append(v)
        if len(self._keys) >= _CHUNK:
            self._flush()

    def __setitem__(self, key: Any, value: Any) -> None:
        self.add(key, value)

    def delete(self, key: Any) -> None:
        """Delete the row of ``key`` (a table of a :meth:`Builder.merge`
        builder; a key the base lacks is ignored)."""
        self._b._check()
        k = self._enc(key)
        L.check(_merge_call("delete")(self._h, k, c_size_t(len(k))), "table %r" % self.name)

    def __delitem__(self, key: Any) -> None:
        self.delete(key)

    def add_many(self, rows: Iterable[Tuple[Any, Any]]) -> int:
        """Add ``(key, value)`` pairs from any iterable (batched: one library
        call per few thousand rows). Returns the number added. A row refused
        raises from this call, naming it by its number in the table; the rows
        before it are added, none after it."""
        self._b._check()
        # the loop is most of a Python build: names bound once, bytes values
        # taken as they are without a call
        enc, venc, funcs = self._enc, self._venc, self._funcs
        keys, vals = self._keys, self._vals
        kadd, vadd = keys.append, vals.append
        n = 0
        for row in rows:
            try:
                key, value = row
            except (TypeError, ValueError):
                raise TypeError("drydb: add_many() takes (key, value) pairs, got %r" % (row,)) from None
            k = enc(key)
            if venc is not None:
                v = venc(value)
            elif type(value) is bytes:
                v = value
            else:
                v = _as_bytes(value, "value")
            self._rows = True
            if funcs:
                self._append_row(k, v, self._entries(key, value))
            else:
                kadd(k)
                vadd(v)
                if len(keys) >= _CHUNK:
                    self._flush()
            n += 1
        self._flush()
        return n

    def add_columns(self, keys: Any, values: Any) -> int:
        """Add rows given as columns: ``keys`` a NumPy/Arrow array (composite
        tables: a list of columns, one per part), a
        :class:`drydb.columnar.Binary` or a list; ``values`` an Arrow
        binary/string array, a NumPy fixed-width array (row i's value is the
        bytes of ``values[i]``), a ``Binary`` or a list. One library call
        per :data:`drydb.columnar.CHUNK` rows, keys encoded by the library,
        no Python object per row (lists excepted). Array values are stored
        as given (the codec applies to list items only). Returns the number
        of rows. A refused row raises, naming it; the rows before it are
        added. See :mod:`drydb.columnar` for every accepted form."""
        from .columnar import add_columns
        n = add_columns(self, keys, values)
        self._rows = self._rows or n > 0
        return n

    def add_frame(self, frame: Any, key: str, value: Any = None, *, codec: Any = None) -> int:
        """Add the rows of a pandas DataFrame or an Arrow RecordBatch/Table:
        the keys from column ``key``; the values from column ``value`` (a
        name: stored as they are, vectorised) or, with a list of names or
        None (every other column), one dict per row encoded by ``codec``
        (``"json"``, ``"msgpack"``; default the table's): that encoding runs
        per row in Python. Returns the number of rows."""
        from .columnar import add_frame
        n = add_frame(self, frame, key, value, codec)
        self._rows = self._rows or n > 0
        return n

    def _flush(self) -> None:
        keys, vals = self._keys, self._vals
        n = len(keys)
        if not n:
            return
        try:
            klens = _SizeArray(_SIZE_CODE, map(len, keys))
            refused = None
            if max(klens) > self._maxk:
                # add() checks its key; add_many's keys are checked here, one
                # max() per batch rather than a test per row, still within the
                # add_many call that gave them: the rows before the long key
                # go in, then the library refuses it, naming its row
                n = next(j for j, kl in enumerate(klens) if kl > self._maxk)
                refused = keys[n], vals[n]
                del keys[n:], vals[n:], klens[n:]
            if n:
                L.check(L.builder_append_many(self._h, c_size_t(n), b"".join(keys), _ctypes_sizes(klens),
                                              b"".join(vals), _lengths(vals)), "table %r" % self.name)
            if refused:
                self._send_row(refused[0], refused[1], [])
        finally:
            keys.clear()
            vals.clear()

    def index(self, name: str, key: KeySpec = "bytes", *, unique: bool = False,
              func: Optional[IndexFunc] = None) -> "IndexBuilder":
        """Add a secondary index of this table.

        With ``func``, every row added from now on is indexed by
        ``func(key, value)`` (the Python value, before the codec): it returns
        an index key, None (no entry) or a list of index keys (one entry
        each; a key repeated in the list gives one entry). Without it, give
        entries with :meth:`IndexBuilder.add`. An index with ``func`` must be
        declared before the table's first row: later, ``ValueError``.

        On a table of a :meth:`Builder.merge` builder, ``name`` is one of the
        base's indexes (its key kind kept; ``key`` and ``unique`` may be left
        out); ``func`` runs on the rows added in this merge.
        """
        self._b._check()
        if not isinstance(name, str):
            raise TypeError("drydb: index name must be a str")
        if func is not None and not callable(func):
            raise TypeError("drydb: index func must be callable")
        if func is not None and self._rows:
            raise ValueError("drydb: index %r of table %r: declare an index with func= before adding "
                             "rows (the rows added before it would not be indexed)" % (name, self.name))
        h = c_void_p()
        if self._base is not None and name in self._base.indexes:
            kind, parts = self._base.index(name)._key.kind, self._base.index(name)._key.parts
            L.check(_merge_call("merge_index")(self._h, name.encode("utf-8"), byref(h)), "index %r" % name)
        else:
            kind, parts = key_kind(key)
            pbuf = (c_uint8 * len(parts))(*parts) if parts else None
            L.check(L.builder_index(self._h, name.encode("utf-8"), 1 if unique else 0, kind, pbuf,
                                    c_size_t(len(parts)), byref(h)), "index %r" % name)
        ib = IndexBuilder(self, name, h, KeyCodec(kind, parts))
        if func is not None:
            self._funcs.append((ib, func))
        return ib


class IndexBuilder:
    """An index being built (from :meth:`TableBuilder.index`)."""

    def __init__(self, tb: TableBuilder, name: str, h: c_void_p, key: KeyCodec) -> None:
        self._tb = tb
        self._h = h
        self.name = name
        self._key = key

    def add(self, index_key: Any, primary_key: Any) -> None:
        """Add an entry: ``index_key`` points at the row whose key is
        ``primary_key`` (added before or after; the build refuses an entry
        whose row never comes)."""
        self._tb._b._check()
        ik = self._key.encode(index_key)
        pk = self._tb._enc(primary_key)
        L.check(L.builder_index_add(self._h, ik, len(ik), pk, c_size_t(len(pk))),
                "index %r" % self.name)

    def add_many(self, entries: Iterable[Tuple[Any, Any]]) -> int:
        """Add ``(index_key, primary_key)`` pairs. Returns the number added."""
        self._tb._b._check()
        enc, penc = self._key.encode, self._tb._enc
        iks: List[bytes] = []
        pks: List[bytes] = []
        total = 0
        for e in entries:
            ik, pk = e
            iks.append(enc(ik))
            pks.append(penc(pk))
            if len(iks) >= _CHUNK:
                total += self._send(iks, pks)
        total += self._send(iks, pks)
        return total

    def _send(self, iks: List[bytes], pks: List[bytes]) -> int:
        n = len(iks)
        if n:
            L.check(L.builder_index_add_many(self._h, c_size_t(n), b"".join(iks), _lengths(iks),
                                             b"".join(pks), _lengths(pks)), "index %r" % self.name)
            iks.clear()
            pks.clear()
        return n



def convert(src: Union[str, "os.PathLike[str]"], dst: Union[str, "os.PathLike[str]"], to: str, *,
            page_size: int = 0, compression: Optional[str] = None) -> None:
    """Write the database file ``src`` (native or DryDB 1.4) to ``dst`` in
    format ``to`` (``"native"`` or ``"drydb-1.4"``), atomically; ``dst`` may be
    ``src``. The contents are the same, the bytes are not. ``page_size`` 0:
    native keeps src's, 1.4 uses 4096 (1.4 takes 64 to 1048576).
    ``compression``: None keeps src's, or ``"none"`` / ``"zstd"``. What 1.4
    cannot hold (uint64, float64, composite keys) raises :class:`InvalidError`
    naming the table. The GIL is released."""
    if to not in FORMATS:
        raise ValueError("drydb: to must be one of %s, not %r" % (FORMATS, to))
    if not isinstance(page_size, int) or isinstance(page_size, bool) or not 0 <= page_size < 1 << 32:
        raise ValueError("drydb: page_size must be an int in [0, 2^32)")
    comp = None if compression is None else compression.encode()
    f = _priv("convert", release_gil=True, prefix="drydb_")
    L.check(f(os.fsencode(src), os.fsencode(dst), to.encode(), ctypes.c_uint32(page_size), comp),
            "convert %r" % os.fspath(src))
