"""Fast paths of Table reads: closures over prebuilt ctypes arguments.

Every call into the library through ctypes costs a few hundred ns, and before
this module the Python work around it (thread-local lookups, attribute lookups
on ``self``, key encoding through several calls, ``c_void_p`` handles that
ctypes re-wraps on every call) cost more than the call itself. A
:class:`~drydb.Table` therefore builds, once, closures specialised for its key
kind and codec, and installs them as instance attributes (``t.get`` is such a
closure; ``Table.get`` stays the documented, equivalent method). What they
rely on:

* The table handle is passed as a prebuilt ctypes argument object whose value
  is the handle (``byref(MEM, handle)``: MEM is a char array at address 0), the
  cheapest argument ctypes converts (a ``c_void_p`` is re-wrapped per call).
* int64/uint64 keys are encoded inline with a precompiled ``struct.Struct``
  (plus the sign bit for int64); other kinds call the key codec once.
  ``get_many`` packs a whole batch of int keys with one ``Struct`` (see
  :func:`_pack_ints`) and calls ``drydb__copy_get_many``, which copies the
  batch's values into one buffer of this binding: values of one length then
  become bytes objects through one ``Struct.unpack_from`` for the whole batch.
* Every read copies its answer inside the library call, into buffers this
  binding owns (``drydb__copy_*`` and ``drydb__py_get*``, see ``_copy.py``):
  nothing here reads the file mapping after a call returned, so a
  ``close()`` on another thread or a file truncated underneath gives an
  error, never a crash. Only ``get(view=True)`` hands out the mapping itself.
* Library functions returning a status are called through a ctypes function
  class without a declared result type (``_lib._PyFunc``): the C ``int`` is read
  directly.
* get and ``[]`` call ``drydb__py_get*`` (capi/copyout.c), which return the
  value as a bytes object made in C by CPython's ``PyBytes_FromStringAndSize``
  (its address is given to the library once, at load: the library does not
  link against Python), or one of two sentinels (absent; ask
  ``drydb__copy_get``). ctypes' ``py_object`` result takes the new reference.
* ``get(view=True)``, ``in`` and count call the library's one-word functions
  (``drydb__get_word*``, ``drydb__count_word*`` in capi/fast.c): the answer
  is the return value (a value's address and length packed in one integer, a
  count), so no out-parameter is converted or read; an int key in the C int
  range is passed as a C int (one function per encoding: every argument costs
  ~30 ns in ctypes). What they hand back (errors, values of 64 KiB or more)
  is asked again through ``drydb_get``/``drydb_count``.
* Out-arguments of the other calls come from a pool of prebuilt ``(byref, byref, memoryview)``
  triples: ``list.pop``/``list.append`` are atomic under the GIL, so a triple
  is used by one call of one thread at a time (per-thread scratch, cheaper
  than a ``threading.local`` lookup). Results are read from it before it is
  returned to the pool.
* Closing the database, or forking, replaces the library functions held by
  the closures with stubs (:meth:`_Paths.kill`), so the closures carry no
  per-call check: a closed table raises :class:`ClosedError`, a forked child
  :class:`ForkError`. The closures keep the table alive (they use it on their
  error paths), so a closure the caller kept is always reached by ``kill``.
* The closures take ``view`` (get) and ``inclusive`` (count) positionally too:
  a Python function with keyword-only parameters is called through CPython's
  generic (slower, ~50 ns) path, a plain one through its inlined fast path.
* Scans (range, prefix, keys, values, items) read their rows with
  ``drydb__copy_range``: 16 rows in the first call, doubling up to 256 per
  call (taking a few rows costs a few rows), no cursor to open or close;
  a long range continues with the last key read as an exclusive bound. The
  keys come back one after another in one buffer, the values in another: the
  keys of an int64/uint64 batch are decoded with one ``array`` conversion,
  values of one length split by one precompiled ``Struct``, and the iterator
  handed out is ``itertools.chain`` over the batches' lists: no Python frame
  per row.
"""

from __future__ import annotations

import os
import struct
import sys
import weakref
from array import array
from ctypes import ArgumentError, byref, c_size_t, c_uint8, c_uint64, py_object
from itertools import accumulate, chain
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from . import _lib as L
from ._bounds import KINDS as _KINDS, bound_kinds, partial_end, prefix_bounds
from ._copy import COL_SIZE, FULL, Cols, Row
from ._errors import CLOSED, NOTFOUND, ClosedError
from .keys import KEY_BYTES, KEY_COMPOSITE, KEY_INT64, KEY_STRING, KEY_UINT64, KEY_UUID

__all__ = ["handle_arg", "TablePaths", "kill_all_forked"]

