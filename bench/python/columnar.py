#!/usr/bin/env python3
"""The columnar Python calls (drydb.columnar) against issue 23's targets, with
py-lmdb's put rate measured in the same run.

usage: columnar.py [DIR] [--rows N] [--json]
env:   BENCH_REPS (5; builds too)

Operations (median of the repetitions; wall time, and the process's CPU time,
which a loaded machine inflates less). Every build is run once untimed
first: the process's first build also grows its heaps (Go's, LMDB's map), a
cost the first_build row shows on its own.
  first_build    the process's first build_numpy (one run, before any other)
  build_numpy    Builder + add_columns(int64 NumPy keys, 13-byte S13 values) + build (fsync)
  build_arrow    the same from a pyarrow int64 array and binary array
  build_string   string keys from a pyarrow string array ("key-%08d"), 13-byte values
  lmdb_put       py-lmdb: putmulti(append=True) of the same rows, sorted, 8-byte keys (sync)
  add_many       drydb's row API on the same rows (the baseline the issue quotes)
  get_many_cols_first
                 the first get_many_columns after open (faults the file in)
  get_many_cols  get_many_columns of 100,000 random int64 keys (NumPy) into columns
                 (reads: 3 calls untimed first, median of max(BENCH_REPS, 9))
  range_cols     range_columns of the whole 1M-row table into NumPy / Arrow columns
  get_many_cols_str, range_cols_str
                 the same for the string table ("key-%08d" keys from an Arrow string array)
Prints a table (ns per row or key, rows/s), or JSON lines with --json.
"""
import json
import os
import shutil
import sys
import tempfile
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # NumPy's BLAS threads spin on a 2-core machine
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bindings", "python"))

import numpy as np  # noqa: E402
import drydb  # noqa: E402

try:
    import pyarrow as pa
except ImportError:
    pa = None
try:
    import lmdb
except ImportError:
    lmdb = None


def median(xs):
    s = sorted(xs)
    return s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2


def timed(fn, reps, setup=None, warm=0):
    for _ in range(int(warm)):
        if setup:
            setup()
        fn()
    walls, cpus = [], []
    for _ in range(reps):
        if setup:
            setup()
        w, c = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return median(walls), median(cpus)


