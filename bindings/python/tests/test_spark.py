"""drydb.spark.write with Spark in local mode (2 executor threads): a sharded
database built from a generated DataFrame (int and string keys, a secondary
index, compressed pages) reads as the same rows built into one file.
Skipped where pyspark or Java is missing (CI installs both: .ci/run)."""

import os
import shutil

import pytest

import drydb

pyspark = pytest.importorskip("pyspark", reason="pyspark is not installed (pip install pyspark)")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Spark needs Java (no java on PATH, no JAVA_HOME)", allow_module_level=True)

ROWS = 100_000


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession
    drydb.library_version()  # loads the library: its path goes to the executors
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(drydb.__file__)))
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (pkg, os.environ.get("PYTHONPATH")) if p)
    os.environ["DRYDB_LIBRARY"] = drydb.library_path()
    s = (SparkSession.builder.master("local[2]").appName("drydb-test")
         .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4")
         .getOrCreate())
    s.sparkContext.setLogLevel("ERROR")
    yield s
    s.stop()


@pytest.fixture(scope="module")
def frame(spark):
    from pyspark.sql import functions as F
    return (spark.range(ROWS).withColumn("id", F.col("id") * 3)
            .withColumn("name", F.format_string("n%07d", F.col("id")))
            .withColumn("cat", F.concat(F.lit("c"), (F.col("id") % 7).cast("string")))
            .withColumn("score", (F.col("id") * 7919 % 1000).cast("int")))


def _one_file(path, rows, key, kind, compression=None):
    with drydb.Builder(path, compression=compression) as b:
        t = b.table("data", key=kind, codec="json")
        t.index("cat", key="string", func=lambda k, v: v.get("cat"))
        t.add_many((r[key], r.asDict()) for r in rows)


@pytest.mark.parametrize("key,kind,shards,compression", [("id", "int64", 4, None), ("name", "string", 3, "zstd")])
def test_write_reads_as_one_file(spark, frame, tmp_path, key, kind, shards, compression):
    import drydb.spark
    man = str(tmp_path / "db.manifest")
    names = drydb.spark.write(frame, man, key=key, shards=shards, indexes={"cat": "cat"}, compression=compression)
    assert len(names) == shards and all(os.path.exists(tmp_path / n) for n in names)
    _one_file(str(tmp_path / "one.drydb"), frame.collect(), key, kind, compression)
    with drydb.open(man, verify=True) as sh, drydb.open(str(tmp_path / "one.drydb")) as one:
        a, b = one["data"], sh["data"]
        assert len(a) == len(b) == ROWS
        assert list(a.items()) == list(b.items())
        # around every shard boundary: at, rank, get, counts and scans both ways
        # the rows where shards meet, from the shards' own row counts
        edges, total = [], 0
        for n in names[:-1]:
            with drydb.open(str(tmp_path / n)) as s:
                total += len(s["data"])
            edges.append(total)
        assert 0 < edges[0] and edges[-1] < ROWS
        for n in [0, 1, ROWS - 1] + [e + d for e in edges for d in (-1, 0, 1)]:
            k, v = b.at(n)
            assert a.at(n) == (k, v)
            assert a.rank(k) == b.rank(k) == n
            assert b.get(k) == v
            lo, _ = a.at(max(n - 50, 0))
            hi, _ = a.at(min(n + 50, ROWS - 1))
            assert a.count(lo, hi) == b.count(lo, hi)
            for rev in (False, True):
                assert list(a.range(lo, hi, reverse=rev)) == list(b.range(lo, hi, reverse=rev))
        ks = [a.at(n)[0] for n in range(0, ROWS, 997)]
        assert a.get_many(ks) == b.get_many(ks)
        ia, ib = a.index("cat"), b.index("cat")
        assert ia.count("c3", "c3", inclusive=(True, True)) == ib.count("c3", "c3", inclusive=(True, True))
        assert list(ia.range("c2", "c4")) == list(ib.range("c2", "c4"))
        assert ia.get("c5") == ib.get("c5")