_MEM: Any = L.MEM
_SIGN = 1 << 63
_BATCH = 256
_pack8 = struct.Struct(">Q").pack
_StructError = struct.error
# array("q"/"Q") holds native-order words: a batch of big-endian keys is
# byte-swapped on little-endian hosts
_LITTLE = sys.byteorder == "little"
_EIGHTS_ARR = (c_size_t * _BATCH)(*([8] * _BATCH))
_EIGHTS = byref(_EIGHTS_ARR)
# drydb__copy_range's max is its 9th argument: passed on the stack, where a
# plain int would be a 4-byte C int under a size_t (its high half undefined)
_MAX_ARG = c_size_t(_BATCH)
# A scan's batches grow from 16 rows, doubling, to _BATCH: taking the first
# few rows of an unbounded range fetches about that many (16 + 32 + 64 for
# 100), while long scans soon pay one call per 256 rows.
_GROWTH = tuple((n, c_size_t(n)) for n in (16, 32, 64, 128, _BATCH))
# Key kinds whose objects drydb__py_range makes (capi/drydb_bindings.h's
# DRYDB__PY_*): raw keys (kind -1) and bytes as bytes, strings, int64/uint64,
# and uuid.UUID where the library makes them (L.UUID)
_PY_KINDS = {-1: 0, KEY_BYTES: 0, KEY_STRING: 1, KEY_INT64: 2, KEY_UINT64: 3}
_PY_KINDS_UUID = {**_PY_KINDS, KEY_UUID: 4}
# drydb__py_fn's fast key types by kind (the same DRYDB__PY_* numbers); bytes
# and raw tables take bytes (kind 0), uuid tables bytes and uuid.UUID (4)
# where the library reads UUIDs (L.UUID), else bytes
_FN_KINDS = {KEY_STRING: 1, KEY_INT64: 2, KEY_UINT64: 3}
_BUILTIN = type(len)
# A batch's buffers: its keys, its values (grown for a row that does not fit)
_KCAP = 32 << 10
_VCAP = 128 << 10
_KEYS_ONLY = (True, False)
_KEYS_VALUES = (True, True)
_VALUES_COL = (1,)
_ONE = Row(True)
_DEFAULT_INCL = (True, False)
# drydb__get_word's results (capi/fast.h): an answer is below 2^63
_WORD_TOP = 1 << 63
_WORD_MISSING = (1 << 64) - 1
_WORD_ASK = (1 << 64) - 2
# what a key that is no C int raises on its way to one (a float or a numpy
# integer: ctypes.ArgumentError; a str: TypeError comparing it)
_LOOSE = (TypeError, ArgumentError)
_ABSENT = object()


def handle_arg(h: int) -> Any:
    """A ctypes argument passing the 64-bit handle ``h`` as a pointer-sized
    value: ``byref`` of the address-0 window at offset ``h`` (as a signed
    offset: handles have the top bit set)."""
    return byref(_MEM, h - (1 << 64) if h >= 1 << 63 else h)


def _u64s(arr: Any) -> Any:
    """A memoryview of a c_size_t array as unsigned 64-bit ints (fast
    ``tolist()`` of a slice)."""
    return memoryview(arr).cast("B").cast("Q")


# --- out-argument pools ---------------------------------------------------------

def _new_out() -> Tuple[Any, Any, Any]:
    o = (c_size_t * 2)()
    return byref(o, 0), byref(o, 8), _u64s(o)


_outs: List[Tuple[Any, Any, Any]] = [_new_out() for _ in range(4)]


class _Batch:
    """Buffers of one batch call (get_many or a scan), pooled like the outs:
    the keys' and values' columns (``c``), the found flags, the counts."""

    __slots__ = ("c", "kl", "mkl", "mvl", "bvl", "rkl", "rvcol", "found", "rfound", "n", "rn")

    def __init__(self) -> None:
        self.c = c = Cols(_BATCH, (_KCAP, _VCAP), _KEYS_VALUES)
        self.kl = c.lens[0]  # get_many's key lengths (an input) share the keys' column
        self.mkl, self.mvl = _u64s(c.lens[0]), _u64s(c.lens[1])
        self.bvl = memoryview(c.lens[1]).cast("B")
        self.rkl = byref(c.lens[0])
        self.rvcol = byref(c.cols, COL_SIZE)  # the values' column alone
        self.found = (c_uint8 * _BATCH)()
        self.rfound = byref(self.found)
        self.n = (c_size_t * 1)()
        self.rn = byref(self.n)


_batches: List[_Batch] = []


def _get_batch() -> _Batch:
    try:
        return _batches.pop()
    except IndexError:
        return _Batch()


def _put_batch(b: _Batch) -> None:
    if len(_batches) < 16 and not b.c.big:
        _batches.append(b)


# --- stubs installed by kill ------------------------------------------------------

def _closed(*_args: Any) -> Any:
    if L._pid and L._pid != os.getpid():
        L._forked()
    raise ClosedError("drydb: database is closed", CLOSED)


def kill_all_forked() -> None:
    """In a forked child: make every live table's closures raise ForkError."""
    for p in list(_live):
        p.kill(L._forked)


_live: "weakref.WeakSet[TablePaths]" = weakref.WeakSet()
L.fork_hooks.append(kill_all_forked)


