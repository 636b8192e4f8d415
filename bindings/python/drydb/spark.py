"""Build a sharded drydb database from a Spark DataFrame.

::

    import drydb.spark
    drydb.spark.write(df, "/shared/items.manifest", key="id", shards=8,
                      indexes={"by_cat": "category"}, compression="zstd")
    db = drydb.open("/shared/items.manifest")   # every language opens it

The DataFrame is range-partitioned by the key (``repartitionByRange``) and
sorted within each partition (``sortWithinPartitions``); each executor task
builds its partition into one shard with :class:`drydb.Builder`, and the
driver then writes the manifest (atomically, after every shard is in place),
reading each shard's first and last keys. A task receives its partition as
Arrow record batches (``mapInArrow``) and adds each with
:meth:`TableBuilder.add_frame`: the keys go to the library in bulk, no
Python object per key (the value codec still runs per row). Secondary indexes are built per
shard over the shard's rows (index entries live in the shard of their row).

With ``partition="hash"`` shard ``i`` holds the rows whose key hashes to
slot ``i`` (the library's rule, :func:`drydb.shard_slots`): rows are routed
by ``partitionBy`` on the slot and sorted within each partition by encoded
key (``repartitionAndSortWithinPartitions``). Hash shards serve point
lookups, counts and key-ordered ranges, not row numbers (``at``).

The path must be on a filesystem that the driver and every executor share
(local mode, NFS, a cluster filesystem mounted on every node): object stores
(S3, GCS, ABFS) are not supported. Executors need the ``drydb`` package and
its library (``pip install drydb`` on every node, or ``DRYDB_LIBRARY``).
"""

import os
import random
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple, Union

from . import keys as _keys
from .shard import shard_slots, write_hash_manifest, write_range_manifest

# Spark SQL types (by simpleString) and the drydb key kinds whose byte order
# is Spark's order of the same values (range partitions must agree with it).
_KEY_KINDS = {"bigint": "int64", "int": "int64", "smallint": "int64", "tinyint": "int64",
              "string": "string", "binary": "bytes"}


def _kind(df: Any, col: str, what: str) -> str:
    try:
        t = df.schema[col].dataType.simpleString()
    except (KeyError, Exception):
        raise ValueError("drydb.spark: %s column %r is not in the DataFrame" % (what, col)) from None
    kind = _KEY_KINDS.get(t)
    if kind is None:
        raise ValueError("drydb.spark: %s column %r is of type %s; keys can be integers, strings or binary"
                         % (what, col, t))
    return kind


