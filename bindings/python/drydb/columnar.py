"""Columnar building and reading: NumPy arrays, Arrow arrays, plain buffers.

Rows go to the library as columns, one call per chunk of up to
:data:`CHUNK` rows: the library reads the keys as numbers or as Arrow-layout
binary items and encodes them itself, so no Python object is made per row.
Reads come back the same way: the library copies keys and values into
buffers this module allocates (Python ``bytearray``), inside the call, and
the result wraps them without another copy (``numpy.frombuffer``,
``pyarrow.py_buffer``). Nothing returned points into the database file: a
result stays valid after the database closes, and a close racing a read
gives the whole answer or :class:`ClosedError` (see capi/drydb_columnar.h).
Reads are therefore never zero-copy; the one copy is a ``memcpy`` per row in
the library.

NumPy and PyArrow are optional (``pip install drydb[numpy]``,
``drydb[arrow]``). Without them the calls take ``array.array`` /
``memoryview`` numbers, lists, and :class:`Binary` (a buffer and offsets),
and return ``memoryview`` numbers and :class:`Binary` columns.

Inputs (``keys``; composite tables: a list of such columns, one per part):

* int64 / uint64 / float64 tables: a NumPy array of a dtype that casts
  safely to the key's (``int32`` to ``int64``: yes; ``int64`` to ``uint64``:
  no, refused), an Arrow numeric array, an ``array.array`` or ``memoryview``
  of integers / doubles;
* string / bytes / uuid / ulid tables: an Arrow string, binary (32 or 64-bit
  offsets) or fixed_size_binary array, a :class:`Binary`, or a NumPy array of
  a fixed-width dtype (``S16``, ``V16``, ``(n, 16) uint8``: every row's bytes,
  all of one width);
* any table: a list (or tuple) of Python keys, encoded one by one like
  :meth:`TableBuilder.add_many` (a Python object per row, but the call is
  still one per chunk).

Values: an Arrow binary / string / fixed_size_binary array, a :class:`Binary`,
a NumPy array of a fixed-width dtype (row i's value is the bytes of
``a[i]``), or a list of values (through the table's codec when it has one).
Array values are stored as given: the table's codec is not applied to them.
Arrow arrays with nulls are refused (``ValueError`` naming the first null):
fill them first (``pyarrow.compute.fill_null``). Non-contiguous and
non-native-byte-order NumPy arrays are copied once (vectorised) before use.
"""

from __future__ import annotations

import array
import ctypes
import struct
import sys
from ctypes import (Structure, byref, c_char, c_int, c_size_t, c_uint8, c_uint32, c_uint64,
                    c_void_p)
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import _lib as L
from ._errors import CLOSED, ClosedError
from .keys import (KEY_BYTES, KEY_COMPOSITE, KEY_FLOAT64, KEY_INT64, KEY_STRING, KEY_UINT64,
                   KEY_ULID, KEY_UUID)

__all__ = ["Binary", "CHUNK", "add_columns", "get_many_columns", "range_columns",
           "prefix_columns"]

#: Rows per library call when building (a call holds the builder; the GIL is
#: released during it).
CHUNK = 1 << 20

_RAW, _I64, _U64, _F64, _KEY = 0, 1, 2, 3, 4
_FULL = -2  # DRYDB__FULL
_NUMERIC = {KEY_INT64: (_I64, "q", "int64"), KEY_UINT64: (_U64, "Q", "uint64"),
            KEY_FLOAT64: (_F64, "d", "float64")}
# array.array / memoryview formats accepted per numeric kind (safe casts)
_FORMATS = {KEY_INT64: "bhilqBHI", KEY_UINT64: "BHILQ", KEY_FLOAT64: "fd"}


class _ColIn(Structure):
    """struct drydb__colin."""
    _fields_ = [("data", c_void_p), ("offsets", c_void_p), ("offset_size", c_uint32),
                ("width", c_uint32), ("conv", c_uint32), ("reserved", c_uint32)]


class _ColOut(Structure):
    """struct drydb__colout."""
    _fields_ = [("data", c_void_p), ("cap", c_size_t), ("offsets", c_void_p), ("base", c_uint64),
                ("offset_size", c_uint32), ("width", c_uint32), ("conv", c_uint32),
                ("reserved", c_uint32)]


def _fn(name: str) -> Any:
    """A columnar entry point (capi/columnar.go): long calls, the GIL released."""
    from .builder import _priv
    return _priv(name, True)


