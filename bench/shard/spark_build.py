"""Build rate of drydb.spark.write in Spark local mode: the same generated
DataFrame as 1 shard and as N shards (rows/s, wall clock of write(), Spark
already started). Prints one JSON line per run, with the load average.
With --reads, then times reads of the two results (`go run ./bench/shard
-one -manifest`): the 1-shard build's file against the N-shard manifest
(get, a 100-row scan and a count across the first shard boundary).

    make lib && DRYDB_LIBRARY=build/libdrydb.so python3 bench/shard/spark_build.py --rows 1000000 --shards 8 --cores 2
    make lib && DRYDB_LIBRARY=build/libdrydb.so nice -n 10 python3 bench/shard/spark_build.py --rows 10000000 --reads
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bindings", "python"))

import drydb  # noqa: E402
import drydb.spark  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--shards", type=int, default=8)
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--reads", action="store_true", help="then time reads of the two builds (needs Go)")
    ap.add_argument("--dir", help="keep the builds here (default: a temporary directory, removed)")
    a = ap.parse_args()
    from pyspark.sql import SparkSession, functions as F
    drydb.library_version()
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (sys.path[0], os.environ.get("PYTHONPATH")) if p)
    os.environ["DRYDB_LIBRARY"] = drydb.library_path()
    s = (SparkSession.builder.master("local[%d]" % a.cores).appName("drydb-bench")
         .config("spark.ui.enabled", "false").getOrCreate())
    s.sparkContext.setLogLevel("ERROR")
    df = (s.range(a.rows).withColumn("name", F.format_string("n%09d", F.col("id")))
          .withColumn("cat", F.concat(F.lit("c"), (F.col("id") % 7).cast("string"))))
    tmp = None if a.dir else tempfile.TemporaryDirectory()
    top = a.dir or tmp.name
    built = {}
    for shards in (1, a.shards):
        d = os.path.join(top, "s%d" % shards)
        os.makedirs(d, exist_ok=True)
        load = os.getloadavg()[0]
        t = time.perf_counter()
        built[shards] = drydb.spark.write(df, os.path.join(d, "db.manifest"), key="id", shards=shards,
                                          indexes={"cat": "cat"})
        took = time.perf_counter() - t
        size = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))
        print(json.dumps({"rows": a.rows, "shards": shards, "cores": a.cores, "seconds": round(took, 2),
                          "rows_per_s": round(a.rows / took), "bytes": size,
                          "loadavg_before_after": [load, os.getloadavg()[0]]}), flush=True)
    s.stop()
    if a.reads:
        print("loadavg before reads: %.2f" % os.getloadavg()[0], flush=True)
        subprocess.run(["go", "run", "./bench/shard", "-table", "data",
                        "-one", os.path.join(top, "s1", built[1][0]),
                        "-manifest", os.path.join(top, "s%d" % a.shards, "db.manifest")],
                       cwd=os.path.join(HERE, "..", ".."), check=True)
        print("loadavg after reads: %.2f" % os.getloadavg()[0], flush=True)
    if tmp:
        tmp.cleanup()


if __name__ == "__main__":
    main()