def write(df: Any, path: Union[str, "os.PathLike[str]"], key: str, shards: int, *,
          indexes: Optional[Union[Dict[str, str], Iterable[str]]] = None,
          compression: Optional[str] = None, table: str = "data", codec: str = "json",
          page_size: int = 4096,
          memory_budget: int = 0, partition: str = "range") -> List[str]:
    """Write ``df`` as a sharded database whose manifest is ``path``; return
    the shard file names (relative to the manifest's directory).

    ``key``: the key column (integers, strings or binary; unique, not null).
    ``shards``: the number of range partitions (Spark may make fewer when
    the key has fewer distinct values). ``indexes``: ``{name: column}`` or
    column names (each index named after its column); a row whose column is
    null has no entry. ``table``: the table's name. Values are the rows as
    dicts (the key column too) encoded with ``codec`` (``"json"`` or
    ``"msgpack"``, recorded in the shards for readers). ``compression``:
    None, ``"zstd"`` or ``"s2"``. ``memory_budget``: per task, before the
    builder spills sorted runs to disk (0: the library's default).
    ``partition``: ``"range"`` (key ranges, every read) or ``"hash"``
    (exactly ``shards`` hash slots; no row numbers).
    """
    if shards < 1:
        raise ValueError("drydb.spark: shards must be at least 1")
    if partition not in ("range", "hash"):
        raise ValueError("drydb.spark: partition must be \"range\" or \"hash\", not %r" % (partition,))
    path = os.fspath(path)
    kkind = _kind(df, key, "key")
    if indexes is None:
        indexes = {}
    elif not isinstance(indexes, dict):
        indexes = {c: c for c in indexes}
    ikinds = {name: (col, _kind(df, col, "index")) for name, col in indexes.items()}
    d, base = os.path.split(os.path.abspath(path))
    stem = os.path.splitext(base)[0]
    # a tag per write: readers of an older manifest of the same name keep
    # their shards
    tag = "%08x" % random.getrandbits(32)

    def build(i: int, rows: Iterator[Any]) -> Iterator[Tuple[int, str]]:
        from drydb import Builder  # on the executor
        name = "%s-%s-%05d.drydb" % (stem, tag, i)
        with Builder(os.path.join(d, name), page_size=page_size, compression=compression,
                     memory_budget=memory_budget) as b:
            t = b.table(table, key=kkind, codec=codec)
            for iname, (col, ikind) in ikinds.items():
                t.index(iname, key=ikind, func=_column(col))
            t.add_many(_pairs(rows, key))
        yield i, name

    def build_arrow(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa
        from pyspark import TaskContext
        from drydb import Builder  # on the executor
        i = TaskContext.get().partitionId()
        name = "%s-%s-%05d.drydb" % (stem, tag, i)
        with Builder(os.path.join(d, name), page_size=page_size, compression=compression,
                     memory_budget=memory_budget) as b:
            t = b.table(table, key=kkind, codec=codec)
            # index entries given as (index key, primary key) pairs: columns
            # taken whole (a function index would run per row, and refuses
            # add_frame); a row whose column is null has no entry
            ixs = [(t.index(iname, key=ikind), col) for iname, (col, ikind) in ikinds.items()]
            for batch in batches:
                if batch.num_rows:
                    if batch.column(key).null_count:
                        raise ValueError("drydb.spark: row with a null key in column %r" % key)
                    # the value: every column, the key's too (as the row path's dicts)
                    t.add_frame(batch, key, batch.schema.names)
                    pks = batch.column(key).to_pylist()
                    for ix, col in ixs:
                        ix.add_many((ik, pk) for ik, pk in zip(batch.column(col).to_pylist(), pks) if ik is not None)
        yield pa.RecordBatch.from_pydict({"part": [i], "name": [name]})

    if partition == "hash":
        rdd = (df.rdd.mapPartitions(lambda rows: _slotted(rows, key, kkind, shards))
               .repartitionAndSortWithinPartitions(shards, partitionFunc=lambda k: k[0]).values())
        built = sorted(rdd.mapPartitionsWithIndex(build).collect())
    elif _arrow():
        parts = df.repartitionByRange(shards, key).sortWithinPartitions(key)
        built = sorted((r.part, r.name) for r in parts.mapInArrow(build_arrow, "part bigint, name string").collect())
    else:
        rdd = df.repartitionByRange(shards, key).sortWithinPartitions(key).rdd
        built = sorted(rdd.mapPartitionsWithIndex(build).collect())
    names = [n for _, n in built]
    (write_hash_manifest if partition == "hash" else write_range_manifest)(path, names)
    return names


def _arrow() -> bool:
    """Whether range partitions go to the builder as Arrow batches:
    PyArrow importable here (Spark needs it on the executors too for
    mapInArrow; DRYDB_SPARK_ARROW=0 keeps the row path)."""
    if os.environ.get("DRYDB_SPARK_ARROW") == "0":
        return False
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


_ENCODE = {"int64": _keys.encode_int64, "string": _keys.encode_string, "bytes": _keys.encode_bytes}


def _slotted(rows: Iterator[Any], key: str, kind: str, slots: int,
             batch: int = 4096) -> Iterator[Tuple[Tuple[int, bytes], Any]]:
    """((slot, encoded key), row) for each row: sorting by that pair within
    a slot's partition is sorting by encoded key, the table's order."""
    enc = _ENCODE[kind]
    while True:
        rs = [r for _, r in zip(range(batch), rows)]
        if not rs:
            return
        ks = []
        for r in rs:
            if r[key] is None:
                raise ValueError("drydb.spark: row with a null key in column %r" % key)
            ks.append(enc(r[key]))
        yield from zip(zip(shard_slots(ks, slots), ks), rs)


def _pairs(rows: Iterator[Any], key: str) -> Iterator[Tuple[Any, Dict[str, Any]]]:
    for r in rows:
        k = r[key]
        if k is None:
            raise ValueError("drydb.spark: row with a null key in column %r" % key)
        yield k, r.asDict()


def _column(col: str) -> Any:
    return lambda k, v: v.get(col)  # None (a null column): no entry


__all__ = ["write"]
