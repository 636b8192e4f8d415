"""Sharded databases: a manifest file naming shard files, opened as one
database with :func:`drydb.open` (docs/FORMAT.md, "Sharded databases").

Build the shards with :class:`drydb.Builder` (each an ordinary database
holding one key range of every table), then write the manifest::

    drydb.write_range_manifest("db.manifest", ["part-0.drydb", "part-1.drydb"])

:mod:`drydb.spark` does both from a Spark DataFrame.
"""

import ctypes
import os
from typing import Sequence, Union

from . import _lib

PathLike = Union[str, "os.PathLike[str]"]


def write_range_manifest(path: PathLike, shards: Sequence[PathLike]) -> None:
    """Write the manifest at ``path`` for range shards ``shards``: file names
    relative to the manifest's directory, in key order (every key of a shard
    above every key of the shard before it, in each table). The library reads
    each shard's first and last keys and row counts; the manifest appears
    atomically. Raises :class:`drydb.CorruptError` for shards out of order,
    :class:`drydb.IOFailure` for a missing one."""
    _lib.load()
    # Looked up here rather than in _lib's table, so that the rest of the
    # binding still loads a library without sharding.
    fn = ctypes.CDLL(_lib.library_path()).drydb_write_range_manifest
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t]
    names = [os.fsencode(s) for s in shards]
    arr = (ctypes.c_char_p * max(len(names), 1))(*names)
    _lib.check(fn(os.fsencode(path), arr, len(names)), "write_range_manifest")


__all__ = ["write_range_manifest"]
