"""Python reads of a sharded database against one file: 200k int64 rows,
8 range shards; get of random keys and a 100-row range that crosses the
boundary of shards 0 and 1 (medians of 7 reps, ns per operation).

    make lib && DRYDB_LIBRARY=build/libdrydb.so python3 bench/shard/python_reads.py
"""
import os
import random
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bindings", "python"))
import drydb
_tmp = tempfile.TemporaryDirectory()
d = _tmp.name
rows = 200000
with drydb.Builder(os.path.join(d, "one.drydb")) as b:
    t = b.table("t", key="int64")
    t.add_many((i, b"v%031d" % i) for i in range(rows))
names = []
for s in range(8):
    names.append("p%d.drydb" % s)
    with drydb.Builder(os.path.join(d, names[-1])) as b:
        t = b.table("t", key="int64")
        t.add_many((i, b"v%031d" % i) for i in range(s * rows // 8, (s + 1) * rows // 8))
drydb.write_range_manifest(os.path.join(d, "db.manifest"), names)
keys = [random.randrange(rows) for _ in range(20000)]
edge = rows // 8
res = {}
for name in ("one.drydb", "db.manifest"):
    with drydb.open(os.path.join(d, name)) as db:
        t = db["t"]
        g, sc = [], []
        for rep in range(7):
            s = time.perf_counter()
            for k in keys:
                t.get(k)
            g.append((time.perf_counter() - s) / len(keys) * 1e9)
            s = time.perf_counter()
            for _ in range(500):
                n = sum(1 for _ in t.range(edge - 50, edge + 50))
            sc.append((time.perf_counter() - s) / 500 * 1e9)
            assert n == 100
        res[name] = (statistics.median(g), statistics.median(sc))
        print(name, "get %.0f ns, 100-row range across a boundary %.0f ns" % res[name])
print("ratio get %.2fx, scan %.2fx" % (res["db.manifest"][0] / res["one.drydb"][0], res["db.manifest"][1] / res["one.drydb"][1]))
