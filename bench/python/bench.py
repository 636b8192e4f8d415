#!/usr/bin/env python3
"""Python peers of drydb's benchmark suite: the operations of bench/c on the
rows of one key shape (a bench/shapes.py file), plus first_100.

usage: bench.py ROWSFILE DATADIR [--stores lmdb,sqlite,dict,drydb,drydb_zstd] [--ops ...]
env:   BENCH_REPS (5), BENCH_BUILD_REPS (3), BENCH_TARGET_MS (25)

Prints one JSON line per (store, operation) on stdout, "lang":"python".
A store whose module is missing is skipped with a message on stderr naming
the package to install.

Adding a store = one more subclass of Store registered in STORES (see
DrydbStore). Keys reach the store in the form its key() method returns
(prepared before timing); values come back as bytes-like objects.
"""
import itertools
import json
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from shapes import KIND_INT64, KIND_STRING, read_rows  # noqa: E402  (bench/shapes.py)

STREAM_KEYS = 1 << 20
RANDOM_KEYS = 1000
BATCH = 256


def lcg_keys(seed, count, n):
    out = []
    for _ in range(count):
        seed = (seed * 1664525 + 1013904223) & 0xFFFFFFFF
        out.append(seed % n)
    return out


class Unavailable(Exception):
    pass


class Store:
    """The store interface. Subclasses set name/config and implement:

    build(path, kind, keys, vals)  keys: the store's key form (key()),
                             sorted; vals: bytes; durable
    open(path)               -> handle (self.h); read-only
    close()
    get(key) -> value or None
    get_many(keys) -> list of values/None      (optional: native batch call)
    scan(lo, hi) -> rows visited, lo <= key <= hi, values materialized
    first(lo, n) -> the first n (key, value) rows of the unbounded range
                    key >= lo, taken from the store's lazy iterator
    count(lo, hi) -> number of rows in [lo, hi] (optional)
    key(b, kind) -> the key form this store takes for the rows file's key
                    bytes b (default: b itself)
    """
    name = "?"
    config = ""
    file_backed = True   # open_get is measured only for stores with a file
    has_get_many = False
    has_scan = True
    has_count = True

    def version(self):
        return ""

    def key(self, b, kind):
        return b


class LmdbStore(Store):
    name = "lmdb"
    config = "py-lmdb (bundles its own LMDB): readonly env, one long-lived read txn (buffers=False), reused cursor; build putmulti(append=True)"

    def __init__(self):
        try:
            import lmdb
        except ImportError:
            raise Unavailable("pip install lmdb")
        self.lmdb = lmdb

    def version(self):
        return "py-lmdb %s, LMDB %s" % (self.lmdb.__version__, ".".join(map(str, self.lmdb.version())))

    def build(self, path, kind, keys, vals):
        env = self.lmdb.open(path, subdir=False, map_size=64 << 30, sync=True)
        with env.begin(write=True) as txn:
            txn.cursor().putmulti(zip(keys, vals), append=True)
        env.close()

    def open(self, path):
        self.env = self.lmdb.open(path, subdir=False, readonly=True, map_size=64 << 30)
        self.txn = self.env.begin(buffers=False)
        self.cur = self.txn.cursor()
        self.get = self.txn.get

    def close(self):
        self.cur.close()
        self.txn.abort()
        self.env.close()

    def scan(self, lo, hi):
        cur = self.cur
        n = 0
        if cur.set_range(lo):
            for k, v in cur.iternext():
                if k > hi:
                    break
                n += 1
        return n

    def first(self, lo, n):
        cur = self.cur
        return list(itertools.islice(cur.iternext(), n)) if cur.set_range(lo) else []

    def count(self, lo, hi):
        cur = self.cur
        n = 0
        if cur.set_range(lo):
            for k in cur.iternext(keys=True, values=False):
                if k > hi:
                    break
                n += 1
        return n


