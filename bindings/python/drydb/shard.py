"""Sharded databases: a manifest file naming shard files, opened as one
database with :func:`drydb.open` (docs/FORMAT.md, "Sharded databases").

Build the shards with :class:`drydb.Builder` (each an ordinary database
holding one key range of every table), then write the manifest::

    drydb.write_range_manifest("db.manifest", ["part-0.drydb", "part-1.drydb"])

:mod:`drydb.spark` does both from a Spark DataFrame.
"""

import ctypes
import os
from typing import List, Sequence, Union

from . import _lib

PathLike = Union[str, "os.PathLike[str]"]


def _fn(name: str, *argtypes: object) -> "ctypes._CFuncPtr":
    _lib.load()
    # Looked up here rather than in _lib's table, so that the rest of the
    # binding still loads a library without sharding.
    fn = getattr(ctypes.CDLL(_lib.library_path()), name)
    fn.restype = ctypes.c_int
    fn.argtypes = list(argtypes)
    return fn


def _write_manifest(name: str, path: PathLike, shards: Sequence[PathLike]) -> None:
    fn = _fn(name, ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t)
    names = [os.fsencode(s) for s in shards]
    arr = (ctypes.c_char_p * max(len(names), 1))(*names)
    _lib.check(fn(os.fsencode(path), arr, len(names)), name[len("drydb_"):])


def write_range_manifest(path: PathLike, shards: Sequence[PathLike]) -> None:
    """Write the manifest at ``path`` for range shards ``shards``: file names
    relative to the manifest's directory, in key order (every key of a shard
    above every key of the shard before it, in each table). The library reads
    each shard's first and last keys and row counts; the manifest appears
    atomically. Raises :class:`drydb.CorruptError` for shards out of order,
    :class:`drydb.IOFailure` for a missing one."""
    _write_manifest("drydb_write_range_manifest", path, shards)


def write_hash_manifest(path: PathLike, shards: Sequence[PathLike]) -> None:
    """Write the manifest at ``path`` for hash shards ``shards``: shard ``i``
    holds, in every table, the keys whose :func:`shard_slots` slot among
    ``len(shards)`` is ``i``. Hash tables serve get, get_many, count, rank
    and ranges; ``at`` and ``seek_row`` raise :class:`drydb.InvalidError`.
    Raises :class:`drydb.InvalidError` for shards out of slot order."""
    _write_manifest("drydb_write_hash_manifest", path, shards)


def shard_slots(keys: Sequence[bytes], slots: int) -> List[int]:
    """The hash slots among ``slots`` of encoded keys (the bytes a table
    stores, e.g. :func:`drydb.keys.encode_int64`), by the library's own
    rule (FNV-1a-64 mod ``slots``: docs/FORMAT.md)."""
    n = len(keys)
    fn = _fn("drydb_shard_slots", ctypes.c_char_p, ctypes.POINTER(ctypes.c_size_t), ctypes.c_size_t,
             ctypes.c_uint32, ctypes.POINTER(ctypes.c_uint32))
    lens = (ctypes.c_size_t * max(n, 1))(*map(len, keys))
    out = (ctypes.c_uint32 * max(n, 1))()
    _lib.check(fn(b"".join(keys), lens, n, slots, out), "shard_slots")
    return out[:n]


__all__ = ["write_range_manifest", "write_hash_manifest", "shard_slots"]