class TablePaths:
    """The fast closures of one table (see the module docstring).

    Attributes ``get``, ``getitem``, ``contains``, ``get_many``, ``count``,
    ``range``, ``prefix`` are the closures; :meth:`kill` disables them.
    """

    harg: Any  # the table handle as the cheapest ctypes argument
    get: Callable[..., Any]
    getitem: Callable[[Any], Any]
    contains: Callable[[Any], bool]
    get_many: Callable[..., List[Any]]
    count: Callable[..., int]
    range: Callable[[Any, Any, Any, bool, int], Iterator[Any]]
    prefix: Callable[[Any, bool, int], Iterator[Any]]
    batch: Callable[..., Any]  # a scan's batch call (a builtin where L.FN; tests reach it here)
    kill: Callable[[Callable[..., Any]], None]

    def __init__(self, t: Any) -> None:
        _build(self, t)
        _live.add(self)


# --- int64/uint64 batches -------------------------------------------------------
#
# A batch of n int keys is packed by one Struct (">nq" or ">nQ": C-level
# conversion and range checks) and, for int64, the first byte of every word
# (its sign bit) flipped with one strided slice and one translate. struct
# accepts bools as ints, which
# keys must refuse: the 64-bit words of the packed batch are scanned for the
# values 0 and 1 with one word-wise zero test on that big integer ((y - R) &
# ~y & H is nonzero exactly when some word of y is zero, y being the batch
# with each word's lowest bit cleared); only then is every key's type looked
# at.

_lanes_cache: Dict[int, Tuple[Any, Any, int, int, int]] = {}
_XOR80 = bytes(i ^ 0x80 for i in range(256))


def _lanes(n: int) -> Tuple[Any, Any, int, int, int]:
    """For n words: pack of n int64, pack of n uint64, R (1 in every word),
    M (every bit but each word's lowest), H (every word's top bit)."""
    c = _lanes_cache.get(n)
    if c is None:
        r = int.from_bytes(b"\x00\x00\x00\x00\x00\x00\x00\x01" * n, "big")
        c = _lanes_cache[n] = (struct.Struct(">%dq" % n).pack, struct.Struct(">%dQ" % n).pack,
                               r, ((1 << (64 * n)) - 1) ^ r, r << 63)
    return c


def _pack_ints(chunk: List[Any], signed: bool) -> Optional[bytes]:
    """The encoded keys of a batch of ints, concatenated; None when the batch
    holds anything else (the per-key path then raises the proper error)."""
    pq, pQ, r, m, h = _lanes(len(chunk))
    try:
        raw = (pq if signed else pQ)(*chunk)
    except Exception:  # noqa: BLE001 - whatever it is, the per-key path says it properly
        return None
    y = int.from_bytes(raw, "big") & m
    if (y - r) & ~y & h and bool in map(type, chunk):
        return None
    if signed:
        ba = bytearray(raw)
        ba[::8] = ba[::8].translate(_XOR80)
        return bytes(ba)
    return raw


def _memo(cache: Dict[Any, Any], limit: int, key: Any, make: Callable[[], Any]) -> Any:
    """cache[key], made by make() the first time; the cache is emptied when
    it holds more than limit entries (batch shapes are few in practice)."""
    v = cache.get(key)
    if v is None:
        if len(cache) > limit:
            cache.clear()
        v = cache[key] = make()
    return v


_lengths: Dict[Tuple[int, int], bytes] = {}
_splitters: Dict[Tuple[int, int], Any] = {}


def _same_lengths(r: int, n: int) -> bytes:
    """The bytes of n size_t equal to r (a batch whose values all have length r)."""
    return _memo(_lengths, 64, (r, n), lambda: r.to_bytes(8, sys.byteorder) * n)


def _splitter(r: int, n: int) -> Any:
    """Struct.unpack_from of n consecutive r-byte strings."""
    return _memo(_splitters, 64, (r, n), lambda: struct.Struct("%ds" % r * n).unpack_from)


# --- the closures, one builder per operation ---------------------------------------
#
# Each builder below makes the closures of one operation from the table's
# shared prebuilt arguments (_Shared) and returns them with its ``kill``:
# the closures hold the library functions they call in their own cells
# (a closure's cell is read as fast as a local; an attribute of a shared
# object would cost a lookup per call), so each builder is the one that can
# swap them for a stub.

class _Shared:
    """What every operation's closures are built from, made once per table:
    its handle argument, key encoders and value decoder, and the helpers
    several operations call (``get_slow`` is set once built)."""

    __slots__ = ("db", "kc", "vdec", "harg", "hval", "fail", "enc", "off", "bound", "get_slow")

    def __init__(self, t: Any) -> None:
        self.db = t._db
        self.kc = kc = t._key
        self.vdec = t._vdec
        self.hval = t._h.value
        self.harg = handle_arg(self.hval)
        self.fail = t._fail
        self.enc = kc.encode
        # int64/uint64 keys: encoded inline as pack(key + off)
        self.off: Optional[int] = None
        if not kc.raw and kc.kind == KEY_INT64:
            self.off = _SIGN
        elif not kc.raw and kc.kind == KEY_UINT64:
            self.off = 0
        self.bound = _bound_encoder(kc.encode_bound, self.off)
        self.get_slow: Callable[[Any, Any, bool], Any] = _closed


