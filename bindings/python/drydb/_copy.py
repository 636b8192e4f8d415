"""Buffers that the library's copy-out calls fill (capi/drydb_bindings.h).

The binding never reads the file mapping itself: a read that returned a
pointer into it would be copied here, after the call, where a ``close()`` on
another thread may have unmapped the file and a file truncated underneath
raises SIGBUS in the interpreter (the process dies). The copy-out calls copy
their answer into buffers this module owns, inside the library call (which
``close`` waits for, and whose memory faults become ``CorruptError``).

A call fills *columns* (``struct drydb__col``): one field of every row (key,
value, primary key), one after another in the column's buffer, with the
lengths in an array. When a row does not fit, the call answers
``FULL`` and leaves the row's lengths where the next row's would be: the
caller grows the buffer and asks again (see :meth:`Cols.grow_for`).
"""

from __future__ import annotations

from ctypes import Structure, addressof, byref, c_char, c_size_t, c_void_p, sizeof
from typing import Any, List, Tuple

__all__ = ["Col", "COL_SIZE", "FULL", "Cols", "Row"]

#: drydb_bindings.h's DRYDB__FULL: the row that did not fit is reported.
FULL = -2


class Col(Structure):
    """struct drydb__col."""
    _fields_ = [("buf", c_void_p), ("cap", c_size_t), ("lens", c_void_p)]


COL_SIZE = sizeof(Col)
# Buffers larger than this are not kept in a pool after the call that grew them.
_KEEP = 1 << 20


class Cols:
    """Columns for up to ``rows`` rows: ``ref`` (the struct array for the
    library), ``bufs[i]`` (a ``c_char`` array: slicing it gives ``bytes``),
    ``lens[i]`` (``c_size_t`` array). Columns not in ``want`` are passed with
    NULL lengths (the library reads nothing for them). ``big``: a column grew
    past what a pool keeps."""

    __slots__ = ("cols", "ref", "bufs", "lens", "want", "big", "wanted")

    def __init__(self, rows: int, caps: Tuple[int, ...], want: Tuple[bool, ...]) -> None:
        k = len(caps)
        self.cols = (Col * k)()
        self.ref = byref(self.cols)
        self.want = want
        self.big = False
        self.bufs: List[Any] = [None] * k
        self.lens: List[Any] = [(c_size_t * rows)() for _ in range(k)]
        for i in range(k):
            self._set(i, caps[i])

    def _set(self, i: int, cap: int) -> None:
        b = (c_char * max(cap, 1))()
        self.bufs[i] = b
        c = self.cols[i]
        c.buf = addressof(b)
        c.cap = cap
        c.lens = addressof(self.lens[i]) if self.want[i] else None
        self.big = self.big or cap > _KEEP
        # the (buffer, lengths) of the wanted columns, for one-row answers
        self.wanted = [(self.bufs[j], self.lens[j]) for j, w in enumerate(self.want) if w and self.bufs[j]]

    def grow_for(self, row: int, only: Any = None) -> None:
        """After FULL with no row at ``row`` reported: make every wanted
        column (or those in ``only``) hold that row (its lengths are at
        ``row``)."""
        for i, w in enumerate(self.want):
            if w and (only is None or i in only):
                need = self.lens[i][row]
                if need > self.cols[i].cap:
                    self._set(i, max(need, 2 * self.cols[i].cap))

    def set_want(self, want: Tuple[bool, ...]) -> None:
        """Ask for other columns from the next call on."""
        if want != self.want:
            self.want = want
            for i, w in enumerate(want):
                self.cols[i].lens = addressof(self.lens[i]) if w else None


class Row:
    """Reads of one row with one shape (the columns wanted): a pool of
    one-row Cols (list.pop and list.append are atomic under the GIL, so one
    serves one call of one thread at a time)."""

    __slots__ = ("want", "caps", "pool")

    def __init__(self, *want: bool) -> None:
        self.want = want
        self.caps = (_ROW_CAP,) * len(want)
        self.pool: List[Cols] = []

    def read(self, fn: Any, *args: Any) -> Tuple[int, Any]:
        """``fn(*args, cols)``, asked again with grown buffers after FULL:
        (status, the wanted fields as bytes, or None)."""
        pool = self.pool
        c = pool.pop() if pool else Cols(1, self.caps, self.want)
        rc = fn(*args, c.ref)
        while rc == FULL:
            c.grow_for(0)
            rc = fn(*args, c.ref)
        out = None if rc else [b[:n[0]] for b, n in c.wanted]
        if not c.big and len(pool) < 8:
            pool.append(c)
        return rc, out


_ROW_CAP = 4096