def _module(x: Any) -> str:
    return type(x).__module__.split(".", 1)[0]


def _np() -> Any:
    import numpy
    return numpy


def _has(mod: str) -> bool:
    if mod in sys.modules:
        return True
    try:
        __import__(mod)
        return True
    except ImportError:
        return False


class Binary:
    """A column of byte strings as one buffer and offsets (Arrow's layout):
    item i is ``data[offsets[i]:offsets[i + 1]]``.

    ``data`` is any buffer (``bytes``, ``bytearray``, ``memoryview``, a NumPy
    array); ``offsets`` holds ``len + 1`` non-decreasing integers (an
    ``array.array`` or ``memoryview`` of format ``i``/``l``/``q``, a NumPy
    ``int32``/``int64`` array, or a list). Reads return this type for
    variable-length columns without PyArrow; ``to_arrow()`` converts
    without a copy."""

    __slots__ = ("data", "offsets", "string")

    def __init__(self, data: Any, offsets: Any, *, string: bool = False) -> None:
        self.data = data
        if isinstance(offsets, list):
            offsets = array.array("q", offsets)
        self.offsets = offsets
        self.string = string

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, i: Any) -> Any:
        n = len(self)
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(n))]
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("drydb: Binary index out of range")
        b = bytes(memoryview(self.data).cast("B")[int(self.offsets[i]):int(self.offsets[i + 1])])
        return b.decode("utf-8") if self.string else b

    def __iter__(self) -> Any:
        return (self[i] for i in range(len(self)))

    def to_pylist(self) -> List[Any]:
        return list(self)

    def to_arrow(self) -> Any:
        """A ``pyarrow`` string/binary array (large_* for 64-bit offsets)
        sharing this column's buffers."""
        import pyarrow as pa
        om = memoryview(self.offsets)
        wide = om.itemsize == 8
        t = (pa.large_string() if wide else pa.string()) if self.string else \
            (pa.large_binary() if wide else pa.binary())
        return pa.Array.from_buffers(t, len(self), [None, pa.py_buffer(om), pa.py_buffer(self.data)])

    def __repr__(self) -> str:
        return "<drydb.columnar.Binary %d items>" % len(self)


# --- inputs -----------------------------------------------------------------


class _In:
    """An input column ready for the library: its struct for rows from..,
    the objects that own its memory, its length."""

    def __init__(self, n: int, data: int, *, offsets: int = 0, osize: int = 0, width: int = 0,
                 conv: int = _RAW, keep: Any = None) -> None:
        self.n, self.data, self.offsets, self.osize = n, data, offsets, osize
        self.width, self.conv, self.keep = width, conv, keep

    def at(self, start: int) -> _ColIn:
        """The struct for rows from start on (chunks are pointer moves)."""
        if self.offsets:
            return _ColIn(self.data, self.offsets + start * self.osize, self.osize, 0, self.conv, 0)
        return _ColIn(self.data + start * self.width if self.data else None, None, 0,
                      self.width, self.conv, 0)


def _addr(buf: Any) -> Tuple[int, int, Any]:
    """(address, byte length, keep-alive) of a contiguous buffer."""
    m = _module(buf)
    if m == "pyarrow":  # a pyarrow.Buffer (read-only: no memoryview address)
        return buf.address, buf.size, buf
    if m == "numpy":
        a = _np().ascontiguousarray(buf)
        return a.ctypes.data, a.nbytes, a
    if isinstance(buf, bytes):
        # c_char_p of a bytes object points at its own bytes
        return ctypes.cast(ctypes.c_char_p(buf), c_void_p).value or 0, len(buf), buf
    v = memoryview(buf)
    if not v.c_contiguous:
        raise ValueError("drydb: a column buffer must be contiguous")
    if v.readonly:
        return _addr(bytes(v))  # ctypes has no address for read-only views: one copy
    v = v.cast("B") if v.format != "B" or v.ndim != 1 else v
    if v.nbytes == 0:
        return 0, 0, v
    c = (c_char * v.nbytes).from_buffer(v)
    return ctypes.addressof(c), v.nbytes, c


def _nulls(arr: Any, what: str) -> None:
    if arr.null_count:
        import pyarrow.compute as pc
        first = pc.index(arr.is_null(), True).as_py()
        raise ValueError("drydb: %s column has %d nulls (first at row %d): fill them first "
                         "(pyarrow.compute.fill_null)" % (what, arr.null_count, first))