def _bound_encoder(encb: Callable[[Any], bytes], off: Optional[int]) -> Callable[[Any], bytes]:
    """The encoder of a range end (a key, or for composite keys a prefix):
    int keys packed inline."""
    if off is None:
        return encb
    pack, se = _pack8, _StructError

    def bound(key: Any) -> bytes:
        if type(key) is int:
            try:
                return pack(key + off)
            except se:
                pass
        return encb(key)

    return bound


def _build(paths: TablePaths, t: Any) -> None:
    s = _Shared(t)
    s.get_slow, kill_slow = _get_slow(s)
    get, getitem, kill_get = _get(s)
    contains, kill_contains = _contains(s)
    count, kill_count = _count(s)
    get_many, kill_many = _get_many(s)
    range_, prefix, paths.batch, kill_scans = _scans(s)
    kills = (kill_slow, kill_get, kill_contains, kill_count, kill_many, kill_scans)

    def kill(stub: Callable[..., Any]) -> None:
        for k in kills:
            k(stub)

    paths.kill = kill
    paths.harg = s.harg
    paths.get = get
    paths.getitem = getitem
    paths.contains = contains
    paths.count = count
    paths.get_many = get_many
    paths.range = range_
    paths.prefix = prefix


def _get_slow(s: _Shared) -> Tuple[Callable[[Any, Any, bool], Any], Callable[..., None]]:
    db, vdec, harg, fail, enc, off = s.db, s.vdec, s.harg, s.fail, s.enc, s.off
    lget, lcg = L.get, L._copy_get
    pop, push, new_out, pack = _outs.pop, _outs.append, _new_out, _pack8

    def kill(stub: Callable[..., Any]) -> None:
        nonlocal lget, lcg
        lget = lcg = stub

    def get_slow(key: Any, default: Any, view: bool) -> Any:
        """get through drydb__copy_get (drydb_get for a view): what the
        word paths hand back (errors, values of 64 KiB and more, views)."""
        if off is not None:
            try:
                k = pack(key + off)
            except Exception:  # noqa: BLE001 - enc raises the proper error
                k = enc(key)
            if key is True or key is False:
                k = enc(key)  # raises TypeError
        else:
            k = enc(key)
        if not view:
            rc, f = _ONE.read(lcg, harg, k, len(k))
            if rc == 0:
                return f[0] if vdec is None else vdec(f[0])
        else:
            try:
                s = pop()
            except IndexError:
                s = new_out()
            rc = lget(harg, k, len(k), s[0], s[1])
            r = s[2]
            p = r[0]
            n = r[1]
            push(s)
            if rc == 0:
                return db._view(p, n)
        if rc == NOTFOUND:
            return default
        raise fail(rc, "get")

    return get_slow, kill


def _get(s: _Shared) -> Tuple[Callable[..., Any], Callable[[Any], Any], Callable[..., None]]:
    """get and ``[]``."""
    db, vdec, harg, get_slow, enc = s.db, s.vdec, s.harg, s.get_slow, s.enc
    lgw, lpg = L._get_word, L._py_get
    # a view of an int key in the C int range: one function per encoding
    lgwi = L._get_word_u64 if s.off == 0 else L._get_word_i64
    absent, ask_ = L.PY_MISSING, L.PY_ASK
    top, missing = _WORD_TOP, _WORD_MISSING

    def kill(stub: Callable[..., Any]) -> None:
        nonlocal lgw, lpg, lgwi
        lgw = lpg = lgwi = stub

    if s.off is not None:
        # An int key is packed inline (struct refuses what does not fit
        # 64 bits); a view's key in the C int range goes to the library as
        # a C int (ctypes converts a Python int without declared argument
        # types to one): no encoding, no buffer, no out-parameters. Bools
        # and int subclasses (type is not int), and keys out of range, take
        # get_slow, which raises the proper error.
        pack, se, off = _pack8, _StructError, s.off

        def get(key: Any, default: Any = None, view: bool = False) -> Any:
            if type(key) is int:
                if view:
                    if -2147483648 <= key <= 2147483647:
                        w = lgwi(harg, key)
                        if w < top:
                            return db._view(w >> 16, w & 65535)
                        if w == missing:
                            return default
                else:
                    try:
                        k = pack(key + off)
                    except se:
                        return get_slow(key, default, view)
                    v = lpg(harg, k, 8)
                    if v is absent:
                        return default
                    if v is not ask_:
                        return v if vdec is None else vdec(v)
            return get_slow(key, default, view)

        def getitem(key: Any) -> Any:
            if type(key) is int:
                try:
                    v = lpg(harg, pack(key + off), 8)
                except se:
                    v = ask_
                if v is absent:
                    raise KeyError(key)
                if v is not ask_:
                    return v if vdec is None else vdec(v)
            v = get_slow(key, _ABSENT, False)
            if v is _ABSENT:
                raise KeyError(key)
            return v
    else:
        # A string table's str is encoded inline, without a call of the
        # key encoder (~60 ns); other tables' keys, and text that is not
        # UTF-8 (lone surrogates: the encoder raises the proper error), go
        # through the encoder. inline is str only for string tables.
        inline = str if s.kc.kind == KEY_STRING and not s.kc.raw else _NoKey

        def get(key: Any, default: Any = None, view: bool = False) -> Any:
            if type(key) is inline:
                try:
                    k = key.encode()
                except UnicodeEncodeError:
                    k = enc(key)
            else:
                k = enc(key)
            if view:
                w = lgw(harg, k, len(k))
                if w < top:
                    return db._view(w >> 16, w & 65535)
                if w == missing:
                    return default
            else:
                v = lpg(harg, k, len(k))
                if v is absent:
                    return default
                if v is not ask_:
                    return v if vdec is None else vdec(v)
            return get_slow(key, default, view)

        def getitem(key: Any) -> Any:
            k = key.encode() if type(key) is inline and key.isascii() else enc(key)
            v = lpg(harg, k, len(k))
            if v is not absent:
                if v is not ask_:
                    return v if vdec is None else vdec(v)
                v = get_slow(key, _ABSENT, False)
                if v is not _ABSENT:
                    return v
            raise KeyError(key)

    return _builtins(s, get, getitem, kill)


