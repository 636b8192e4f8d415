"""drydb.spark.write with Spark in local mode (2 executor threads): sharded
databases built from a generated DataFrame (int and string keys, a secondary
index, compressed pages; range and hash partitions) read as the same rows
built into one file, in Python, C, C# and the CLI. Skipped where pyspark or
Java is missing (CI installs both: .ci/run).

DRYDB_SPARK_ROWS sets the row count (default 100,000, CI's size; `make
test-spark-full` runs 1,000,000). One Spark build per database; every
language then reads it."""

import os
import shutil
import subprocess
from collections import Counter

import pytest

import drydb
from drydb.codecs import get_codec
from drydb.keys import KeyCodec, key_kind

from conftest import HERE, ROOT

pyspark = pytest.importorskip("pyspark", reason="pyspark is not installed (pip install pyspark)")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Spark needs Java (no java on PATH, no JAVA_HOME)", allow_module_level=True)

ROWS = int(os.environ.get("DRYDB_SPARK_ROWS", "100000"))

# the sharded databases: key column and kind, shards, compression, partition
BUILDS = {
    "int-range": ("id", "int64", 4, None, "range"),
    "string-range-zstd": ("name", "string", 3, "zstd", "range"),
    "int-hash": ("id", "int64", 5, None, "hash"),
}


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


@pytest.fixture(scope="module")
def rows(frame):
    return frame.collect()


@pytest.fixture(scope="module", params=sorted(BUILDS))
def built(request, frame, rows, tmp_path_factory):
    """One Spark build of BUILDS[param], the same rows built into one file
    (one.drydb) and their dump (dump.txt, from the rows themselves: the
    format is c/read_dump.c's). Returns (directory, manifest, shard names,
    key column, kind)."""
    import drydb.spark
    key, kind, shards, compression, partition = BUILDS[request.param]
    d = tmp_path_factory.mktemp(request.param)
    man = str(d / "db.manifest")
    names = drydb.spark.write(frame, man, key=key, shards=shards, indexes={"cat": "cat"},
                              compression=compression, partition=partition)
    assert len(names) == shards and all(os.path.exists(d / n) for n in names)
    with drydb.Builder(str(d / "one.drydb"), compression=compression) as b:
        t = b.table("data", key=kind, codec="json")
        t.index("cat", key="string", func=lambda k, v: v.get("cat"))
        t.add_many((r[key], r.asDict()) for r in rows)
    kc, js = KeyCodec(*key_kind(kind)), get_codec("json")
    dump = sorted((kc.encode(r[key]).hex(), js.encode(r.asDict()).hex()) for r in rows)
    with open(d / "dump.txt", "w") as f:
        f.writelines("row %s %s\n" % kv for kv in dump)
        for cat, n in sorted(Counter(r["cat"] for r in rows).items()):
            f.write("index cat %s %d\n" % (cat.encode().hex(), n))
    return d, man, names, key, kind, partition


def test_write_reads_as_one_file(built):
    d, man, names, key, kind, partition = built
    with drydb.open(man, verify=True) as sh, drydb.open(str(d / "one.drydb")) as one:
        a, b = one["data"], sh["data"]
        assert len(a) == len(b) == ROWS
        assert list(a.items()) == list(b.items())
        ks = [a.at(n)[0] for n in range(0, ROWS, 997)]
        assert a.get_many(ks) == b.get_many(ks)
        ia, ib = a.index("cat"), b.index("cat")
        assert ia.count("c3", "c3", inclusive=(True, True)) == ib.count("c3", "c3", inclusive=(True, True))
        assert list(ia.range("c2", "c4")) == list(ib.range("c2", "c4"))
        assert ia.get("c5") == ib.get("c5")
        if partition == "hash":
            _hash_reads(a, b, kind)
        else:
            _range_reads(a, b, [str(d / n) for n in names[:-1]])


def _range_reads(a, b, shards):
    """Around every shard boundary: at, rank, get, counts and scans both ways."""
    # the rows where shards meet, from the shards' own row counts
    edges, total = [], 0
    for n in shards:
        with drydb.open(n) as s:
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