class SqliteStore(Store):
    name = "sqlite"
    config = "stdlib sqlite3: WITHOUT ROWID, BLOB key; file:?immutable=1 read-only, mmap_size=1GiB, statement reused (one cursor); build executemany, one txn"

    def __init__(self):
        import sqlite3
        self.sqlite3 = sqlite3

    def version(self):
        return "sqlite3 module, SQLite %s" % self.sqlite3.sqlite_version

    def build(self, path, kind, keys, vals):
        db = self.sqlite3.connect(path)
        db.execute("PRAGMA page_size=4096")
        db.execute("CREATE TABLE bench(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID")
        with db:
            db.executemany("INSERT INTO bench(k,v) VALUES(?,?)", zip(keys, vals))
        db.close()

    def open(self, path):
        self.db = self.sqlite3.connect("file:%s?immutable=1" % path, uri=True,
                                       check_same_thread=False)
        self.db.execute("PRAGMA mmap_size=1073741824")
        cur = self.db.cursor()
        ex = cur.execute
        one = cur.fetchone
        sql = "SELECT v FROM bench WHERE k=?"

        def get(k):
            ex(sql, (k,))
            r = one()
            return r[0] if r else None
        self.get = get
        self.cur = cur

    def close(self):
        self.cur.close()
        self.db.close()

    def scan(self, lo, hi):
        n = 0
        for (v,) in self.cur.execute("SELECT v FROM bench WHERE k>=? AND k<=? ORDER BY k", (lo, hi)):
            n += 1
        return n

    def first(self, lo, n):
        # no LIMIT: the unbounded range, read lazily as far as needed
        return list(itertools.islice(self.cur.execute("SELECT k, v FROM bench WHERE k>=? ORDER BY k", (lo,)), n))

    def count(self, lo, hi):
        return self.cur.execute("SELECT COUNT(*) FROM bench WHERE k>=? AND k<=?", (lo, hi)).fetchone()[0]


class DictStore(Store):
    """The floor: a dict lookup (point gets only, nothing on disk)."""
    name = "dict"
    config = "dict of key bytes -> bytes, in RAM (the floor; no file, no range operations)"
    file_backed = False
    has_scan = False
    has_count = False
    _built = {}

    def version(self):
        return "CPython %s" % sys.version.split()[0]

    def build(self, path, kind, keys, vals):
        DictStore._built[path] = dict(zip(keys, vals))

    def open(self, path):
        self.d = DictStore._built[path]
        self.get = self.d.get

    def close(self):
        pass


class DrydbStore(Store):
    """drydb's Python binding: `import drydb; db = drydb.open(path);
    t = db["bench"]; t.get(k); t.get_many(keys); t.range(lo, hi); t.count(lo, hi)`.
    Keys in the form a user of each key kind passes: int for int64 tables,
    str for string tables, the 16 bytes (uuid.UUID.bytes) for uuid tables."""
    name = "drydb"
    config = "drydb binding: table 'bench', int64 / string / uuid keys by shape (int, str, 16 bytes), uncompressed"
    has_get_many = True
    compression = None
    KINDS = {KIND_INT64: "int64", KIND_STRING: "string"}

    def __init__(self):
        try:
            import drydb
        except ImportError:
            raise Unavailable("the drydb Python package (bindings/python) is not importable")
        self.drydb = drydb

    def version(self):
        return "drydb %s" % getattr(self.drydb, "__version__", "?")

    def key(self, b, kind):
        if kind == KIND_INT64:  # 8 bytes big-endian, sign bit flipped
            return int.from_bytes(b, "big") - (1 << 63)
        if kind == KIND_STRING:
            return b.decode()
        return b

    def build(self, path, kind, keys, vals):
        with self.drydb.Builder(path) as builder:
            builder.table("bench", key=self.KINDS.get(kind, "uuid"),
                          compression=self.compression).add_many(zip(keys, vals))

    def open(self, path):
        self.db = self.drydb.open(path)
        self.t = self.db["bench"]
        # bound once, as for the other stores (t.get etc. are the binding's
        # per-table fast paths)
        self.get = self.t.get
        self.get_many = self.t.get_many
        self._range = self.t.range
        self._count = self.t.count

    def close(self):
        self.db.close()

    def scan(self, lo, hi):
        # the rows' values, as sqlite's SELECT v (keys=False: no (key, value)
        # tuple per row)
        n = 0
        for _ in self._range(lo, hi, inclusive=(True, True), keys=False):
            n += 1
        return n

    def first(self, lo, n):
        return list(itertools.islice(self._range(lo), n))

    def count(self, lo, hi):
        return self._count(lo, hi, inclusive=(True, True))