def _builtins(s: _Shared, get: Callable[..., Any], getitem: Callable[[Any], Any],
              kill: Callable[..., None]) -> Tuple[Callable[..., Any], Callable[[Any], Any], Callable[..., None]]:
    """get and [] as builtin functions of the library (drydb__py_fn, see
    capi/copyout.c) where this Python allows them (``L.FN``) and the key kind
    has a fast type: str for string tables, bytes for bytes, raw and uuid
    ones (uuid.UUID too where ``L.UUID``), int for int64/uint64. A call through ctypes costs ~250 ns before
    the library is reached, a builtin's ~30. The builtin answers keys of the
    fast type itself and calls the closure for everything else (and once
    killed, for every call)."""
    kc = s.kc
    kind = 0 if kc.raw or kc.kind == KEY_BYTES else _FN_KINDS.get(kc.kind)
    if kc.kind == KEY_UUID and not kc.raw:  # 16 bytes, and uuid.UUID where the library reads them
        kind = 4 if L.UUID else 0
    if not L.FN or kind is None:
        return get, getitem, kill
    fn, fn_kill = L._py_fn, L._py_fn_kill  # held: after a fork L's are stubs
    vdec = s.vdec
    made = [fn(c_uint64(s.hval), kind, i, py_object(f), py_object(vdec))
            for i, f in enumerate((get, getitem))]
    if not all(isinstance(m, _BUILTIN) for m in made):  # the library refused (ASK): keep the closures
        return get, getitem, kill
    caps = [py_object(m.__self__[0]) for m in made]

    def kill_all(stub: Callable[..., Any]) -> None:
        kill(stub)
        for c in caps:
            fn_kill(c)

    return made[0], made[1], kill_all


class _NoKey:
    """A type no key has: the generic get's inline encoding, off."""


def _contains(s: _Shared) -> Tuple[Callable[[Any], bool], Callable[..., None]]:
    harg, get_slow = s.harg, s.get_slow
    # int keys: packed inline (bound); others: the key codec
    enc = s.bound if s.off is not None else s.enc
    lgw = L._get_word
    top, missing = _WORD_TOP, _WORD_MISSING

    def kill(stub: Callable[..., Any]) -> None:
        nonlocal lgw
        lgw = stub

    def contains(key: Any) -> bool:
        k = enc(key)
        w = lgw(harg, k, len(k))
        if w < top:
            return True
        if w == missing:
            return False
        return get_slow(key, _ABSENT, False) is not _ABSENT

    return contains, kill


def _lohi(inclusive: Any) -> Tuple[int, int]:
    """The kinds of both ends for ``inclusive`` (both bounded)."""
    try:
        lok_hik = _KINDS.get(inclusive) if type(inclusive) is tuple else None
    except TypeError:  # unhashable members: judged by truth value below
        lok_hik = None
    if lok_hik is None:
        bound_kinds(None, None, inclusive)  # raises TypeError
        lok_hik = (1 if inclusive[0] else 2, 1 if inclusive[1] else 2)
    return lok_hik


def _range_bounds(s: _Shared) -> Callable[[Any, Any, Any], Tuple[bytes, int, bytes, int]]:
    """The encoder of a range's bounds (start, stop, inclusive)."""
    kc, bound = s.kc, s.bound
    composite = kc.kind == KEY_COMPOSITE and not kc.raw
    lohi = _lohi

    def bounds(start: Any, stop: Any, inclusive: Any) -> Tuple[bytes, int, bytes, int]:
        lok_hik = lohi(inclusive)
        if start is None:
            lo = b""
            lok = 0
        else:
            lo = bound(start)
            lok = lok_hik[0]
            if composite:
                lo, lok = partial_end(kc, start, lo, lok, True)
        if stop is None:
            hi = b""
            hik = 0
        else:
            hi = bound(stop)
            hik = lok_hik[1]
            if composite:
                hi, hik = partial_end(kc, stop, hi, hik, False)
        return lo, lok, hi, hik

    return bounds