def _arrow_in(arr: Any, what: str, kind: Optional[int]) -> _In:
    import pyarrow as pa
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()  # one vectorised copy when there are several chunks
    _nulls(arr, what)
    t = arr.type
    n = len(arr)
    if pa.types.is_integer(t) or pa.types.is_floating(t):
        if kind not in _NUMERIC:
            raise TypeError("drydb: a %s Arrow array cannot be %s of a %s table"
                            % (t, what, _kind_name(kind)))
        return _numpy_in(arr.to_numpy(zero_copy_only=True), what, kind)
    if pa.types.is_fixed_size_binary(t):
        bufs = arr.buffers()
        w = t.byte_width
        p, size, keep = _addr(bufs[1]) if bufs[1] is not None else (0, 0, None)
        start = arr.offset * w
        if size < start + n * w:
            raise ValueError("drydb: %s column: data buffer too short" % what)
        return _In(n, p + start, width=w, keep=(arr, keep))
    if pa.types.is_string(t) or pa.types.is_binary(t) or pa.types.is_large_string(t) \
            or pa.types.is_large_binary(t):
        if kind in _NUMERIC:
            raise TypeError("drydb: a %s Arrow array cannot be %s of a %s table"
                            % (t, what, _kind_name(kind)))
        osize = 8 if (pa.types.is_large_string(t) or pa.types.is_large_binary(t)) else 4
        bufs = arr.buffers()
        op, osz, okeep = _addr(bufs[1])
        if osz < (arr.offset + n + 1) * osize:
            raise ValueError("drydb: %s column: offsets buffer too short" % what)
        dp, dsz, dkeep = _addr(bufs[2]) if bufs[2] is not None else (0, 0, None)
        offs = memoryview(bufs[1]).cast("B").cast("i" if osize == 4 else "q")
        if n and (offs[arr.offset] < 0 or offs[arr.offset + n] > dsz):
            raise ValueError("drydb: %s column: offsets outside the data buffer" % what)
        if dp == 0:
            dp = op  # no data bytes (every item empty): any valid address
        return _In(n, dp, offsets=op + arr.offset * osize, osize=osize, keep=(arr, okeep, dkeep))
    raise TypeError("drydb: Arrow arrays of type %s cannot be %s" % (t, what))


def _numpy_in(a: Any, what: str, kind: Optional[int]) -> _In:
    np = _np()
    if a.dtype.hasobject:
        raise TypeError("drydb: NumPy object arrays cannot be %s: pass a list, or an Arrow array"
                        % what)
    if kind in _NUMERIC:
        conv, _, name = _NUMERIC[kind]
        if a.ndim != 1:
            raise ValueError("drydb: %s column must be one-dimensional, not of shape %s"
                             % (what, a.shape))
        if not np.can_cast(a.dtype, np.dtype(name), "safe"):
            raise TypeError("drydb: a %s array cannot be %s of a %s table (it does not cast safely: "
                            "convert it with .astype(%r) if its values fit)"
                            % (a.dtype, what, name, name))
        a = np.ascontiguousarray(a, dtype=np.dtype(name).newbyteorder("="))
        return _In(len(a), a.ctypes.data if len(a) else 0, width=8, conv=conv, keep=a)
    if a.ndim == 0:
        raise ValueError("drydb: %s column is a 0-d array" % what)
    a = np.ascontiguousarray(a)
    n = a.shape[0]
    width = a.itemsize
    for d in a.shape[1:]:
        width *= d
    return _In(n, a.ctypes.data if a.size else 0, width=width, keep=a)


def _binary_in(b: Binary, what: str) -> _In:
    om = memoryview(b.offsets)
    if om.format not in ("i", "l", "q") or om.itemsize not in (4, 8):
        om = memoryview(array.array("q", [int(x) for x in b.offsets]))
    op, _, okeep = _addr(om)
    n = len(om) - 1
    if n < 0:
        raise ValueError("drydb: %s column: Binary needs at least one offset" % what)
    dp, dsz, dkeep = _addr(b.data)
    if n and (om[0] < 0 or om[n] > dsz):
        raise ValueError("drydb: %s column: offsets outside the data buffer (%d bytes)"
                         % (what, dsz))
    return _In(n, dp or op, offsets=op, osize=om.itemsize, keep=(b, om, okeep, dkeep))


