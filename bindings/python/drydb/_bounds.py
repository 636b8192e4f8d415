"""Range bounds as the library takes them: (key bytes, kind) per end.

A kind is 0 (unbounded), 1 (inclusive) or 2 (exclusive), as in include/drydb.h.
Both the methods of ``_db`` and the fast closures of ``_fast`` compute bounds,
so they live here, below both (``_fast`` would otherwise import ``_db``, which
imports ``_fast``).
"""

from __future__ import annotations

from typing import Any, Dict, Tuple

__all__ = ["UNBOUNDED", "INCLUSIVE", "EXCLUSIVE", "KINDS", "bound_kinds", "prefix_bounds",
           "prefix_end", "partial_end"]

UNBOUNDED, INCLUSIVE, EXCLUSIVE = 0, 1, 2

# The kinds of both ends for each `inclusive` pair a caller may pass, looked
# up once per call instead of two conditionals.
KINDS: Dict[Tuple[bool, bool], Tuple[int, int]] = {
    (True, False): (INCLUSIVE, EXCLUSIVE), (True, True): (INCLUSIVE, INCLUSIVE),
    (False, False): (EXCLUSIVE, EXCLUSIVE), (False, True): (EXCLUSIVE, INCLUSIVE)}


def bound_kinds(start: Any, stop: Any, inclusive: Tuple[bool, bool]) -> Tuple[int, int]:
    """The kinds of both ends of the range [start, stop] (``None``: unbounded)."""
    if not isinstance(inclusive, tuple) or len(inclusive) != 2:
        raise TypeError("drydb: inclusive must be a pair of bools (start, stop), not %r"
                        % (inclusive,))
    lo = UNBOUNDED if start is None else (INCLUSIVE if inclusive[0] else EXCLUSIVE)
    hi = UNBOUNDED if stop is None else (INCLUSIVE if inclusive[1] else EXCLUSIVE)
    return lo, hi


def prefix_bounds(p: bytes) -> Tuple[bytes, int, bytes, int]:
    """The bounds of the keys that start with p (the engine's PrefixBounds)."""
    return (p, INCLUSIVE) + prefix_end(p, INCLUSIVE, False)


def prefix_end(p: bytes, kind: int, lower: bool) -> Tuple[bytes, int]:
    """One end of a range whose key is the key prefix p, every key with the
    prefix counting as equal to it (the engine's PrefixBound): an inclusive
    lower end starts at the first such key, an exclusive one after the last;
    an inclusive upper end runs through the last, an exclusive one stops
    before the first."""
    if lower == (kind == INCLUSIVE):
        return p, kind
    q = p.rstrip(b"\xff")
    if not q:  # nothing sorts after every key with a prefix of 0xFF bytes
        return (b"\xff" * (1 << 15), EXCLUSIVE) if lower else (b"", UNBOUNDED)
    return q[:-1] + bytes((q[-1] + 1,)), (INCLUSIVE if lower else EXCLUSIVE)


def partial_end(kc: Any, key: Any, b: bytes, kind: int, lower: bool) -> Tuple[bytes, int]:
    """A range end (b, kind) encoded from key: a tuple shorter than a
    composite key is a key prefix, meaning "all keys with this prefix" at
    that end; any other key is left as it is."""
    if type(key) is tuple and kind and not kc.raw and len(key) < len(kc.parts):
        return prefix_end(b, kind, lower)
    return b, kind