def _count(s: _Shared) -> Tuple[Callable[..., int], Callable[..., None]]:
    harg, fail, off = s.harg, s.fail, s.off
    encp = s.kc.encode_prefix
    bounds = _range_bounds(s)
    lohi = _lohi
    lcount, lcw = L.count, L._count_word
    lcwi = L._count_word_u64 if off == 0 else L._count_word_i64
    pop, push, new_out = _outs.pop, _outs.append, _new_out
    ask = _WORD_ASK
    kinds = _KINDS

    def kill(stub: Callable[..., Any]) -> None:
        nonlocal lcount, lcw, lcwi
        lcount = lcw = lcwi = stub

    def count_slow(lo: bytes, lok: int, hi: bytes, hik: int) -> int:
        """drydb_count, for its error."""
        try:
            s = pop()
        except IndexError:
            s = new_out()
        rc = lcount(harg, lo, len(lo), lok, hi, len(hi), hik, s[0])
        n = s[2][0]
        push(s)
        if rc:
            raise fail(rc, "count")
        return n

    def count_prefix(start: Any, stop: Any, p: Any) -> int:
        if start is not None or stop is not None:
            raise TypeError("drydb: count() takes bounds or prefix=, not both")
        return count_slow(*prefix_bounds(encp(p)))

    def count_any(start: Any = None, stop: Any = None,
                  inclusive: Tuple[bool, bool] = _DEFAULT_INCL, prefix: Any = None) -> int:
        if prefix is not None:
            return count_prefix(start, stop, prefix)
        lo, lok, hi, hik = bounds(start, stop, inclusive)
        w = lcw(harg, lo, len(lo), hi, len(hi), lok | hik << 4)
        if w != ask:
            return w
        return count_slow(lo, lok, hi, hik)

    if off is None:
        return count_any, kill

    # the bound kinds of the last `inclusive` seen, packed as
    # drydb__count_word takes them (by identity: a caller passes the
    # same constant tuple again and again)
    last_incl: Tuple[Any, int] = (_DEFAULT_INCL, 1 | 2 << 4)

    def count(start: Any = None, stop: Any = None,
              inclusive: Tuple[bool, bool] = _DEFAULT_INCL, prefix: Any = None) -> int:
        nonlocal last_incl
        if prefix is not None:
            return count_prefix(start, stop, prefix)
        # two int bounds in the C int range: passed as C ints (see _get);
        # None, bools and the rest go to count_any
        c = last_incl
        if inclusive is c[0]:
            kk = c[1]
        else:
            lok, hik = lohi(inclusive)
            kk = lok | hik << 4
            if type(inclusive) is tuple and inclusive in kinds:
                last_incl = (inclusive, kk)
        try:
            if (-2147483648 <= start <= 2147483647 and -2147483648 <= stop <= 2147483647
                    and start is not True and start is not False
                    and stop is not True and stop is not False):
                w = lcwi(harg, start, stop, kk)
                if w != ask:
                    return w
        except _LOOSE:
            pass
        return count_any(start, stop, inclusive)

    return count, kill


def _get_many(s: _Shared) -> Tuple[Callable[..., List[Any]], Callable[..., None]]:
    vdec, harg, fail, enc, off = s.vdec, s.harg, s.fail, s.enc, s.off
    signed = off == _SIGN
    lgmc = L._copy_get_many

    def kill(stub: Callable[..., Any]) -> None:
        nonlocal lgmc
        lgmc = stub

    def get_many(keys: Any, default: Any = None) -> List[Any]:
        if type(keys) is not list and not isinstance(keys, (list, tuple)):
            keys = list(keys)
        total = len(keys)
        out: List[Any] = []
        b = _get_batch()
        try:
            b.c.set_want(_KEYS_VALUES)
            rvcol, rfound, rn = b.rvcol, b.rfound, b.rn
            for i in range(0, total, _BATCH):
                chunk = keys if total <= _BATCH else keys[i:i + _BATCH]
                n = len(chunk)
                buf = None
                if off is not None:
                    buf = _pack_ints(chunk, signed)
                if buf is not None:
                    klens: Any = _EIGHTS
                else:
                    ks = [enc(k) for k in chunk]
                    b.kl[:n] = [len(k) for k in ks]
                    klens = b.rkl
                    buf = b"".join(ks)
                # the values of the keys found, one after another in the
                # values' column; FULL: the first b.n[0] keys are answered
                rc = lgmc(harg, n, buf, klens, rvcol, rfound, rn)
                if rc == 0:
                    vals = _answers(b, n, default, vdec)
                elif rc == FULL:
                    vals = many_rest(b, n, buf, klens is _EIGHTS, default)
                else:
                    raise fail(rc, "get_many")
                if total <= _BATCH:
                    return vals
                out += vals
        finally:
            _put_batch(b)
        return out

    def many_rest(b: _Batch, n: int, buf: bytes, eights: bool, default: Any) -> List[Any]:
        """get_many of a chunk whose values did not fit the buffer at once:
        the keys not answered asked again, the buffer grown when not even
        one value fits."""
        vals: List[Any] = []
        done = 0
        lens = [8] * n if eights else b.mkl[:n].tolist()
        while True:
            d = b.n[0]
            vals += _answers(b, d, default, vdec)
            done += d
            if done == n:
                return vals
            if d == 0:
                b.c.grow_for(0, _VALUES_COL)
            ko = sum(lens[:done])
            klens = byref(_EIGHTS_ARR if eights else b.kl, 8 * done)
            rc = lgmc(harg, n - done, buf[ko:], klens, b.rvcol, b.rfound, b.rn)
            if rc != 0 and rc != FULL:
                raise fail(rc, "get_many")

    return get_many, kill


