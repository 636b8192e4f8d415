#!/usr/bin/env python3
"""Python peers of drydb's benchmark suite: the same shapes as bench/c.

usage: bench.py ROWS DATADIR [--stores lmdb,sqlite,dict,drydb] [--shapes ...]
env:   BENCH_REPS (5), BENCH_BUILD_REPS (3), BENCH_TARGET_MS (25)

Prints one JSON line per (store, shape) on stdout, "lang":"python".
A store whose module is missing is skipped with a message on stderr naming
the package to install.

Adding a store = one more subclass of Store registered in STORES (see
DrydbStore). Keys reach the store in the form its key() method returns
(prepared before timing); values come back as bytes-like objects.
"""
import os
import shutil
import struct
import sys
import time
import json

STREAM_KEYS = 1 << 20
BATCH = 256
SIGN = 1 << 63


def key_bytes(k):
    """int64 -> 8 bytes big-endian with the sign bit flipped (sorts as bytes)."""
    return struct.pack(">Q", (k ^ SIGN) & 0xFFFFFFFFFFFFFFFF)


def value_bytes(k):
    return b"value-%07d" % k


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

    build(path, keys, vals)  keys/vals: lists of bytes, keys sorted; durable
    open(path)               -> handle (self.h); read-only
    close()
    get(key) -> value or None
    get_many(keys) -> list of values/None      (optional: native batch call)
    scan(lo, hi) -> rows visited, lo <= key <= hi, values materialized
    count(lo, hi) -> number of rows in [lo, hi] (optional)
    key(int) -> the key form this store takes (default: 8 encoded bytes)
    """
    name = "?"
    config = ""
    file_backed = True   # open_get is measured only for stores with a file
    has_get_many = False
    has_scan = True
    has_count = True

    def version(self):
        return ""

    def key(self, k):
        return key_bytes(k)


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

    def build(self, path, keys, vals):
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

    def build(self, path, keys, vals):
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

    def count(self, lo, hi):
        return self.cur.execute("SELECT COUNT(*) FROM bench WHERE k>=? AND k<=?", (lo, hi)).fetchone()[0]


class DictStore(Store):
    """The floor: a dict lookup (point gets only, nothing on disk)."""
    name = "dict"
    config = "dict of 8-byte keys -> bytes, in RAM (the floor; no file, no range shapes)"
    file_backed = False
    has_scan = False
    has_count = False
    _built = {}

    def version(self):
        return "CPython %s" % sys.version.split()[0]

    def build(self, path, keys, vals):
        DictStore._built[path] = dict(zip(keys, vals))

    def open(self, path):
        self.d = DictStore._built[path]
        self.get = self.d.get

    def close(self):
        pass


class DrydbStore(Store):
    """drydb's Python binding: `import drydb; db = drydb.open(path);
    t = db["bench"]; t.get(k); t.get_many(keys); t.range(lo, hi); t.count(lo, hi)`.
    Keys: 8-byte encoded keys (what key() returns); switch key() to `return k`
    if the binding takes ints for an INT64 table. If the binding has no builder
    (build raises NotImplementedError), the file built by bench/c
    (DATADIR/c-drydb-ROWS.db) is read instead."""
    name = "drydb"
    config = "drydb binding: table 'bench', INT64 keys, uncompressed"
    has_get_many = True

    def __init__(self):
        try:
            import drydb
        except ImportError:
            raise Unavailable("the drydb Python package (bindings/python) is not importable")
        self.drydb = drydb

    def version(self):
        return "drydb %s" % getattr(self.drydb, "__version__", "?")

    def key(self, k):
        return k  # the binding encodes int keys of an int64 table itself

    def build(self, path, keys, vals):
        with self.drydb.Builder(path) as builder:
            # keys arrive as the harness's 8-byte encoding; the int64 table
            # takes ints, so decode (sign bit flipped, big-endian)
            def dec(k):
                if not isinstance(k, bytes):
                    return k
                i = int.from_bytes(k, "big") ^ (1 << 63)
                return i - (1 << 64) if i >= 1 << 63 else i
            ints = (dec(k) for k in keys)
            builder.table("bench", key="int64").add_many(zip(ints, vals))

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

    def count(self, lo, hi):
        return self._count(lo, hi, inclusive=(True, True))


STORES = {"lmdb": LmdbStore, "sqlite": SqliteStore, "dict": DictStore, "drydb": DrydbStore}


# ---------------------------------------------------------------------------

def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


class Runner:
    def __init__(self, rows, datadir, reps, build_reps, target_ns):
        self.rows, self.datadir = rows, datadir
        self.reps, self.build_reps, self.target_ns = reps, build_reps, target_ns

    def emit(self, store, shape, reps, ops, **extra):
        d = {"lang": "python", "store": store.name, "shape": shape, "rows": self.rows,
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

    def bench(self, store, shapes):
        N = self.rows
        path = os.path.join(self.datadir, "py-%s-%d.db" % (store.name, N))
        keys = [store.key(i) for i in range(N)]
        bkeys = [key_bytes(i) for i in range(N)]
        vals = [value_bytes(i) for i in range(N)]

        def want(s):
            return shapes is None or s in shapes

        # build (always: it makes the file the other shapes read)
        reps = []
        built = True
        for _ in range(self.build_reps if want("build") else 1):
            if os.path.isdir(path):
                shutil.rmtree(path)
            for p in (path, path + "-lock"):
                if os.path.exists(p):
                    os.remove(p)
            t0 = time.perf_counter_ns()
            try:
                store.build(path, bkeys, vals)
            except NotImplementedError:
                built = False
                path = os.path.join(self.datadir, "c-%s-%d.db" % (store.name, N))
                break
            reps.append((time.perf_counter_ns() - t0) / N)
        if built and want("build"):
            size = os.path.getsize(path) if os.path.isfile(path) else 0
            self.emit(store, "build", reps, N, rows_per_s=round(1e9 / median(reps)),
                      file_bytes=size, version=store.version(), config=store.config)
        del bkeys

        # correctness checks before timing
        store.open(path)
        k = store.key
        v = store.get(k(123))
        if v is None or bytes(v) != value_bytes(123):
            sys.exit("python %s: get(123) wrong: %r" % (store.name, v))
        if store.get(k(N)) is not None:
            sys.exit("python %s: get(N) should be absent" % store.name)
        if store.has_scan and store.scan(k(2000), k(2099)) != 100:
            sys.exit("python %s: scan [2000,2099] wrong" % store.name)
        if store.has_count and store.count(k(1000), k(8999)) != 8000:
            sys.exit("python %s: count [1000,8999] wrong" % store.name)

        get = store.get
        k123 = k(123)
        rnd = [keys[i] for i in lcg_keys(1, 1000, N)]
        stream = [keys[i] for i in lcg_keys(42, STREAM_KEYS, N)]
        pos = [0]

        def get_one(ops):
            for _ in range(ops):
                get(k123)

        def get_random(ops):
            for _ in range(ops // 1000):
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

        lo, hi = k(2000), k(2099)
        clo, chi = k(1000), k(8999)

        def scan_100(ops):
            for _ in range(ops):
                store.scan(lo, hi)

        def count_8000(ops):
            for _ in range(ops):
                store.count(clo, chi)

        if want("get_one"):
            self.run(store, "get_one", get_one, 1000)
        if want("get_random"):
            self.run(store, "get_random", get_random, 1000)
        if want("get_stream"):
            pos[0] = 0
            self.run(store, "get_stream", get_stream, 1000)
        if store.has_get_many and want("get_many_stream"):
            pos[0] = 0
            self.run(store, "get_many_stream", get_many_stream, BATCH, batch=BATCH)
        if store.has_scan and want("scan_100"):
            self.run(store, "scan_100", scan_100, 1)
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
    ap.add_argument("rows", type=int)
    ap.add_argument("datadir")
    ap.add_argument("--stores", default="lmdb,sqlite,dict,drydb")
    ap.add_argument("--shapes", default=None)
    a = ap.parse_args()
    r = Runner(a.rows, a.datadir, int(os.environ.get("BENCH_REPS", 5)),
               int(os.environ.get("BENCH_BUILD_REPS", 3)),
               float(os.environ.get("BENCH_TARGET_MS", 25)) * 1e6)
    shapes = set(a.shapes.split(",")) if a.shapes else None
    os.makedirs(a.datadir, exist_ok=True)
    for name in a.stores.split(","):
        try:
            store = STORES[name]()
        except Unavailable as e:
            print("bench/python: skipping %s: %s" % (name, e), file=sys.stderr)
            continue
        r.bench(store, shapes)


if __name__ == "__main__":
    main()