def _joined(items: Sequence[bytes]) -> Binary:
    """Byte strings made by Python, joined, with their offsets."""
    offs = array.array("q", [0])
    total = 0
    for x in items:
        total += len(x)
        offs.append(total)
    return Binary(b"".join(items), offs)


def _items_in(items: Sequence[bytes], what: str, conv: int = _RAW) -> _In:
    c = _binary_in(_joined(items), what)
    c.conv = conv
    return c


def _plain_numbers_in(m: memoryview, what: str, kind: int) -> _In:
    conv, code, _ = _NUMERIC[kind]
    if m.ndim != 1 or m.format not in _FORMATS[kind]:
        raise TypeError("drydb: a memoryview/array of format %r cannot be %s of a %s table "
                        "(formats %s)" % (m.format, what, _kind_name(kind), ", ".join(_FORMATS[kind])))
    if m.format != code:
        m = memoryview(array.array(code, m.tolist()))  # widened; no NumPy here
    p, _, keep = _addr(m)
    return _In(len(m), p, width=8, conv=conv, keep=keep)


def _kind_name(kind: Optional[int]) -> str:
    from .keys import KIND_NAMES
    return KIND_NAMES.get(kind, "bytes")


def _is_column(x: Any) -> bool:
    m = _module(x)
    return m in ("numpy", "pyarrow", "pandas") or isinstance(x, (Binary, array.array, memoryview))


