"""Per-call costs of the Python binding, one run (not a test).

    DRYDB_LIBRARY=build/libdrydb.so PYTHONPATH=bindings/python \
        python3 bindings/python/benchmarks/microbench.py [rows]

Shape of docs/BENCHMARKS.md: int64 keys 0..N-1, 13-byte values, 4 KiB pages.
Prints ns per operation (median of 5 repeats).
"""

import os
import statistics
import sys
import tempfile
import time

import drydb


def per(fn, ops, repeat=5):
    runs = []
    for _ in range(repeat):
        t = time.perf_counter_ns()
        fn()
        runs.append((time.perf_counter_ns() - t) / ops)
    return statistics.median(runs)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    d = tempfile.mkdtemp()
    path = os.path.join(d, "bench.drydb")
    with drydb.Builder(path) as b:
        b.table("t", key="int64").add_many((i, b"value-%07d" % i) for i in range(n))
    seed = 1
    keys = []
    for _ in range(1000):
        seed = (seed * 1664525 + 1013904223) & 0xFFFFFFFF
        keys.append(seed % n)
    with drydb.open(path) as db:
        t = db["t"]
        get = t.get
        res = {}

        def gets():
            for k in keys:
                get(k)
        res["get (random keys)"] = per(gets, len(keys))

        def get123():
            for _ in range(1000):
                get(123)
        res["get(123) repeated"] = per(get123, 1000)
        big = keys * 4
        res["get_many per key (4000 keys)"] = per(lambda: t.get_many(big), len(big))
        res["iteration items() per row (all rows)"] = per(lambda: sum(1 for _ in t.items()), n)
        res["iteration keys() per row"] = per(lambda: sum(1 for _ in t.keys()), n)
        res["range 100 rows [2000, 2100) per range"] = per(
            lambda: [list(t.range(2000, 2100)) for _ in range(100)], 100)
        res["count [1000, 9000) per call"] = per(lambda: [t.count(1000, 9000) for _ in range(1000)], 1000)

        def dictget():
            dd = {i: b"x" for i in range(n)}
            g = dd.get
            t0 = time.perf_counter_ns()
            for k in keys:
                g(k)
            return time.perf_counter_ns() - t0
        res["(dict.get, for scale)"] = statistics.median(dictget() for _ in range(5)) / len(keys)
    print("drydb Python binding, %d rows, library %s" % (n, drydb.library_path()))
    for k, v in res.items():
        print("%-42s %10.0f ns" % (k, v))


if __name__ == "__main__":
    main()
