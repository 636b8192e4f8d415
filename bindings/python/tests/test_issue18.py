"""Issue 18's Python items, a test each: the Mapping ABC, count(prefix=),
metadata listing, partial composite bounds, index functions (declared after
rows, repeated keys), compression levels, `import *`, decoded keys and single
"drydb:" prefixes in errors, and codecs recorded by the CLI."""

import collections.abc
import os
import shutil
import subprocess

import pytest

import drydb
from conftest import ROOT


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    p = str(tmp_path_factory.mktemp("i18") / "i18.drydb")
    with drydb.Builder(p, page_size=512) as b:
        b.table("n", key="int64").add_many((i, b"%d" % i) for i in range(300))
        b.table("s", key="string").add_many((k, k.encode()) for k in ("a", "ab", "abc", "b", "ba"))
        p2 = b.table("p", key=("string", "int64"))
        ix = p2.index("by_s", key=("string", "int64"), func=lambda k, v: k)
        p2.add_many(((s, n), b"%s%d" % (s.encode(), n)) for s in ("a", "ab", "b") for n in (1, 2, 3))
        assert ix.name == "by_s"
    with drydb.open(p) as d:
        yield d


def test_table_is_a_mapping(db):
    t = db["n"]
    assert isinstance(t, collections.abc.Mapping)
    ks, vs, its = t.keys(), t.values(), t.items()
    assert isinstance(ks, collections.abc.KeysView) and isinstance(vs, collections.abc.ValuesView)
    assert isinstance(its, collections.abc.ItemsView)
    assert len(ks) == len(vs) == len(its) == 300
    assert 5 in ks and 300 not in ks and (5, b"5") in its and (5, b"6") not in its
    assert list(ks) == list(range(300)) and list(ks) == list(range(300))  # iterable again
    assert list(reversed(ks))[:2] == [299, 298] and list(reversed(vs))[0] == b"299"
    assert next(iter(its)) == (0, b"0")
    assert dict(t.items()) == {i: b"%d" % i for i in range(300)}


def test_count_prefix(db):
    assert db["s"].count(prefix="a") == 3 and db["s"].count(prefix="b") == 2
    assert db["s"].count(prefix="z") == 0
    assert db["p"].count(prefix=("a",)) == 3 and db["p"].count(prefix=("ab", 2)) == 1
    with pytest.raises(TypeError):
        db["s"].count("a", "b", prefix="a")
    # and on an index: by_s maps (s, n) -> (s, n), so its prefixes count the same
    ix = db["p"].index("by_s")
    assert ix.count(prefix=("a",)) == 3 and ix.count(prefix=("ab", 2)) == 1 and ix.count(prefix=("c",)) == 0
    assert ix.count(prefix=("a",)) == len(list(ix.prefix(("a",))))
    with pytest.raises(TypeError):
        ix.count(("a",), None, prefix=("a",))


def test_partial_composite_bounds(db):
    p = db["p"]
    a_all = [("a", 1), ("a", 2), ("a", 3)]
    assert [k for k, _ in p.range(("a",), ("a",), inclusive=(True, True))] == a_all
    assert [k for k, _ in p.range(("a",), ("ab",))] == a_all
    assert [k for k, _ in p.range(("a",), ("b",), inclusive=(False, False))] == [("ab", 1), ("ab", 2), ("ab", 3)]
    assert p.count(("a",), ("a",), inclusive=(True, True)) == 3
    assert [k for k, _ in p.range(("ab",), None, inclusive=(False, True))] == [("b", 1), ("b", 2), ("b", 3)]
    ix = p.index("by_s")
    assert [pk for pk, _ in ix.get_all(("a",))] == a_all
    assert ix.count(("b",), ("b",), inclusive=(True, True)) == 3