def main():
    args = sys.argv[1:]
    as_json = "--json" in args
    n = 1_000_000
    if "--rows" in args:
        n = int(args[args.index("--rows") + 1])
    pos = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] != "--rows")]
    tmp = pos[0] if pos else tempfile.mkdtemp(prefix="drydb-colbench-")
    os.makedirs(tmp, exist_ok=True)
    reps = int(os.environ.get("BENCH_REPS", "5"))
    breps = reps  # builds too (each is ~0.2 s)
    path = os.path.join(tmp, "c.drydb")
    out = []

    def emit(op, per, wall, cpu, count):
        out.append({"lang": "python", "store": "lmdb" if op == "lmdb_put" else "drydb", "op": op,
                    "rows": n, "count": count, "ns_per_item_wall": round(wall / count * 1e9, 1),
                    "ns_per_item_cpu": round(cpu / count * 1e9, 1),
                    "items_per_s_wall": round(count / wall), "per": per})

    keys = np.arange(n, dtype=np.int64)
    vals = np.frombuffer(b"".join(b"value-%07d" % i for i in range(n)), dtype="S13")
    rm = lambda: os.path.exists(path) and os.remove(path)  # noqa: E731

    def build_numpy():
        with drydb.Builder(path) as b:
            b.table("t", key="int64").add_columns(keys, vals)
    emit("first_build", "row", *timed(build_numpy, 1, rm), n)
    emit("build_numpy", "row", *timed(build_numpy, breps, rm, warm=1), n)

    if pa is not None:
        ka, va = pa.array(keys), pa.array(vals.tolist(), pa.binary())
        skeys = pa.array(["key-%08d" % i for i in range(n)])

        def build_arrow():
            with drydb.Builder(path) as b:
                b.table("t", key="int64").add_columns(ka, va)
        emit("build_arrow", "row", *timed(build_arrow, breps, rm, warm=1), n)

        def build_string():
            with drydb.Builder(path) as b:
                b.table("t", key="string").add_columns(skeys, va)
        emit("build_string", "row", *timed(build_string, breps, rm, warm=1), n)

    if lmdb is not None:
        lpath = os.path.join(tmp, "l.lmdb")
        lk = [int(k).to_bytes(8, "big") for k in keys.tolist()]
        lv = vals.tolist()

        def lrm():
            if os.path.exists(lpath):
                os.remove(lpath)
            if os.path.exists(lpath + "-lock"):
                os.remove(lpath + "-lock")

        def lmdb_put():
            env = lmdb.open(lpath, subdir=False, map_size=8 << 30, sync=True)
            with env.begin(write=True) as txn:
                txn.cursor().putmulti(zip(lk, lv), append=True)
            env.close()
        emit("lmdb_put", "row", *timed(lmdb_put, breps, lrm, warm=1), n)

    rows = list(zip(keys.tolist(), vals.tolist()))

    def add_many():
        with drydb.Builder(path) as b:
            b.table("t", key="int64").add_many(rows)
    emit("add_many", "row", *timed(add_many, 1, rm), n)
    del rows

    # Reads: the first call after open on its own (it faults the file's
    # pages in: most of a 1M-row table for 100,000 random keys), then the
    # steady state: three more calls untimed (the next ones still pay for
    # growing the process's heap to the result columns' size; measured
    # 60-85 ns a key on the second call, 25-48 on the third, on this
    # machine), and the median of at least nine.
    rreps, rwarm = max(reps, 9), 3
    build_numpy()
    with drydb.open(path) as db:
        t = db["t"]
        q = np.random.default_rng(23).integers(0, n, 100_000, dtype=np.int64)
        emit("get_many_cols_first", "key", *timed(lambda: t.get_many_columns(q), 1), len(q))
        emit("get_many_cols", "key", *timed(lambda: t.get_many_columns(q), rreps, warm=rwarm), len(q))
        ql = q.tolist()
        emit("get_many_rows", "key", *timed(lambda: t.get_many(ql), rreps, warm=1), len(q))
        emit("range_cols_numpy", "row", *timed(lambda: t.range_columns(output="numpy"), rreps, warm=rwarm), n)
        if pa is not None:
            emit("range_cols_arrow", "row", *timed(lambda: t.range_columns(output="arrow"), rreps, warm=rwarm), n)
        emit("range_rows", "row", *timed(lambda: sum(1 for _ in t.items()), 1), n)

    if pa is not None:
        build_string()
        with drydb.open(path) as db:
            t = db["t"]
            qs = pa.array(["key-%08d" % i for i in q.tolist()])
            emit("get_many_cols_str", "key", *timed(lambda: t.get_many_columns(qs), rreps, warm=rwarm), len(q))
            emit("range_cols_str", "row", *timed(lambda: t.range_columns(output="arrow"), rreps, warm=rwarm), n)

    if not pos:
        shutil.rmtree(tmp, ignore_errors=True)
    load = open("/proc/loadavg").read().split()[0] if os.path.exists("/proc/loadavg") else "?"
    if as_json:
        for d in out:
            d["loadavg"] = load
            print(json.dumps(d))
        return
    print("%d rows; load average %s; median of %d (builds %d)" % (n, load, reps, breps))
    print("%-18s %12s %12s %14s" % ("op", "ns wall", "ns cpu", "per s (wall)"))
    for d in out:
        print("%-18s %12.1f %12.1f %14s  /%s" % (d["op"], d["ns_per_item_wall"], d["ns_per_item_cpu"],
                                                 "{:,}".format(d["items_per_s_wall"]), d["per"]))


if __name__ == "__main__":
    main()
