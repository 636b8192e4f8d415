"""DryDB 1.4 output from Python: Builder(format="drydb-1.4") writes a file
(header DRY\\0 1 4) that reads back with the rows and index entries of the
native build of the same input; drydb.convert turns a 1.4 fixture into a
native file and back with the same contents; what 1.4 cannot hold raises
InvalidError naming it. Where the crate-check tool has been built (the Go
test engine/drydb14 builds it with cargo into build/rustcheck), the Rust
crate drydb 0.1.0+drydb1.4 reads the file too."""

import json
import os
import subprocess
import uuid

import pytest

import drydb

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")
FIXTURES = os.path.join(ROOT, "tests", "drydb14", "fixtures")
CRATE_CHECK = os.environ.get("DRYDB14_CRATE_CHECK") or os.path.join(
    ROOT, "build", "rustcheck", "release", "drydb14-crate-check")


def _fill(b, compression=None):
    t = b.table("items", key="int64", compression=compression)
    grp = t.index("grp", key="int64")
    name = t.index("name", key="string", unique=True)
    for i in range(-700, 700):
        v = b"x" * 70000 if i == 3 else b"v%d" % i
        t.add(i * 11, v)
        grp.add(i % 4, i * 11)
        name.add("n%05d" % (i + 700), i * 11)
    s = b.table("strs", key="bytes")
    for k in (b"", b"a", b"\xff", "日本".encode()):
        s.add(k, b"=" + k)
    u = b.table("ids", key="uuid")
    for i in range(40):
        u.add(uuid.UUID(int=(i * 0x9E3779B97F4A7C15) << 40 | i), b"%d" % i)
    b.table("empty", key="int64")


def _contents(path):
    with drydb.open(path, verify=True) as db:
        out = {}
        for name in sorted(db.tables):
            t = db.table(name)
            out[name] = list(t.items())
            for ix in t.indexes:
                out[name + "." + ix] = list(t.index(ix).range(with_index_key=True))
        return out


@pytest.mark.parametrize("compression", [None, "zstd"])
def test_builder_format_drydb14(tmp_path, compression):
    native, v14 = str(tmp_path / "native.drydb"), str(tmp_path / "v14.drydb")
    with drydb.Builder(native, page_size=1024) as b:
        _fill(b)
    with drydb.Builder(v14, page_size=1024, format="drydb-1.4") as b:
        _fill(b, compression)
    with open(v14, "rb") as f:
        head = f.read(7)
    assert head[:6] == b"DRY\x00\x01\x04"
    assert head[6] == (1 if compression else 0)  # the zstd filter covers the whole file
    assert _contents(v14) == _contents(native)
    b = drydb.Builder(None, page_size=1024, format="drydb-1.4")
    _fill(b, compression)
    with open(v14, "rb") as f:
        assert b.build() == f.read()
    if os.path.exists(CRATE_CHECK):
        dump = json.loads(subprocess.run([CRATE_CHECK, v14], check=True, capture_output=True).stdout)
        rows = {t["name"]: t["count"] for t in dump["tables"]}
        assert rows == {"items": 1400, "strs": 4, "ids": 40, "empty": 0}


def test_convert_fixture_round_trip(tmp_path):
    fx = os.path.join(FIXTURES, "i64_p4096.drydb")
    native, back = str(tmp_path / "n.drydb"), str(tmp_path / "b.drydb")
    drydb.convert(fx, native, "native")
    with open(native, "rb") as f:
        assert f.read(4) != b"DRY\x00"
    drydb.convert(native, back, "drydb-1.4", page_size=512, compression="zstd")
    with open(back, "rb") as f:
        assert f.read(7) == b"DRY\x00\x01\x04\x01"
    want = _contents(fx)
    assert _contents(native) == want
    assert _contents(back) == want


def test_refusals(tmp_path):
    with pytest.raises(ValueError, match="format"):
        drydb.Builder(None, format="drydb-9")
    b = drydb.Builder(None, format="drydb-1.4")
    with pytest.raises(drydb.InvalidError, match='"f".*float64'):
        b.table("f", key="float64")
    with pytest.raises(drydb.InvalidError, match='"pairs".*composite'):
        b.table("pairs", key=("int64", "string"))
    with pytest.raises(drydb.InvalidError, match="S2"):
        b.table("s", key="int64", compression="s2")
    t = b.table("ok", key="int64")
    with pytest.raises(drydb.InvalidError, match="uint64"):
        t.index("u", key="uint64")
    b.abort()
    src, out = str(tmp_path / "u.drydb"), str(tmp_path / "out.drydb")
    with drydb.Builder(src) as b:
        b.table("u", key="uint64").add(1, b"x")
    with pytest.raises(drydb.InvalidError, match='"u".*uint64'):
        drydb.convert(src, out, "drydb-1.4")
    with pytest.raises(ValueError):
        drydb.convert(src, out, "csv")
    assert not os.path.exists(out)