def _column(x: Any, what: str, kind: Optional[int], encode: Any) -> _In:
    """An input column from any accepted form. kind: the key kind (None for
    values); encode: how list items become bytes."""
    m = _module(x)
    if m == "pandas":
        if _has("pyarrow"):
            import pyarrow as pa
            x, m = pa.Array.from_pandas(x), "pyarrow"
        else:
            x, m = x.to_numpy(), "numpy"
            if x.dtype.hasobject:
                return _items_in([encode(v) for v in x], what, _KEY if kind is not None else _RAW)
    if m == "pyarrow":
        return _arrow_in(x, what, kind)
    if m == "numpy":
        return _numpy_in(x, what, kind)
    if isinstance(x, Binary):
        if kind in _NUMERIC:
            raise TypeError("drydb: a Binary column cannot be %s of a %s table" % (what, _kind_name(kind)))
        return _binary_in(x, what)
    if isinstance(x, (array.array, memoryview)):
        mv = memoryview(x)
        if kind in _NUMERIC:
            return _plain_numbers_in(mv, what, kind)
        if mv.ndim == 0:
            raise ValueError("drydb: %s column is a 0-d buffer" % what)
        p, size, keep = _addr(mv)
        n = mv.shape[0]
        return _In(n, p, width=size // n if n else 0, keep=keep)
    if isinstance(x, (list, tuple)):
        # keys: encoded whole by the key codec (DRYDB__CONV_KEY)
        return _items_in([encode(v) for v in x], what, _KEY if kind is not None else _RAW)
    raise TypeError("drydb: %s must be a NumPy or Arrow array, a drydb.columnar.Binary, an "
                    "array.array/memoryview or a list, not %s" % (what, type(x).__name__))


# --- building ---------------------------------------------------------------


def add_columns(tb: Any, keys: Any, values: Any) -> int:
    """:meth:`TableBuilder.add_columns`."""
    tb._b._check()
    if tb._funcs:
        raise ValueError("drydb: add_columns() cannot run index functions (one Python call per "
                         "row): use add_many(), or IndexBuilder.add_many() for the entries")
    kc = tb._key
    kcols = _key_columns(kc, keys, tb._enc)
    vcol = _column(values, "value", None, tb._value)
    n = kcols[0].n
    for c in kcols[1:] + [vcol]:
        if c.n != n:
            raise ValueError("drydb: add_columns(): columns of %s rows" %
                             " and ".join(str(x.n) for x in kcols + [vcol]))
    tb._flush()  # rows given before go first: rows are numbered in order
    f = _fn("builder_append_columns")
    for start in range(0, n, CHUNK):
        m = min(CHUNK, n - start)
        karr = (_ColIn * len(kcols))(*[c.at(start) for c in kcols])
        rc = f(tb._h, c_size_t(m), c_size_t(len(kcols)), karr, byref(vcol.at(start)))
        if rc:
            raise L.fail(rc, "table %r, add_columns chunk from row %d of the call" % (tb.name, start))
    return n


def _key_columns(kc: Any, keys: Any, encode: Any) -> List[_In]:
    kind = KEY_BYTES if kc.raw else kc.kind
    if kind == KEY_COMPOSITE and isinstance(keys, (list, tuple)) and len(keys) == len(kc.parts) \
            and all(_is_column(x) for x in keys):
        return [_column(x, "key part %d" % i, p, None) for i, (x, p) in enumerate(zip(keys, kc.parts))]
    if kind == KEY_COMPOSITE and not isinstance(keys, (list, tuple)):
        raise TypeError("drydb: keys of a composite table: a list of columns (one per part) or "
                        "a list of tuples")
    return [_column(keys, "key", kind if kind != KEY_COMPOSITE else KEY_BYTES, encode)]


def add_frame(tb: Any, frame: Any, key: str, value: Any = None, codec: Any = None) -> int:
    """:meth:`TableBuilder.add_frame`."""
    m = _module(frame)
    if m == "pandas":
        if value is not None and not isinstance(value, (list, tuple)):
            return add_columns(tb, frame[key], frame[value])
        if _has("pyarrow"):
            import pyarrow as pa
            frame = pa.RecordBatch.from_pandas(frame, preserve_index=False)
        else:
            cols = list(value) if value is not None else [c for c in frame.columns if c != key]
            enc = _codec(tb, codec)
            vals = [enc(dict(zip(cols, row))) for row in frame[cols].itertuples(index=False, name=None)]
            return add_columns(tb, frame[key], _joined(vals))
    elif m != "pyarrow":
        raise TypeError("drydb: add_frame() takes a pandas DataFrame or an Arrow RecordBatch/Table")
    names = frame.schema.names
    if key not in names:
        raise KeyError("drydb: no column %r (columns: %s)" % (key, ", ".join(names)))
    if isinstance(value, str):
        return add_columns(tb, frame.column(key), frame.column(value))
    cols = list(value) if value is not None else [c for c in names if c != key]
    enc = _codec(tb, codec)
    # the codec runs per row (JSON and msgpack have no vectorised Arrow
    # encoder): one dict per row; the keys still go in bulk
    rows = frame.select(cols).to_pylist()
    return add_columns(tb, frame.column(key), _joined([enc(r) for r in rows]))


def _codec(tb: Any, codec: Any) -> Any:
    from .codecs import get_codec
    c = get_codec(codec) if codec is not None else None
    if c is not None:
        return c.encode
    if tb._venc is None:
        raise ValueError("drydb: add_frame() with several value columns needs a codec "
                         "(codec='json' or 'msgpack', here or on the table)")
    return tb._venc


# --- reading ----------------------------------------------------------------


def _output(output: Optional[str]) -> str:
    if output is None:
        return "numpy" if _has("numpy") else "buffers"
    if output not in ("numpy", "arrow", "buffers"):
        raise ValueError("drydb: output must be 'numpy', 'arrow' or 'buffers', not %r" % (output,))
    if output != "buffers" and not _has("pyarrow" if output == "arrow" else "numpy"):
        raise ImportError("drydb: output=%r needs %s (pip install drydb[%s]); output='buffers' "
                          "needs nothing" % (output, output if output == "numpy" else "pyarrow",
                                             output))
    return output


# An uninitialised bytearray of n bytes (CPython's
# PyByteArray_FromStringAndSize(NULL, n)): the library writes every byte a
# result exposes, so zeroing first would only touch the memory twice.
_bytearray = ctypes.pythonapi.PyByteArray_FromStringAndSize
_bytearray.restype = ctypes.py_object
_bytearray.argtypes = [c_void_p, ctypes.c_ssize_t]


def _alloc(n: int) -> bytearray:
    return _bytearray(None, n)  # type: ignore[no-any-return]


class _Out:
    """An output column being filled: bytearrays this module owns, grown
    between calls when the library reports DRYDB__FULL."""

    def __init__(self, rows: int, cap: int, *, fixed: int = 0, conv: int = _RAW) -> None:
        # 4-byte offsets (half the memory to touch), widened to 8 if the
        # data outgrows 2 GiB
        self.rows, self.fixed, self.conv, self.osize = rows, fixed, conv, 4
        self.data = _alloc(rows * fixed if fixed else max(cap, 1))
        self.offs = None if fixed else _alloc((rows + 1) * 4)
        if not fixed and len(self.data) > 0x7FFFFFFF:
            self._widen()
        self.used = 0  # bytes of data written
        self._keep: List[Any] = []

    def col(self, row: int) -> _ColOut:
        """The struct for writing from row on (pointers pinned until done())."""
        d = (c_char * len(self.data)).from_buffer(self.data)
        self._keep.append(d)
        a = ctypes.addressof(d)
        if self.fixed:
            return _ColOut(a + row * self.fixed, len(self.data) - row * self.fixed, None, 0, 0,
                           self.fixed, self.conv, 0)
        o = (c_char * len(self.offs)).from_buffer(self.offs)  # type: ignore[arg-type]
        self._keep.append(o)
        return _ColOut(a + self.used, len(self.data) - self.used,
                       ctypes.addressof(o) + row * self.osize, self.used, self.osize, 0, 0, 0)

    def done(self, rows: int) -> None:
        """Unpins the buffers after a call that wrote up to row `rows`."""
        self._keep.clear()
        if not self.fixed:
            self.used = struct.unpack_from("q" if self.osize == 8 else "i", self.offs,  # type: ignore[arg-type]
                                           rows * self.osize)[0]

    def grow(self, need: int) -> None:
        """Room for at least need more bytes (doubling)."""
        add = max(len(self.data), need)
        if self.osize == 4 and len(self.data) + add > 0x7FFFFFFF:
            self._widen()
        self.data += _alloc(add)

    def _widen(self) -> None:
        """4-byte offsets to 8 (the values outgrew 2 GiB)."""
        o = memoryview(self.offs).cast("i")  # type: ignore[arg-type]
        wide = array.array("q", o.tolist())
        o.release()
        self.offs = bytearray(wide.tobytes())
        self.osize = 8

    def finish(self, rows: int, output: str, string: bool = False, found: Any = None) -> Any:
        """The column of the first rows rows in the output's form."""
        if rows < self.rows:
            # fewer rows than sized for (a range that ended early)
            if self.fixed:
                del self.data[rows * self.fixed:]
            else:
                del self.offs[(rows + 1) * self.osize:]  # type: ignore[index]
        if not self.fixed and len(self.data) > self.used + (self.used >> 2) + 64:
            del self.data[self.used:]
        if self.fixed:
            code = {_I64: "q", _U64: "Q", _F64: "d"}[self.conv]
            if output == "numpy":
                return _np().frombuffer(self.data, dtype=code)
            if output == "arrow":
                import pyarrow as pa
                t = {_I64: pa.int64(), _U64: pa.uint64(), _F64: pa.float64()}[self.conv]
                return pa.Array.from_buffers(t, rows, [None, pa.py_buffer(self.data)])
            return memoryview(self.data).cast(code)
        if output == "arrow":
            import pyarrow as pa
            wide = self.osize == 8
            t = (pa.large_string() if wide else pa.string()) if string else \
                (pa.large_binary() if wide else pa.binary())
            valid = None
            if found is not None and rows and not all_found(found):
                valid = pa.Array.from_buffers(pa.uint8(), rows, [None, pa.py_buffer(found)]) \
                    .cast(pa.bool_()).buffers()[1]
            return pa.Array.from_buffers(t, rows, [valid, pa.py_buffer(self.offs), pa.py_buffer(self.data)])
        offs: Any = memoryview(self.offs).cast("q" if self.osize == 8 else "i")  # type: ignore[arg-type]
        if output == "numpy":
            offs = _np().frombuffer(self.offs, dtype="q" if self.osize == 8 else "i")  # type: ignore[arg-type]
        return Binary(self.data, offs, string=string)


def all_found(found: bytearray) -> bool:
    return found.find(0) < 0


def _key_out(kc: Any, rows: int, output: str) -> Tuple[_Out, bool]:
    """The output column for keys, and whether it holds strings."""
    kind = KEY_BYTES if kc.raw else kc.kind
    if kind in _NUMERIC:
        return _Out(rows, 0, fixed=8, conv=_NUMERIC[kind][0]), False
    width = 16 if kind in (KEY_UUID, KEY_ULID) else 0
    return _Out(rows, rows * (width or 16)), kind == KEY_STRING


def _call(t: Any, f: Any, *args: Any) -> int:
    db = t._db
    if db._closed:
        raise ClosedError("drydb: database is closed", CLOSED)
    return f(t._h, *args)


def get_many_columns(t: Any, keys: Any, output: Optional[str] = None) -> Tuple[Any, Any]:
    """:meth:`Table.get_many_columns`."""
    output = _output(output)
    kcols = _key_columns(t._key, keys, t._key.encode)
    n = kcols[0].n
    for c in kcols[1:]:
        if c.n != n:
            raise ValueError("drydb: get_many_columns(): key columns of different lengths")
    # a column that fills up costs C a second pass over the keys left (the
    # sort of a large batch too): sized as the last call's needed
    vals = _Out(n, min(n * t._vper, max(n * 16, 1 << 28)))
    found = bytearray(n)
    f = _fn("cols_get_many")
    fa = (c_uint8 * max(n, 1)).from_buffer(found if n else bytearray(1))
    done = c_size_t()
    row = 0
    while row < n:
        karr = (_ColIn * len(kcols))(*[c.at(row) for c in kcols])
        vc = vals.col(row)
        rc = _call(t, f, c_size_t(n - row), c_size_t(len(kcols)), karr, byref(vc),
                   ctypes.byref(fa, row), byref(done))
        vals.done(row + done.value)
        if rc not in (0, _FULL):
            del fa
            raise t._fail(rc, "get_many_columns")
        row += done.value
        if rc == _FULL:
            vals.grow(max(len(vals.data) // 2, 64))
    del fa
    if n >= 64:
        t._vper = min(max(-(-vals.used * 9 // (8 * n)), 4), 1 << 12)
    out = vals.finish(n, output, found=found)
    if output in ("numpy", "arrow") and _has("numpy"):
        return out, _np().frombuffer(found, dtype=bool)
    return out, memoryview(found)


def _bounded(t: Any, lo: bytes, lok: int, hi: bytes, hik: int, reverse: bool, keys: bool,
             values: bool, limit: Optional[int], output: str) -> Tuple[Any, Any]:
    if not keys and not values:
        raise ValueError("drydb: keys or values wanted")
    cnt = c_uint64()
    rc = _call(t, L.count, lo, len(lo), lok, hi, len(hi), hik, byref(cnt))
    if rc:
        raise t._fail(rc, "count")
    rows = cnt.value
    if limit is not None:
        if not isinstance(limit, int) or limit < 0:
            raise ValueError("drydb: limit must be an int >= 0")
        rows = min(rows, limit)
    ko, string = _key_out(t._key, rows, output) if keys else (None, False)
    vo = _Out(rows, rows * 16) if values else None
    f = _fn("cols_range")
    got = c_size_t()
    row = 0
    while row < rows:
        kc = ko.col(row) if ko else None
        vc = vo.col(row) if vo else None
        # at most the rows counted: a table does not change while open
        m = min(rows - row, 1 << 24)
        rc = _call(t, f, lo, c_size_t(len(lo)), lok, hi, c_size_t(len(hi)), hik,
                   c_uint32(1 if reverse else 0), c_uint64(row), c_size_t(m),
                   byref(kc) if kc else None, byref(vc) if vc else None, byref(got))
        for o in (ko, vo):
            if o:
                o.done(row + got.value)
        if rc not in (0, _FULL):
            raise t._fail(rc, "range_columns")
        row += got.value
        if rc == _FULL:
            for o in (ko, vo):
                if o and not o.fixed:
                    o.grow(max(len(o.data) // 2, 64))
        elif got.value < m:
            break  # the range ended
    return (ko.finish(row, output, string) if ko else None,
            vo.finish(row, output) if vo else None)


def range_columns(t: Any, start: Any = None, stop: Any = None, *,
                  inclusive: Tuple[bool, bool] = (True, False), reverse: bool = False,
                  keys: bool = True, values: bool = True, limit: Optional[int] = None,
                  output: Optional[str] = None) -> Tuple[Any, Any]:
    """:meth:`Table.range_columns`."""
    output = _output(output)
    lo, lok, hi, hik = t._bounds(start, stop, inclusive)
    return _bounded(t, lo, lok, hi, hik, reverse, keys, values, limit, output)


def prefix_columns(t: Any, prefix: Any, *, reverse: bool = False, keys: bool = True,
                   values: bool = True, limit: Optional[int] = None,
                   output: Optional[str] = None) -> Tuple[Any, Any]:
    """:meth:`Table.prefix_columns`."""
    from ._bounds import prefix_bounds as _prefix_bounds
    output = _output(output)
    lo, lok, hi, hik = _prefix_bounds(t._key.encode_prefix(prefix))
    return _bounded(t, lo, lok, hi, hik, reverse, keys, values, limit, output)