def test_index_func_after_rows_refused(tmp_path):
    with drydb.Builder(str(tmp_path / "x.drydb")) as b:
        t = b.table("t", key="int64")
        t.add(1, b"x")
        with pytest.raises(ValueError, match="before adding rows"):
            t.index("i", key="int64", func=lambda k, v: k)
        t.index("manual", key="int64").add(10, 1)  # entries given by hand may come later
        u = b.table("u", key="int64")
        u.add_many([(1, b"")])
        with pytest.raises(ValueError):
            u.index("i", func=lambda k, v: b"x")


def test_index_func_repeated_keys_are_one_entry(tmp_path):
    p = str(tmp_path / "tags.drydb")
    with drydb.Builder(p) as b:
        t = b.table("t", key="int64", codec="json")
        t.index("tag", key="string", func=lambda k, v: v["tags"])
        t.add_many([(1, {"tags": ["x", "y", "x"]}), (2, {"tags": ["y", "y"]})])
    with drydb.open(p) as d:
        ix = d["t"].index("tag")
        assert len(ix) == 3
        assert [pk for pk, _ in ix.get_all("y")] == [1, 2]


@pytest.mark.parametrize("compression,level,ok", [
    ("zstd", 1, True), ("zstd", 4, True), ("zstd", 0, True), ("zstd", 5, False), ("zstd", -1, False),
    ("s2", 3, False), (None, 2, False), ("s2", 0, True), (None, 0, True)])
def test_levels(tmp_path, compression, level, ok):
    b = drydb.Builder(None)
    try:
        if ok:
            b.table("t", compression=compression, level=level)
        else:
            with pytest.raises(ValueError, match="level"):
                b.table("t", compression=compression, level=level)
    finally:
        b.abort()


def test_import_star_keeps_builtins():
    ns = {}
    exec("from drydb import *", ns)
    assert "open" not in ns and "Builder" in ns and "register_codec" in ns
    assert drydb.open is not open


def test_errors_show_decoded_keys_and_one_prefix(tmp_path):
    msgs = []
    for key, rows, shown in [("int64", [42, 42], "key 42 twice"),
                             (("string", "int64"), [("a", 1), ("a", 1)], 'key ("a", 1) twice')]:
        b = drydb.Builder(None)
        b.table("t", key=key).add_many((k, b"") for k in rows)
        with pytest.raises(drydb.DuplicateKeyError) as e:
            b.build()
        assert shown in str(e.value)
        msgs.append(str(e.value))
    b = drydb.Builder(None)
    t = b.table("t", key="int64")
    t.index("u", key="int64", unique=True, func=lambda k, v: 7)
    t.add_many([(1, b""), (2, b"")])
    with pytest.raises(drydb.DuplicateKeyError) as e:
        b.build()
    assert "index key 7 twice" in str(e.value)
    msgs.append(str(e.value))
    b = drydb.Builder(None)
    with pytest.raises(drydb.KeyTooLargeError) as e:
        b.table("t", key="bytes").add_many([(b"x" * 5000, b"")])
    msgs.append(str(e.value))
    b.abort()
    for m in msgs:
        assert m.count("drydb:") == 1, m


@pytest.mark.skipif(shutil.which("go") is None, reason="needs go to build the CLI")
def test_cli_built_json_reads_as_objects(tmp_path):
    """A file the CLI built from JSON rows records codec json: Python decodes
    it without being told."""
    exe = str(tmp_path / "drydb")
    subprocess.run(["go", "build", "-o", exe, "./cmd/drydb"], cwd=ROOT, check=True, timeout=600)
    src = tmp_path / "items.jsonl"
    src.write_text('{"id": 1, "name": "pen"}\n{"id": 2, "name": "ink"}\n')
    out = str(tmp_path / "cli.drydb")
    subprocess.run([exe, "build", out, "-q", "--key", "id", "-e", "int64", str(src)], check=True, timeout=120)
    with drydb.open(out) as d:
        t = d["items"]
        assert t.codec is not None and t.codec.name == "json"
        assert t[1] == {"id": 1, "name": "pen"}
        assert d.table("items", codec=None)[2] == b'{"id":2,"name":"ink"}'
    assert os.path.exists(out)
