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
  :func:`_pack_ints`) and calls ``drydb__get_many_copy``, which also copies
  the batch's values into one buffer when they fit (64 KiB): values of one
  length then become bytes objects through one ``Struct.unpack_from`` for
  the whole batch; others are read through their pointers.
* Library functions returning a status are called through a ctypes function
  class without a declared result type (``_lib._PyFunc``): the C ``int`` is read
  directly.
* get and ``[]`` call ``drydb__py_get*`` (capi/fast.c), which return the
  value as a bytes object made in C by CPython's ``PyBytes_FromStringAndSize``
  (its address is given to the library once, at load: the library does not
  link against Python), or one of two sentinels (absent; ask ``drydb_get``).
  ctypes' ``py_object`` result takes the new reference.
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
  ``drydb_range``: up to 256 rows per call, no cursor to open or close; a long
  range continues with the last key read as an exclusive bound. Each batch is
  copied before the next call, so compressed tables (whose rows live in a
  per-thread buffer) work the same way. The batch is turned into a list with
  a few C-level operations (array slices read through memoryviews; the keys
  of an int64/uint64 batch, which lie in one array when the batch comes from
  one leaf, decoded with one ``unpack``), and the iterator handed out is
  ``itertools.chain`` over those lists: no Python frame per row.
"""

from __future__ import annotations

import os
import struct
import sys
import weakref
from array import array
from ctypes import ArgumentError, byref, c_size_t, c_uint8
from itertools import chain
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from . import _lib as L
from ._errors import CLOSED, NOTFOUND, ClosedError
from .keys import KEY_BYTES, KEY_INT64, KEY_STRING, KEY_UINT64

__all__ = ["handle_arg", "TablePaths", "kill_all_forked"]

_MEM: Any = L.MEM
_SIGN = 1 << 63
_BATCH = 256
_pack8 = struct.Struct(">Q").pack
_StructError = struct.error
# 0x80 then seven zero bytes, 256 times: xor with it flips the sign bit of
# every 8-byte big-endian word (shifted right for fewer words)
_LITTLE = sys.byteorder == "little"
_EIGHTS = byref((c_size_t * _BATCH)(*([8] * _BATCH)))
# drydb_range's max is its 9th argument: passed on the stack, where a plain
# int would be a 4-byte C int under a size_t (its high half undefined)
_MAX_ARG = c_size_t(_BATCH)
# get_many's copy buffer (drydb__get_many_copy): a batch of values up to this
# size comes back in one piece; its cap is the 9th argument, as _MAX_ARG
_COPY_CAP = 64 << 10
_COPY_ARG = c_size_t(_COPY_CAP)
# The whole address space as bytes, for Struct.unpack_from at an address
_MEMB = memoryview(_MEM).cast("B")
_DEFAULT_INCL = (True, False)
# drydb__get_word's results (capi/fast.h): an answer is below 2^63
_WORD_TOP = 1 << 63
_WORD_MISSING = (1 << 64) - 1
_WORD_ASK = (1 << 64) - 2
# what a key that is no C int raises on its way to one (a float or a numpy
# integer: ctypes.ArgumentError; a str: TypeError comparing it)
_LOOSE = (TypeError, ArgumentError)
_ABSENT = object()
_KINDS = {(True, False): (1, 2), (True, True): (1, 1), (False, False): (2, 2),
          (False, True): (2, 1)}


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
    """Arrays of one batch call (get_many or a scan), pooled like the outs."""

    __slots__ = ("ks", "kl", "vs", "vl", "found", "n", "rks", "rkl", "rvs", "rvl", "rn",
                 "rfound", "mks", "mkl", "mvs", "mvl", "bks", "bvs", "bvl", "cp", "rcp")

    def __init__(self) -> None:
        self.ks, self.kl = (c_size_t * _BATCH)(), (c_size_t * _BATCH)()
        self.vs, self.vl = (c_size_t * _BATCH)(), (c_size_t * _BATCH)()
        self.found = (c_uint8 * _BATCH)()
        self.n = (c_size_t * 1)()
        self.rks, self.rkl = byref(self.ks), byref(self.kl)
        self.rvs, self.rvl = byref(self.vs), byref(self.vl)
        self.rn = byref(self.n)
        self.rfound = byref(self.found)
        self.mks, self.mkl = _u64s(self.ks), _u64s(self.kl)
        self.mvs, self.mvl = _u64s(self.vs), _u64s(self.vl)
        self.bks = memoryview(self.ks).cast("B")
        self.bvs, self.bvl = memoryview(self.vs).cast("B"), memoryview(self.vl).cast("B")
        self.cp = (c_uint8 * _COPY_CAP)()
        self.rcp = byref(self.cp)


_batches: List[_Batch] = []


def _get_batch() -> _Batch:
    try:
        return _batches.pop()
    except IndexError:
        return _Batch()


def _put_batch(b: _Batch) -> None:
    if len(_batches) < 16:
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

    get: Callable[..., Any]
    getitem: Callable[[Any], Any]
    contains: Callable[[Any], bool]
    get_many: Callable[..., List[Any]]
    count: Callable[..., int]
    range: Callable[[Any, Any, Any, bool, int], Iterator[Any]]
    prefix: Callable[[Any, bool, int], Iterator[Any]]
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
_unpackers: Dict[int, Any] = {}


def _same_lengths(r: int, n: int) -> bytes:
    """The bytes of n size_t equal to r (a batch whose values all have length r)."""
    return _memo(_lengths, 64, (r, n), lambda: r.to_bytes(8, sys.byteorder) * n)


def _splitter(r: int, n: int) -> Any:
    """Struct.unpack_from of n consecutive r-byte strings."""
    return _memo(_splitters, 64, (r, n), lambda: struct.Struct("%ds" % r * n).unpack_from)


def _unpacker(r: int) -> Any:
    """Struct.unpack_from of one r-byte string."""
    return _memo(_unpackers, 256, r, lambda: struct.Struct("%ds" % r).unpack_from)


def _prefix_bounds(p: bytes) -> Tuple[bytes, int, bytes, int]:
    """The bounds of the keys that start with p (the engine's PrefixBounds)."""
    q = p.rstrip(b"\xff")
    if not q:
        return p, 1, b"", 0
    return p, 1, q[:-1] + bytes((q[-1] + 1,)), 2


def _build(paths: TablePaths, t: Any) -> None:
    db = t._db
    kc = t._key
    vdec = t._vdec
    harg = handle_arg(t._h.value)
    lget, lgm, lcount, lrange = L.get, L.get_many, L.count, L.range
    lgw, lcw = L._get_word, L._count_word
    lgmc = L._get_many_copy
    lpg = L._py_get
    cap = _COPY_ARG
    # int keys as C ints, one function per encoding (see get below)
    if not kc.raw and kc.kind == KEY_UINT64:
        lgwi, lcwi, lpgi = L._get_word_u64, L._count_word_u64, L._py_get_u64
    else:
        lgwi, lcwi, lpgi = L._get_word_i64, L._count_word_i64, L._py_get_i64
    absent, ask_ = L.PY_MISSING, L.PY_ASK
    top, missing, ask = _WORD_TOP, _WORD_MISSING, _WORD_ASK
    mem = _MEM
    memb = _MEMB
    pop, push = _outs.pop, _outs.append
    new_out = _new_out
    fail = t._fail
    enc = kc.encode
    encb = kc.encode_bound
    encp = kc.encode_prefix
    se = _StructError
    pack = _pack8
    kinds = _KINDS
    # int64/uint64 keys: encoded inline as pack(key + off)
    off: Optional[int] = None
    if not kc.raw and kc.kind == KEY_INT64:
        off = _SIGN
    elif not kc.raw and kc.kind == KEY_UINT64:
        off = 0

    def kill(stub: Callable[..., Any]) -> None:
        nonlocal lget, lgm, lcount, lrange, lgw, lgwi, lcw, lcwi, lgmc, lpg, lpgi
        lget = lgm = lcount = lrange = lgw = lgwi = lcw = lcwi = lgmc = lpg = lpgi = stub

    paths.kill = kill

    def get_slow(key: Any, default: Any, view: bool) -> Any:
        """get through drydb_get: what the word paths hand back (errors,
        values of 64 KiB and more, views)."""
        if off is not None:
            try:
                k = pack(key + off)
            except Exception:  # noqa: BLE001 - enc raises the proper error
                k = enc(key)
            if key is True or key is False:
                k = enc(key)  # raises TypeError
        else:
            k = enc(key)
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
            if view:
                return db._view(p, n)
            if vdec is None:
                return mem[p:p + n]
            return vdec(mem[p:p + n])
        if rc == NOTFOUND:
            return default
        raise fail(rc, "get")

    if off is not None:
        # A key in the C int range goes to the library as a C int (ctypes
        # converts a Python int without declared argument types to one):
        # no encoding, no buffer, no out-parameters. Bools (ints to ctypes)
        # are refused by identity; anything that fails the comparison or
        # the conversion takes get_slow, which raises the proper error.
        def get(key: Any, default: Any = None, view: bool = False) -> Any:
            try:
                if -2147483648 <= key <= 2147483647 and key is not True and key is not False:
                    if view:
                        w = lgwi(harg, key)
                        if w < top:
                            return db._view(w >> 16, w & 65535)
                        if w == missing:
                            return default
                    else:
                        # the value's bytes made in C (drydb__py_get_i64)
                        v = lpgi(harg, key)
                        if v is absent:
                            return default
                        if v is not ask_:
                            return v if vdec is None else vdec(v)
            except _LOOSE:
                pass
            return get_slow(key, default, view)

        def getitem(key: Any) -> Any:
            try:
                if -2147483648 <= key <= 2147483647 and key is not True and key is not False:
                    v = lpgi(harg, key)
                    if v is absent:
                        raise KeyError(key)
                    if v is not ask_:
                        return v if vdec is None else vdec(v)
            except _LOOSE:
                pass
            v = get_slow(key, _ABSENT, False)
            if v is _ABSENT:
                raise KeyError(key)
            return v

        def bound(key: Any) -> bytes:
            if type(key) is int:
                try:
                    return pack(key + off)
                except se:
                    pass
            return encb(key)
    else:
        def get(key: Any, default: Any = None, view: bool = False) -> Any:
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
            k = enc(key)
            v = lpg(harg, k, len(k))
            if v is not absent:
                if v is not ask_:
                    return v if vdec is None else vdec(v)
                v = get_slow(key, _ABSENT, False)
                if v is not _ABSENT:
                    return v
            raise KeyError(key)

        bound = encb

    def contains(key: Any) -> bool:
        k = bound(key) if off is not None else enc(key)
        w = lgw(harg, k, len(k))
        if w < top:
            return True
        if w == missing:
            return False
        return get_slow(key, _ABSENT, False) is not _ABSENT

    def lohi(inclusive: Any) -> Tuple[int, int]:
        try:
            lok_hik = kinds.get(inclusive) if type(inclusive) is tuple else None
        except TypeError:  # unhashable members: judged by truth value below
            lok_hik = None
        if lok_hik is None:
            from ._db import _bound_kinds
            _bound_kinds(None, None, inclusive)  # raises TypeError
            lok_hik = (1 if inclusive[0] else 2, 1 if inclusive[1] else 2)
        return lok_hik

    def bounds(start: Any, stop: Any, inclusive: Any) -> Tuple[bytes, int, bytes, int]:
        lok_hik = lohi(inclusive)
        if start is None:
            lo = b""
            lok = 0
        else:
            lo = bound(start)
            lok = lok_hik[0]
        if stop is None:
            hi = b""
            hik = 0
        else:
            hi = bound(stop)
            hik = lok_hik[1]
        return lo, lok, hi, hik

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

    def count_any(start: Any = None, stop: Any = None,
                  inclusive: Tuple[bool, bool] = _DEFAULT_INCL) -> int:
        lo, lok, hi, hik = bounds(start, stop, inclusive)
        w = lcw(harg, lo, len(lo), hi, len(hi), lok | hik << 4)
        if w != ask:
            return w
        return count_slow(lo, lok, hi, hik)

    if off is None:
        count = count_any
    else:
        # the bound kinds of the last `inclusive` seen, packed as
        # drydb__count_word takes them (by identity: a caller passes the
        # same constant tuple again and again)
        last_incl: Tuple[Any, int] = (_DEFAULT_INCL, 1 | 2 << 4)

        def count(start: Any = None, stop: Any = None,
                  inclusive: Tuple[bool, bool] = _DEFAULT_INCL) -> int:
            nonlocal last_incl
            # two int bounds in the C int range: passed as C ints (see get);
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

    signed = off == _SIGN

    def get_many(keys: Any, default: Any = None) -> List[Any]:
        if type(keys) is not list and not isinstance(keys, (list, tuple)):
            keys = list(keys)
        total = len(keys)
        out: List[Any] = []
        b = _get_batch()
        try:
            rvs, rvl, found, rfound, mvs, mvl = b.rvs, b.rvl, b.found, b.rfound, b.mvs, b.mvl
            cp, rcp = b.cp, b.rcp
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
                # the values copied into b.cp as well when they fit (rc 0),
                # else (rc -1) read in place through the pointers
                rc = lgmc(harg, n, buf, klens, rvs, rvl, rfound, rcp, cap)
                if rc > 0:
                    raise fail(rc, "get_many")
                fs = bytes(found)
                if rc == 0 and not fs.count(0, 0, n) and \
                        b.bvl[:8 * n].tobytes() == _same_lengths(mvl[0], n):
                    # every key found, values of one length (fixed-size
                    # rows): n bytes objects from one Struct call
                    vals = list(_splitter(mvl[0], n)(cp))
                    if vdec is not None:
                        vals = [vdec(v) for v in vals]
                elif fs.count(0, 0, n):
                    ps = mvs[:n].tolist()
                    ls = mvl[:n].tolist()
                    vals = [mem[p:p + m] if f else default for p, m, f in zip(ps, ls, fs)]
                    if vdec is not None:
                        vals = [vdec(v) if f else v for v, f in zip(vals, fs)]
                else:
                    r = mvl[0]
                    if b.bvl[:8 * n].tobytes() == _same_lengths(r, n):
                        # one length (fixed-size rows): one Struct, no zip
                        u = _unpacker(r)
                        vals = [u(memb, p)[0] for p in mvs[:n]]
                    else:
                        vals = [mem[p:p + m] for p, m in zip(mvs[:n].tolist(), mvl[:n].tolist())]
                    if vdec is not None:
                        # decoded only once every value is copied: a codec may call
                        # the library, which reuses this thread's buffer
                        vals = [vdec(v) for v in vals]
                if total <= _BATCH:
                    return vals
                out += vals
        finally:
            _put_batch(b)
        return out

    kind = -1 if kc.raw else kc.kind
    kdec = kc.decode
    maxarg = _MAX_ARG

    def batches(lo: bytes, lok: int, hi: bytes, hik: int, reverse: bool,
                what: int) -> Iterator[Any]:
        """The rows of a range, batch by batch (lists or zips of copies)."""
        flags = 1 if reverse else 0
        step = -8 if reverse else 8
        last = b""
        while True:
            b = _get_batch()
            try:
                # lrange is read at each call: kill() swaps it for a stub
                if what == 1:
                    rc = lrange(harg, lo, len(lo), lok, hi, len(hi), hik, flags, maxarg,
                                b.rks, b.rkl, None, None, b.rn)
                else:
                    rc = lrange(harg, lo, len(lo), lok, hi, len(hi), hik, flags, maxarg,
                                b.rks, b.rkl, b.rvs, b.rvl, b.rn)
                if rc:
                    raise fail(rc, "range")
                m = b.n[0]
                if m == 0:
                    return
                if m == _BATCH:  # maybe more: the last key read bounds the next call
                    kp = b.mks[m - 1]
                    last = mem[kp:kp + b.mkl[m - 1]]
                keys, vals = _decode(mem, b, m, step, what, kind, kdec)
            finally:
                _put_batch(b)
            if vals is not None and vdec is not None:
                # decoded only once the batch is copied: a codec may call the
                # library, which reuses this thread's buffer
                vals = [vdec(v) for v in vals]
            if what == 0:
                yield zip(keys, vals)
            elif what == 1:
                yield keys
            else:
                yield vals
            if m < _BATCH:
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
        lo, lok, hi, hik = _prefix_bounds(encp(p))
        return _rows(batches(lo, lok, hi, hik, reverse, what))

    paths.get = get
    paths.getitem = getitem
    paths.contains = contains
    paths.count = count
    paths.get_many = get_many
    paths.range = range_
    paths.prefix = prefix


class Rows(chain):
    """The iterator of a scan: itertools.chain over its batches (rows are
    produced in C, no Python frame per row) plus ``close()``, as a
    generator has: it stops the scan, and the iterator is exhausted after
    it. Scans hold no library resource (each batch is one drydb_range call),
    so dropping an unfinished iterator without closing it is fine too."""

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
# The pointers a batch call returns are read as one big integer (the array's
# bytes, little-endian): m words w_0..w_{m-1} equal first + step*i exactly when
# that integer equals first*R_m + step*C_m (R_m = sum 2^(64i), C_m = sum
# i*2^(64i)), and the lowest set bit of the xor of the two says where the
# progression breaks. Keys of 8-byte-key tables lie in one array per leaf
# (key-array pages, docs/FORMAT.md), so a batch is a few such runs; each is
# copied with one slice and decoded with one unpack. Values of equal length
# stored at a constant stride (fixed-size rows) are likewise copied with one
# slice and split by one precompiled Struct. Anything else (or runs too short
# to pay off) takes the per-row path; the checks are exact, so the result never
# depends on the layout.

_M64 = (1 << 64) - 1
_MIN_RUN = 8
_progs: Dict[int, Tuple[int, int, int]] = {}
_fmts: Dict[Tuple[int, int, int], Any] = {}


def _prog(n: int) -> Tuple[int, int, int]:
    """R_n, C_n and 8*C_n."""
    rc = _progs.get(n)
    if rc is None:
        r = int.from_bytes(b"\x01\x00\x00\x00\x00\x00\x00\x00" * n, "little")
        c = int.from_bytes(b"".join(i.to_bytes(8, "little") for i in range(n)), "little")
        rc = _progs[n] = (r, c, 8 * c)
    return rc


def _split_fixed(r: int, gap: int, n: int) -> Any:
    """Struct.unpack splitting n values of r bytes separated by gap bytes."""
    key = (r, gap, n)
    f = _fmts.get(key)
    if f is None:
        f = struct.Struct(("%ds%dx" % (r, gap)) * (n - 1) + "%ds" % r).unpack
        if len(_fmts) > 256:
            _fmts.clear()
        _fmts[key] = f
    return f


def _fixed_keys(mem: Any, b: "_Batch", m: int, step: int, signed: bool,
                want: bool = True) -> Tuple[List[Any], List[Tuple[int, int]]]:
    """Keys of an 8-byte-key batch, decoded (unless not ``want``ed), and the
    runs ``(i, j)`` the batch splits into (one per leaf)."""
    x = int.from_bytes(b.bks[:8 * m], "little")
    keys: List[Any] = []
    runs = []
    i = 0
    short = False
    while i < m:
        n = m - i
        k0 = x & _M64
        r, _c, c8 = _prog(n)
        d = x ^ (k0 * r + c8 if step > 0 else k0 * r - c8)
        t = n if d == 0 else ((d & -d).bit_length() - 1) >> 6
        if t < _MIN_RUN and t < n:
            # a short run: the tail of a leaf (its keys one by one, then look
            # for a run again), or no runs at all (two short runs in a row:
            # the rest one by one; so a batch costs at most two progression
            # checks per run of _MIN_RUN or more rows)
            if short:
                t = n
            short = True
            if want:
                fb = int.from_bytes
                rest = [fb(mem[p:p + 8], "big") for p in b.mks[i:i + t].tolist()]
                keys += [k - _SIGN for k in rest] if signed else rest
            runs.append((i, i + t))
            x >>= 64 * t
            i += t
            continue
        short = False
        if want:
            lo = k0 if step > 0 else k0 + step * (t - 1)
            if signed:
                raw: Any = bytearray(mem[lo:lo + 8 * t])
                raw[::8] = raw[::8].translate(_XOR80)  # flip the sign bits
                a = array("q", raw)
            else:
                a = array("Q", mem[lo:lo + 8 * t])
            if _LITTLE:
                a.byteswap()
            if step < 0:
                a.reverse()
            keys += a.tolist()
        runs.append((i, i + t))
        x >>= 64 * t
        i += t
    return keys, runs


def _values(mem: Any, b: "_Batch", i: int, j: int) -> List[bytes]:
    """Copies of values i..j-1 of a batch (one slice and one unpack when they
    have one length and lie at a constant stride)."""
    n = j - i
    if n >= _MIN_RUN:
        x = int.from_bytes(b.bvs[8 * i:8 * j], "little")
        v0 = x & _M64
        st = ((x >> 64) & _M64) - v0
        r = b.vl[i]
        gap = (st if st > 0 else -st) - r
        if gap >= 0 and r < 1 << 20:
            rr, cc, _c8 = _prog(n)
            if x == v0 * rr + st * cc and b.bvl[8 * i:8 * j].tobytes() == r.to_bytes(8, "little") * n:
                lo = v0 if st > 0 else v0 + st * (n - 1)
                vals = list(_split_fixed(r, gap, n)(mem[lo:lo + (r + gap) * (n - 1) + r]))
                if st < 0:
                    vals.reverse()
                return vals
    return [mem[p:p + q] for p, q in zip(b.mvs[i:j].tolist(), b.mvl[i:j].tolist())]


def _decode(mem: Any, b: "_Batch", m: int, step: int, what: int, kind: int,
            kdec: Callable[[bytes], Any]) -> Tuple[Any, Any]:
    """Copies of the m rows of a batch (what: 0 items, 1 keys, 2 values):
    (keys, values). Keys are decoded (None when only values are asked, but
    for 8-byte keys, whose runs also place the values); values are bytes
    (None when only keys are asked)."""
    keys: Any = None
    vals: Any = None
    if kind == KEY_INT64 or kind == KEY_UINT64:
        keys, runs = _fixed_keys(mem, b, m, step, kind == KEY_INT64, what != 2)
        if what == 2:
            keys = None
        if what != 1:
            if len(runs) == 1:
                vals = _values(mem, b, 0, m)
            else:
                vals = []
                for i, j in runs:
                    vals += _values(mem, b, i, j)
    else:
        if what != 1:
            vals = _values(mem, b, 0, m)
        if what != 2:
            kp = b.mks[:m].tolist()
            kl = b.mkl[:m].tolist()
            if kind == KEY_STRING:
                keys = [mem[p:p + q].decode("utf-8") for p, q in zip(kp, kl)]
            elif kind == KEY_BYTES or kind == -1:
                keys = [mem[p:p + q] for p, q in zip(kp, kl)]
            else:
                keys = [kdec(mem[p:p + q]) for p, q in zip(kp, kl)]
    return keys, vals