def _scans(s: _Shared) -> Tuple[Callable[..., Iterator[Any]], Callable[..., Iterator[Any]], Callable[..., Any],
                                 Callable[..., None]]:
    """range and prefix scans (keys, values, items)."""
    kc, vdec, harg, fail = s.kc, s.vdec, s.harg, s.fail
    encp = kc.encode_prefix
    bounds = _range_bounds(s)
    kind = -1 if kc.raw else kc.kind
    kdec = kc.decode
    lrange, lcw, lpr = L._copy_range, L._count_word, L._py_range
    ask = _WORD_ASK
    # keys C makes into objects (drydb__py_range): UUIDs too where the
    # library was given what it makes them with (L.UUID); others (ULIDs,
    # floats, composites) come as bytes and are decoded here
    kinds = _PY_KINDS_UUID if L.UUID else _PY_KINDS
    pkind = kinds.get(kind, 0)
    kpost = None if kind in kinds else kdec
    pask = L.PY_ASK
    fn_kill = L._py_fn_kill  # held: after a fork L's are stubs

    def batch_slow(lo: bytes, lok: int, hi: bytes, hik: int, flags: int, size: int, what: int) -> Any:
        """drydb__py_range's batch through ctypes (lpr is read at each call:
        kill() swaps it for a stub)."""
        return lpr(harg, lo, len(lo), lok, hi, len(hi), hik, flags, c_size_t(size), what, pkind)

    # the batch call as a builtin of the library where it makes them (as get:
    # ~250 ns of ctypes' argument conversion less a call, three calls for the
    # first 100 rows of a range); it calls batch_slow once killed
    batch, batch_cap = batch_slow, None
    if L.FN:
        made = L._py_fn(c_uint64(s.hval), pkind, 2, py_object(batch_slow), py_object(None))
        if isinstance(made, _BUILTIN):
            batch, batch_cap = made, py_object(made.__self__[0])

    def kill(stub: Callable[..., Any]) -> None:
        nonlocal lrange, lcw, lpr
        lrange = lcw = lpr = stub
        if batch_cap is not None:
            fn_kill(batch_cap)

    def batches(lo: bytes, lok: int, hi: bytes, hik: int, reverse: bool,
                what: int) -> Iterator[Any]:
        """The rows of a range, batch by batch (lists or zips of copies)."""
        flags = 1 if reverse else 0
        want = _KEYS_ONLY if what == 1 else _KEYS_VALUES
        last = b""
        step = 0
        # A range bounded on both sides and shorter than a full batch is
        # counted (in C, no descent past the two bounds') and read in one
        # call of its length + 1 (the + 1 tells the end); others grow from
        # 16 rows, so that taking the first rows of a long range reads
        # about as many.
        first = None
        if lok and hik:
            n = lcw(harg, lo, len(lo), hi, len(hi), lok | hik << 4)
            if n != ask and n < _BATCH:
                first = (n + 1, c_size_t(n + 1))
        while True:
            if first is not None:
                (size, maxarg), first = first, None
            else:
                size, maxarg = _GROWTH[step]
                if step < len(_GROWTH) - 1:
                    step += 1
            # the batch's rows made in C: no Python frame a row (but a
            # decoder's, for keys C leaves as bytes, and a codec's)
            r = batch(lo, lok, hi, hik, flags, size, what)
            if r is not pask:
                rows, last = r
                if rows:
                    kd = kpost if what != 2 else None
                    vd = vdec if what != 1 else None
                    if kd is not None or vd is not None:
                        rows = _decoded(rows, what, kd, vd)
                    yield rows
                if last is None:
                    return
                if reverse:
                    hi, hik = last, 2
                else:
                    lo, lok = last, 2
                continue
            # ASK: an error or a batch C leaves to this path (it says which)
            b = _get_batch()
            try:
                c = b.c
                c.set_want(want)  # keys always: the last one bounds the next call
                while True:
                    # lrange is read at each call: kill() swaps it for a stub
                    rc = lrange(harg, lo, len(lo), lok, hi, len(hi), hik, flags, maxarg, c.ref, b.rn)
                    if rc != FULL or b.n[0]:
                        break
                    c.grow_for(0)  # not even one row fits
                if rc and rc != FULL:
                    raise fail(rc, "range")
                m = b.n[0]
                if m == 0:
                    return
                more = m == size or rc == FULL
                keys, vals, last = _decode(b, m, what, kind, kdec, more)
            finally:
                _put_batch(b)
            if vals is not None and vdec is not None:
                # decoded once the batch is back in the pool: a codec may
                # read through this binding too
                vals = [vdec(v) for v in vals]
            if what == 0:
                yield zip(keys, vals)
            elif what == 1:
                yield keys
            else:
                yield vals
            if not more:
                return
            if reverse:
                hi = last
                hik = 2
            else:
                lo = last
                lok = 2

    def range_(start: Any, stop: Any, inclusive: Any, reverse: bool, what: int) -> Iterator[Any]:
        lo, lok, hi, hik = bounds(start, stop, inclusive)
        return _rows(batches(lo, lok, hi, hik, reverse, what))

    def prefix(p: Any, reverse: bool, what: int) -> Iterator[Any]:
        lo, lok, hi, hik = prefix_bounds(encp(p))
        return _rows(batches(lo, lok, hi, hik, reverse, what))

    return range_, prefix, batch, kill