class DrydbZstdStore(DrydbStore):
    name = "drydb_zstd"
    config = "drydb binding: table 'bench', int64 / string / uuid keys by shape (int, str, 16 bytes), zstd pages (default level)"
    compression = "zstd"


STORES = {"lmdb": LmdbStore, "sqlite": SqliteStore, "dict": DictStore, "drydb": DrydbStore,
          "drydb_zstd": DrydbZstdStore}


# ---------------------------------------------------------------------------

def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


class Runner:
    def __init__(self, rows, datadir, reps, build_reps, target_ns):
        self.r, self.rows, self.datadir = rows, len(rows), datadir
        self.reps, self.build_reps, self.target_ns = reps, build_reps, target_ns

    def emit(self, store, shape, reps, ops, **extra):
        d = {"lang": "python", "store": store.name, "data": self.r.shape, "shape": shape, "rows": self.rows,
             "ns_per_op": round(median(reps), 2), "ops_per_rep": ops,
             "reps": [round(r, 2) for r in reps]}
        d.update(extra)
        print(json.dumps(d), flush=True)

    def run(self, store, shape, fn, granule, **extra):
        """fn(ops) runs ops operations; calibrated to ~target per repetition."""
        ops = granule
        t0 = time.perf_counter_ns(); fn(ops); t = time.perf_counter_ns() - t0
        while t < self.target_ns / 10 and ops < 1 << 40:
            ops *= 4
            t0 = time.perf_counter_ns(); fn(ops); t = time.perf_counter_ns() - t0
        ops = max(granule, int(ops * self.target_ns / max(t, 1)) // granule * granule)
        reps = []
        for _ in range(self.reps):
            t0 = time.perf_counter_ns(); fn(ops); reps.append((time.perf_counter_ns() - t0) / ops)
        self.emit(store, shape, reps, ops, **extra)

    def fail(self, store, what):
        sys.exit("python %s: %s (%s, rows=%d)" % (store.name, what, self.r.shape, self.rows))

    def bench(self, store, ops_wanted):
        N, R = self.rows, self.r
        path = os.path.join(self.datadir, "py-%s-%s-%d.db" % (store.name, R.shape, N))
        keys = [store.key(b, R.kind) for b in R.keys]
        vals = R.vals

        def want(s):
            return ops_wanted is None or s in ops_wanted

        # build (always: it makes the file the other operations read)
        reps = []
        for _ in range(self.build_reps if want("build") else 1):
            if os.path.isdir(path):
                shutil.rmtree(path)
            for p in (path, path + "-lock"):
                if os.path.exists(p):
                    os.remove(p)
            t0 = time.perf_counter_ns()
            store.build(path, R.kind, keys, vals)
            reps.append((time.perf_counter_ns() - t0) / N)
        if want("build"):
            size = os.path.getsize(path) if os.path.isfile(path) else 0
            self.emit(store, "build", reps, N, rows_per_s=round(1e9 / median(reps)),
                      file_bytes=size, version=store.version(), config=store.config)

        # correctness checks before timing
        store.open(path)
        for i in (123, N - 1):
            v = store.get(keys[i])
            if v is None or bytes(v) != vals[i]:
                self.fail(store, "get(key %d) wrong: %r" % (i, v))
        if store.get(store.key(R.miss, R.kind)) is not None:
            self.fail(store, "get(absent key) found a value")
        if store.has_scan:
            if store.scan(keys[2000], keys[2099]) != 100:
                self.fail(store, "scan [key 2000, key 2099] wrong")
            got = store.first(keys[2000], 100)
            if len(got) != 100 or bytes(got[-1][1]) != vals[2099]:
                self.fail(store, "first 100 rows from key 2000 wrong")
        if store.has_count and store.count(keys[1000], keys[8999]) != 8000:
            self.fail(store, "count [key 1000, key 8999] wrong")

        get = store.get
        k123 = keys[123]
        rnd = [keys[i] for i in lcg_keys(1, RANDOM_KEYS, N)]
        stream = [keys[i] for i in lcg_keys(42, STREAM_KEYS, N)]
        pos = [0]
        if store.has_get_many:
            got = store.get_many(stream[:BATCH])
            if any(bytes(v) != vals[i] for v, i in zip(got, lcg_keys(42, BATCH, N))):
                self.fail(store, "get_many wrong")

        def get_one(ops):
            for _ in range(ops):
                get(k123)

        def get_random(ops):
            for _ in range(ops // RANDOM_KEYS):
                for key in rnd:
                    get(key)

        def get_stream(ops):
            p = pos[0]
            while ops > 0:
                m = min(ops, STREAM_KEYS - p)
                for key in stream[p:p + m]:
                    get(key)
                ops -= m
                p = (p + m) % STREAM_KEYS
            pos[0] = p

        def get_many_stream(ops):
            gm = store.get_many
            p = pos[0]
            for _ in range(ops // BATCH):
                if p + BATCH > STREAM_KEYS:
                    p = 0
                gm(stream[p:p + BATCH])
                p += BATCH
            pos[0] = p

        lo, hi = keys[2000], keys[2099]
        clo, chi = keys[1000], keys[8999]

        def scan_100(ops):
            for _ in range(ops):
                store.scan(lo, hi)

        def first_100(ops):
            for _ in range(ops):
                store.first(lo, 100)

        def count_8000(ops):
            for _ in range(ops):
                store.count(clo, chi)

        if want("get_one"):
            self.run(store, "get_one", get_one, 1000)
        if want("get_random"):
            self.run(store, "get_random", get_random, RANDOM_KEYS)
        if want("get_stream"):
            pos[0] = 0
            self.run(store, "get_stream", get_stream, 1000)
        if store.has_get_many and want("get_many_stream"):
            pos[0] = 0
            self.run(store, "get_many_stream", get_many_stream, BATCH, batch=BATCH)
        if store.has_scan and want("scan_100"):
            self.run(store, "scan_100", scan_100, 1)
        if store.has_scan and want("first_100"):
            self.run(store, "first_100", first_100, 1)
        if store.has_count and want("count_8000"):
            self.run(store, "count_8000", count_8000, 1)
        store.close()
        del stream

        if store.file_backed and want("open_get"):
            def open_get(ops):
                for _ in range(ops):
                    store.open(path)
                    store.get(k123)
                    store.close()
            self.run(store, "open_get", open_get, 1)


def main():
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("rowsfile", help="rows of one key shape, written by bench/shapes.py")
    ap.add_argument("datadir")
    ap.add_argument("--stores", default="lmdb,sqlite,dict,drydb,drydb_zstd")
    ap.add_argument("--ops", default=None, help="comma-separated operations (default: all)")
    a = ap.parse_args()
    try:
        rows = read_rows(a.rowsfile)
    except (OSError, ValueError) as e:
        sys.exit("bench/python: %s" % e)
    r = Runner(rows, a.datadir, int(os.environ.get("BENCH_REPS", 5)),
               int(os.environ.get("BENCH_BUILD_REPS", 3)),
               float(os.environ.get("BENCH_TARGET_MS", 25)) * 1e6)
    ops = set(a.ops.split(",")) if a.ops else None
    os.makedirs(a.datadir, exist_ok=True)
    for name in a.stores.split(","):
        try:
            store = STORES[name]()
        except Unavailable as e:
            print("bench/python: skipping %s: %s" % (name, e), file=sys.stderr)
            continue
        r.bench(store, ops)


if __name__ == "__main__":
    main()