def _hash_reads(a, b, kind):
    """Hash shards: every key found (and absent keys absent), counts, rank and
    key-ordered ranges as one file; row numbers refused, clearly."""
    assert kind == "int64"
    keys = [k for k, _ in a.items()]
    assert b.get_many(keys) == a.get_many(keys)
    absent = [k + 1 for k in keys[::101]] + [-1, 3 * ROWS]
    assert b.get_many(absent) == [None] * len(absent)
    for k in keys[::4999] + absent[:3]:
        assert b.get(k) == a.get(k)
        assert b.rank(k) == a.rank(k)
        assert b.count(k, k + 3000) == a.count(k, k + 3000)
        assert list(b.range(k, k + 300, reverse=True)) == list(a.range(k, k + 300, reverse=True))
    with pytest.raises(drydb.InvalidError, match="hash-partitioned"):
        b.at(0)


def test_write_refuses_unknown_partition(frame, tmp_path):
    import drydb.spark
    with pytest.raises(ValueError, match="range.*hash"):
        drydb.spark.write(frame, str(tmp_path / "x.manifest"), key="id", shards=2, partition="list")


def _link_library(d):
    """libdrydb.so and its SONAME in d, pointing at the tested library."""
    for name in ("libdrydb.so", "libdrydb.so.0"):
        if not os.path.exists(d / name):
            os.symlink(os.path.abspath(drydb.library_path()), str(d / name))


@pytest.fixture(scope="module")
def c_reader(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    d = tmp_path_factory.mktemp("c")
    _link_library(d)
    exe = str(d / "read_dump")
    subprocess.run([cc, "-std=c99", "-O1", "-I", os.path.join(ROOT, "include"), os.path.join(HERE, "c", "read_dump.c"),
                    "-o", exe, "-L", str(d), "-ldrydb", "-Wl,-rpath," + str(d)], check=True)
    return [exe]


@pytest.fixture(scope="module")
def cs_reader(tmp_path_factory):
    """The binding and ReadDump.cs built with mcs into a directory of their
    own (beside the library, as the DryDB.dll.config map expects)."""
    if not (shutil.which("mcs") and shutil.which("mono")):
        pytest.skip("no Mono (mcs, mono)")
    d = tmp_path_factory.mktemp("cs")
    _link_library(d)
    cs = os.path.join(ROOT, "bindings", "csharp")
    src = sorted(os.path.join(cs, "src", f) for f in os.listdir(os.path.join(cs, "src")) if f.endswith(".cs"))
    subprocess.run(["mcs", "-langversion:7.2", "-unsafe", "-nowarn:1591", "-target:library",
                    "-out:" + str(d / "DryDB.dll")] + src, check=True, capture_output=True)
    shutil.copy(os.path.join(cs, "DryDB.dll.config"), str(d))
    subprocess.run(["mcs", "-langversion:7.2", "-r:" + str(d / "DryDB.dll"), "-r:System.Core",
                    "-out:" + str(d / "ReadDump.exe"), os.path.join(HERE, "cs", "ReadDump.cs")], check=True)
    return ["mono", str(d / "ReadDump.exe")]


@pytest.mark.parametrize("reader", ["c_reader", "cs_reader"])
def test_every_language_reads(built, reader, request):
    """C and C# read the Spark-built database and find the rows of the dump
    Python wrote from the DataFrame: every row by get and by cursors both
    ways, the count and the index counts."""
    d, man = built[0], built[1]
    out = subprocess.run(request.getfixturevalue(reader) + [man, "data", str(d / "dump.txt")],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok %d" % ROWS


@pytest.fixture(scope="module")
def cli(tmp_path_factory):
    """The CLI of this tree: built now (Go's build cache makes that quick),
    else build/drydb."""
    go, exe = shutil.which("go"), os.path.join(ROOT, "build", "drydb")
    if go:
        exe = str(tmp_path_factory.mktemp("cli") / "drydb")
        subprocess.run([go, "build", "-o", exe, "./cmd/drydb"], cwd=ROOT, check=True)
    if not os.path.exists(exe):
        pytest.skip("no Go and no build/drydb (make cli)")
    return exe


def test_cli_reads(built, cli):
    """The CLI reads the manifest as the one file of the same rows."""
    d, man = built[0], built[1]
    one = str(d / "one.drydb")

    def run(*args):
        out = subprocess.run([cli] + list(args), capture_output=True, text=True, timeout=600)
        return out.returncode, out.stdout, out.stderr

    assert run("verify", man)[0] == 0
    for q in (["export", "-t", "data"], ["count", "-t", "data"], ["get", "-t", "data", "--index", "cat", "c4"]):
        want, got = run(q[0], one, *q[1:]), run(q[0], man, *q[1:])
        assert want[0] == 0 and got == want, q