def _decoded(rows: List[Any], what: int, kd: Any, vd: Any) -> List[Any]:
    """A batch made by drydb__py_range with its keys decoded by kd and its
    values by vd (either may be None: kept as they are)."""
    if what == 1:
        return [kd(k) for k in rows]
    if what == 2:
        return [vd(v) for v in rows]
    if kd is None:
        return [(k, vd(v)) for k, v in rows]
    if vd is None:
        return [(kd(k), v) for k, v in rows]
    return [(kd(k), vd(v)) for k, v in rows]


class Rows(chain):
    """The iterator of a scan: itertools.chain over its batches (rows are
    produced in C, no Python frame per row) plus ``close()``, as a
    generator has: it stops the scan, and the iterator is exhausted after
    it. Scans hold no library resource (each batch is one drydb__copy_range
    call), so dropping an unfinished iterator without closing it is fine too."""

    __slots__ = ("_batches",)

    def close(self) -> None:
        self._batches.close()
        for _ in self:  # the rest of the batch already fetched (<= 256 rows)
            pass


def _rows(batches: Iterator[Any]) -> "Rows":
    r = Rows.from_iterable(batches)
    r._batches = batches
    return r


# --- batch decoding ------------------------------------------------------------
#
# A batch's keys lie one after another in its keys' buffer, its values in the
# values' buffer. The keys of an int64/uint64 table (8 bytes each) are decoded
# with one array conversion; values of one length are split by one
# precompiled Struct; other fields are sliced from one bytes copy of the
# buffer. No Python frame runs per row.

def _fields(buf: Any, lens: List[int]) -> List[bytes]:
    """The fields of lengths ``lens`` lying one after another in buf."""
    data = buf[:sum(lens)]
    offs = list(accumulate(lens))
    return [data[a - n:a] for a, n in zip(offs, lens)]


def _values(b: "_Batch", m: int) -> List[bytes]:
    """The m values of a batch, as bytes."""
    r = b.mvl[0]
    if b.bvl[:8 * m].tobytes() == _same_lengths(r, m):
        return list(_splitter(r, m)(b.c.bufs[1]))
    return _fields(b.c.bufs[1], b.mvl[:m].tolist())


def _answers(b: "_Batch", n: int, default: Any, vdec: Any) -> List[Any]:
    """The values of a get_many call's n keys (default where not found),
    decoded by vdec."""
    if n == 0:
        return []
    fs = bytes(b.found)
    if not fs.count(0, 0, n):
        vals = _values(b, n)
        return vals if vdec is None else [vdec(v) for v in vals]
    vals = _fields(b.c.bufs[1], b.mvl[:n].tolist())
    if vdec is None:
        return [v if f else default for v, f in zip(vals, fs)]
    return [vdec(v) if f else default for v, f in zip(vals, fs)]


def _decode(b: "_Batch", m: int, what: int, kind: int, kdec: Callable[[bytes], Any],
            more: bool) -> Tuple[Any, Any, bytes]:
    """Copies of the m rows of a batch (what: 0 items, 1 keys, 2 values):
    (keys, values, the last key as bytes when more may follow). Keys are
    decoded (None when only values are asked), values bytes (None when only
    keys are asked)."""
    keys: Any = None
    vals: Any = None
    kb = b.c.bufs[0]
    if kind == KEY_INT64 or kind == KEY_UINT64:
        last = kb[8 * m - 8:8 * m] if more else b""
        if what != 2:
            raw: Any = kb[:8 * m]
            if kind == KEY_INT64:
                raw = bytearray(raw)
                raw[::8] = raw[::8].translate(_XOR80)  # flip the sign bits
                a = array("q", raw)
            else:
                a = array("Q", raw)
            if _LITTLE:
                a.byteswap()
            keys = a.tolist()
    elif what == 2:
        # values only: no key is sliced but the last (the next call's bound)
        last = b""
        if more:
            ls = b.mkl[:m].tolist()
            end = sum(ls)
            last = bytes(kb[end - ls[-1]:end])
    else:
        ls = b.mkl[:m].tolist()
        ks = _fields(kb, ls)
        last = ks[-1] if more else b""
        if kind == KEY_STRING:
            keys = [k.decode("utf-8") for k in ks]
        elif kind == KEY_BYTES or kind == -1:
            keys = ks
        else:
            keys = [kdec(k) for k in ks]
    if what != 1:
        vals = _values(b, m)
    return keys, vals, last
