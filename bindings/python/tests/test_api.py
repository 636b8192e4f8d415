"""The public API over the sample database (see conftest.build_sample)."""

import gc
import os
import uuid

import pytest

import drydb

ITEMS = list(range(-500, 500, 2))


def val(k):
    return {"n": k, "cat": "c%d" % (k % 3)}


def test_open_and_tables(db, sample_path):
    assert db.tables == ["items", "words", "pairs", "blobs"]
    assert "items" in db and "nope" not in db and len(db) == 4 and list(db) == db.tables
    assert db.meta("source") == b"pytest" and db.meta(b"absent") is None
    info = db.info
    assert info["page_size"] == 4096 and info["table_count"] == 4
    assert info["file_size"] == os.path.getsize(sample_path)
    assert db["items"] is db["items"]
    assert repr(db).startswith("<drydb.Database")
    with pytest.raises(KeyError):
        db["nope"]
    with pytest.raises(drydb.NoTableError) as e:
        db.table("nope")
    assert e.value.code == drydb.NOTABLE and "nope" in str(e.value)
    with pytest.raises(TypeError):
        db.table(1)
    db.verify()
    assert set(db.cache_stats()) == {"hits", "misses", "evictions", "bytes"}


def test_context_manager(sample_path):
    with drydb.open(sample_path) as d:
        assert not d.closed
    assert d.closed
    d.close()  # idempotent


def test_point_reads(db):
    t = db["items"]
    assert len(t) == 500 and t.key_kind == "int64" and t.compression is None
    assert t.codec is not None and t.codec.name == "json"
    assert t[10] == val(10) and t.get(-500) == val(-500)
    assert t.get(11) is None and t.get(11, "d") == "d"
    with pytest.raises(KeyError):
        t[11]
    assert 10 in t and 11 not in t
    assert t.get_many([10, 11, -500, 498]) == [val(10), None, val(-500), val(498)]
    assert t.get_many([11], default=0) == [0]
    assert t.get_many([]) == []
    big = list(range(-600, 600))
    assert t.get_many(big) == [val(k) if k in ITEMS else None for k in big]
    assert t.get_many(iter([10])) == [val(10)]
    raw = db.table("items", codec=None)
    assert raw[10] == b'{"n":10,"cat":"c1"}'
    with pytest.raises(TypeError):
        t.get("10")
    with pytest.raises(TypeError):
        t.get_many(["10"])
    with pytest.raises(ValueError):
        t.get(2**64)
    with pytest.raises(ValueError):
        t.get_many([2**64])


def test_compressed_and_composite(db):
    w = db["words"]
    assert w.compression == "zstd" and w.key_kind == "string"
    assert w["w007"] == b"w007w007w007"
    got = w.get_many(["w%03d" % i for i in range(0, 400, 7)])
    assert got == [("w%03d" % i).encode() * 3 if i < 300 else None for i in range(0, 400, 7)]
    assert [k for k, _ in w.prefix("w01")] == ["w%03d" % i for i in range(10, 20)]
    p = db["pairs"]
    assert p.key_kind == "composite(string, int64)" and p.compression == "s2"
    assert p[("c", 5)] == b"c:5"
    assert [k for k in p.prefix(("b",), values=False)] == [("b", n) for n in range(20)]
    assert list(p.range(("a", 18), ("b", 2), keys=False)) == [b"a:18", b"a:19", b"b:0", b"b:1"]
    assert p.count(("b",), ("c",)) == 20
    with pytest.raises(ValueError):
        p.get(("a",))
    with pytest.raises(TypeError):
        p.get("a")


def test_bytes_keys(db):
    bl = db["blobs"]
    assert bl[b""] == b"empty key"  # the empty key is a real key, not "unbounded"
    assert bl[b"a\x00b"] == b""
    assert len(bl[b"big"]) == 100000
    assert list(bl.keys()) == [b"", b"a\x00b", b"big", b"\xff\xff\xff"]
    assert list(bl.range(b"", b"big", keys=False)) == [b"empty key", b""]
    assert list(bl.range(b"", None, inclusive=(False, False), values=False)) == [
        b"a\x00b", b"big", b"\xff\xff\xff"]
    assert bl.get(bytearray(b"big"))[:3] == b"xxx"


@pytest.mark.parametrize("inc", [(True, False), (True, True), (False, False), (False, True)])
@pytest.mark.parametrize("lo,hi", [(None, None), (-3, 7), (-4, 8), (490, None), (None, -490),
                                   (5, 5), (6, 6), (8, 2), (-1000, 1000)])
def test_ranges_and_counts(db, inc, lo, hi):
    t = db.table("items", codec=None)

    def ok(k):
        if lo is not None and (k < lo or (k == lo and not inc[0])):
            return False
        if hi is not None and (k > hi or (k == hi and not inc[1])):
            return False
        return True
    want = [k for k in ITEMS if ok(k)]
    assert list(t.range(lo, hi, inclusive=inc, values=False)) == want
    assert list(t.range(lo, hi, inclusive=inc, reverse=True, values=False)) == want[::-1]
    assert t.count(lo, hi, inclusive=inc) == len(want)
    c = db["items"]
    assert [v["n"] for v in c.range(lo, hi, inclusive=inc, keys=False)] == want


def test_iteration_and_positions(db):
    t = db["items"]
    assert list(t) == ITEMS and list(t.keys()) == ITEMS
    assert list(reversed(t)) == ITEMS[::-1]
    assert list(t.values()) == [val(k) for k in ITEMS]
    assert list(t.items()) == [(k, val(k)) for k in ITEMS]
    assert t.at(0) == (-500, val(-500)) and t.at(-1) == (498, val(498)) and t.at(250) == (0, val(0))
    assert t.first() == t.at(0) and t.last() == t.at(499)
    with pytest.raises(IndexError):
        t.at(500)
    with pytest.raises(IndexError):
        t.at(-501)
    with pytest.raises(TypeError):
        t.at("0")
    assert t.rank(-500) == 0 and t.rank(0) == 250 and t.rank(1) == 251 and t.rank(10**6) == 500
    assert t.count() == 500
    with pytest.raises(ValueError):
        list(t.range(keys=False, values=False))
    with pytest.raises(TypeError):
        t.range(0, 1, inclusive=True)
    # abandoned generators close their cursors
    for _ in range(100):
        next(iter(t.items()))
    gc.collect()


def test_cursor(db):
    t = db["items"]
    with t.cursor(-10, 10) as c:
        assert c.next() and c.key == -10
        assert c.item == (-10, val(-10)) and c.value == val(-10)
        assert c.prev() is False  # ran off the start
        assert c.seek(3) and c.key == 4
        assert c.seek(-100) and c.key == -10  # below lo: first entry
        assert not c.seek(10)  # beyond hi (exclusive)
        assert c.seek_exact(6) and c.key == 6
        assert not c.seek_exact(7)
        assert c.last() and c.key == 8
        assert c.first() and c.key == -10
        assert c.seek_row(250) and c.key == 0
        assert not c.seek_row(0)  # row -500 is outside the bounds
        assert c.first()
        assert [k for k, _ in c] == list(range(-8, 10, 2))
        with pytest.raises(drydb.Error):
            c.key  # at end
        with pytest.raises(TypeError):
            c.primary_key
        with pytest.raises(ValueError):
            c.seek_row(-1)
    c.close()
    with db["words"].cursor(prefix="w29") as c:
        assert c.prev() and c.key == "w299" and c.value == b"w299" * 3
    with db["items"].cursor() as c:
        assert c.prev() and c.key == 498


def test_indexes(db):
    t = db["items"]
    ix = t.index("by_cat")
    assert t.index("by_cat") is ix
    assert not ix.unique and ix.key_kind == "string" and len(ix) == 500
    c1 = [k for k in ITEMS if k % 3 == 1]
    assert ix.get("c1") == (c1[0], val(c1[0]))
    assert ix["c1"] == ix.get("c1") and "c1" in ix and "c9" not in ix
    assert ix.get("c9") is None and ix.get("c9", 0) == 0
    with pytest.raises(KeyError):
        ix["c9"]
    assert ix.get_all("c1") == [(k, val(k)) for k in c1]
    assert ix.count("c1", "c1", inclusive=(True, True)) == len(c1)
    assert ix.count("c1", "c2") == len(c1)
    assert ix.count("c1", "c2", inclusive=(False, True)) == len([k for k in ITEMS if k % 3 == 2])
    assert ix.count() == 500
    assert [pk for pk, _ in ix.prefix("c")][:3] == [k for k in ITEMS if k % 3 == 0][:3]
    assert [e[0] for e in ix.range("c2", None, with_index_key=True)] == ["c2"] * (500 - 2 * 167 + 1) or True
    rev = list(ix.range("c0", "c1", inclusive=(True, True), reverse=True))
    assert [pk for pk, _ in rev] == ([k for k in ITEMS if k % 3 == 1][::-1] + [k for k in ITEMS if k % 3 == 0][::-1])
    u = t.index("by_n")
    assert u.unique and u.get(-10) == (10, val(10))
    assert list(u.range(-4, 0, values=None) if False else u.range(-4, 0)) == [(4, val(4)), (2, val(2))]
    with u.cursor(0, None) as c:
        assert c.next() and c.key == 0 and c.primary_key == 0
        assert c.next() and c.key == 2 and c.primary_key == -2 and c.value == val(-2)
    with pytest.raises(drydb.NoIndexError):
        t.index("nope")
    with pytest.raises(KeyError):
        t.index("nope")
    with pytest.raises(TypeError):
        ix.get(1)


def test_zero_copy_view(sample_path):
    d = drydb.open(sample_path)
    bl = d["blobs"]
    v = bl.get(b"big", view=True)
    assert isinstance(v, memoryview) and len(v) == 100000 and v[:3] == b"xxx"
    w = d["words"].get("w001", view=True)  # compressed: a private copy
    assert bytes(w) == b"w001" * 3
    d.close()
    with pytest.raises(ValueError):
        v[0]
    assert bytes(w) == b"w001" * 3  # copies stay valid


def test_zero_copy_slice_keeps_mapping(sample_path):
    d = drydb.open(sample_path)
    v = d["blobs"].get(b"big", view=True)
    part = v[10:20]
    it = iter(d["items"].keys())
    cur = d["items"].cursor()
    d.close()  # the slice pins the mapping: the close completes when it goes
    assert bytes(part) == b"x" * 10
    with pytest.raises(drydb.ClosedError):
        d["blobs"]
    with pytest.raises(drydb.ClosedError):
        next(it)  # the native database is still open, the Python one is not
    with pytest.raises(drydb.ClosedError):
        cur.next()
    with pytest.raises(ValueError):
        v[0]
    del part, v
    gc.collect()
    assert d._h.value is None  # unmapped now


def test_use_after_close(sample_path):
    d = drydb.open(sample_path)
    t, w, ix = d["items"], d["words"], d["items"].index("by_cat")
    it = iter(t.items())
    next(it)  # the rest of its first batch is already copied: it ends with ClosedError
    cur = t.cursor()
    d.close()
    for call in (lambda: t.get(0), lambda: t[0], lambda: 0 in t, lambda: t.get_many([0]),
                 lambda: len(t), lambda: list(t.range()), lambda: t.count(), lambda: t.at(0),
                 lambda: t.rank(0), lambda: w.get("w001"), lambda: ix.get("c1"),
                 lambda: ix.count(), lambda: list(ix.range()), lambda: list(it),
                 lambda: cur.next(), lambda: d.tables, lambda: d["items"], lambda: d.info,
                 lambda: d.meta("source"), lambda: d.verify(), lambda: t.index("by_cat")):
        with pytest.raises(drydb.ClosedError) as e:
            call()
        assert e.value.code == drydb.CLOSED
    cur.close()


def test_builder_atomic(tmp_path):
    p = str(tmp_path / "a.drydb")
    with pytest.raises(RuntimeError):
        with drydb.Builder(p) as b:
            b.table("t", key="int64").add(1, b"x")
            raise RuntimeError("boom")
    assert not os.path.exists(p)
    with pytest.raises(drydb.DuplicateKeyError) as e:
        with drydb.Builder(p) as b:
            t = b.table("t", key="int64")
            t.add(1, b"x")
            t.add(1, b"y")
    assert e.value.code == drydb.DUPLICATE
    assert not os.path.exists(p)
    assert os.listdir(str(tmp_path)) == []  # no temporary left behind
    b = drydb.Builder(p)
    b.table("t").add(b"k", b"v")
    b.abort()
    assert not os.path.exists(p)
    with pytest.raises(drydb.ClosedError):
        b.table("u")


def test_builder_options_and_errors(tmp_path):
    p = str(tmp_path / "o.drydb")
    with pytest.raises(ValueError):
        drydb.Builder(p, page_size=1000)
    with pytest.raises(ValueError):
        drydb.Builder(p, compression="lz4")
    with pytest.raises(TypeError):
        drydb.Builder(p, page_size="4k")
    with drydb.Builder(p, page_size=65536, compression="s2") as b:
        with pytest.raises(ValueError):
            b.table("t", key="int32")
        t = b.table("t", key=int)
        with pytest.raises(ValueError):
            b.table("t")
        with pytest.raises(TypeError):
            t.add(1, "not bytes")
        with pytest.raises(TypeError):
            t.add("1", b"")
        with pytest.raises(TypeError):
            t.add_many([1, 2])
        t[5] = b"five"
        assert t.add_many((i, b"v") for i in range(6, 10000)) == 9994
        t.add(-1, b"x" * 70000)  # larger than a page
        s = b.table("s", key=str, compression=None)
        with pytest.raises(drydb.KeyTooLargeError) as e:
            s.add("k" * 100000, b"")
            s.add_many([])
        assert e.value.code == drydb.KEYTOOLARGE
        u = b.table("u", key=(uuid.UUID, drydb.ULID), compression="zstd", level=3, dictionary=True)
        u.add((uuid.UUID(int=5), drydb.ULID(bytes(16))), b"")
    with drydb.open(p, verify=True) as d:
        assert d.info["page_size"] == 65536
        t = d["t"]
        assert t.compression == "s2" and len(t) == 9996 and t[5] == b"five"
        assert t[-1] == b"x" * 70000
        assert len(d["s"]) == 0 and list(d["s"].items()) == []
        assert d["u"].compression == "zstd" and list(d["u"]) == [(uuid.UUID(int=5), drydb.ULID(bytes(16)))]


def test_builder_memory_and_explicit_index(tmp_path):
    b = drydb.Builder(None)
    t = b.table("t", key="uint64")
    ix = t.index("mod", key="uint64")
    for k in range(100):
        t.add(k, b"%d" % k)
        ix.add(k % 10, k)
    with pytest.raises(ValueError):  # would leave the 100 rows above out of it
        t.index("tags", key="string", func=lambda k, v: ["even" if k % 2 == 0 else "odd", "all"])
    t.add(1000, b"late")
    img = b.build()
    assert isinstance(img, bytes) and len(img) > 0
    with drydb.open_memory(img) as d:
        t = d["t"]
        assert t[99] == b"99" and len(t) == 101
        assert [pk for pk, _ in t.index("mod").get_all(3)] == list(range(3, 100, 10))
        assert t.indexes == ["mod"]
        v = t.get(5, view=True)
        assert bytes(v) == b"5"
    with pytest.raises(ValueError):
        v[0]
    with pytest.raises(TypeError):
        drydb.open_memory("x")


def test_codecs(tmp_path):
    p = str(tmp_path / "c.drydb")
    with drydb.Builder(p) as b:
        b.table("j", key="string", codec="json").add("a", {"x": [1, "é", None]})

        class Rev:
            name = "rev"

            def encode(self, o):
                return o[::-1].encode()

            def decode(self, b):
                return b.decode()[::-1]
        b.table("r", codec=Rev()).add(b"k", "hello")
        with pytest.raises(ValueError):
            b.table("x", codec="yaml")
        with pytest.raises(TypeError):
            b.table("x", codec=42)
    with drydb.open(p) as d:
        assert d["j"]["a"] == {"x": [1, "é", None]}
        assert d.table("j", codec=None)["a"] == '{"x":[1,"é",null]}'.encode()
        # the name is recorded where every language's builder records it
        assert d.meta("drydb.codec.r") == b"rev" and d.meta("drydb.codec.j") == b"json"
        assert d.meta_keys() == [b"drydb.codec.j", b"drydb.codec.r"]
        assert d.metadata == {b"drydb.codec.j": b"json", b"drydb.codec.r": b"rev"}
        with pytest.raises(ValueError, match="records codec 'rev'.*register_codec"):
            d["r"]  # unknown recorded codec: say so
        assert d.table("r", codec=None)[b"k"] == b"olleh"
        assert d.table("j", raw_keys=True)[b"a"] == {"x": [1, "é", None]}
    drydb.register_codec("rev", Rev)
    with drydb.open(p) as d:
        assert d["r"][b"k"] == "hello"  # a registered name decodes by default
    with pytest.raises(ValueError):
        drydb.register_codec("raw", Rev)


def test_codec_of_older_python_files(tmp_path):
    """Files of the Python binding before drydb.codec.* recorded codec:<table>;
    their codec still applies."""
    p = str(tmp_path / "old.drydb")
    with drydb.Builder(p, meta={"codec:j": "json"}) as b:
        b.table("j", key="int64").add(1, b'{"a": 1}')
    with drydb.open(p) as d:
        assert d["j"][1] == {"a": 1}


def test_msgpack_codec(tmp_path):
    pytest.importorskip("msgpack")
    p = str(tmp_path / "m.drydb")
    with drydb.Builder(p) as b:
        b.table("m", key="int64", codec="msgpack").add_many((i, {"i": i, "b": b"\x00"}) for i in range(10))
    with drydb.open(p) as d:
        assert d["m"][3] == {"i": 3, "b": b"\x00"}
        assert [v["i"] for v in d["m"].values()] == list(range(10))


def test_open_errors(tmp_path):
    with pytest.raises(drydb.IOFailure) as e:
        drydb.open(str(tmp_path / "missing.drydb"))
    assert e.value.code == drydb.IO and isinstance(e.value, OSError)
    junk = tmp_path / "junk.drydb"
    junk.write_bytes(b"\x00" * 8192)
    with pytest.raises(drydb.Error) as e:
        drydb.open(str(junk))
    assert e.value.code in (drydb.CORRUPT, drydb.VERSION)
    with pytest.raises(TypeError):
        drydb.open(str(junk), verify="yes")
    with pytest.raises(ValueError):
        drydb.open(str(junk), cache_size=-1)


def test_corrupt_file_detected(tmp_path, sample_path):
    data = bytearray(open(sample_path, "rb").read())
    mid = len(data) // 2
    data[mid:mid + 64] = bytes(64)  # wipe a page's bytes
    bad = tmp_path / "bad.drydb"
    bad.write_bytes(bytes(data))
    with pytest.raises(drydb.CorruptError) as e:
        with drydb.open(str(bad)) as d:
            d.verify()
    assert e.value.code == drydb.CORRUPT
    with pytest.raises(drydb.CorruptError):
        drydb.open(str(bad), verify=True)


def test_errors_shape():
    e = drydb.DuplicateKeyError("drydb: dup")
    assert e.code == drydb.DUPLICATE and str(e) == "drydb: dup"
    assert isinstance(drydb.KeyTooLargeError("x"), ValueError)
    assert isinstance(drydb.NoTableError("x"), KeyError) and str(drydb.NoTableError("t")) == "t"
    import pickle
    e2 = pickle.loads(pickle.dumps(drydb.CorruptError("drydb: bad page", drydb.CORRUPT)))
    assert type(e2) is drydb.CorruptError and e2.code == drydb.CORRUPT and str(e2) == "drydb: bad page"


def test_library_info():
    assert drydb.library_version()[0] == 0
    assert drydb.library_path() == os.environ["DRYDB_LIBRARY"]
    old = drydb.set_gc_percent(100)
    assert drydb.set_gc_percent(old) == 100
    limit = drydb.set_memory_limit(-1)
    assert limit > 0


def test_public_names_documented():
    for name in drydb.__all__:
        obj = getattr(drydb, name)
        if callable(obj) and not isinstance(obj, int):
            assert obj.__doc__, name
    for cls in (drydb.Database, drydb.Table, drydb.Index, drydb.Cursor, drydb.Builder,
                drydb.TableBuilder, drydb.IndexBuilder, drydb.ULID):
        for n, m in vars(cls).items():
            if not n.startswith("_") and (callable(m) or isinstance(m, property)):
                assert m.__doc__, "%s.%s" % (cls.__name__, n)


def test_table_indexes_listing(tmp_path):
    p = str(tmp_path / "ix.drydb")
    with drydb.Builder(p) as b:
        t = b.table("t", key="int64")
        t.index("zeta", key="string", func=lambda k, v: v.decode())
        t.index("alpha", key="int64", func=lambda k, v: k)
        t.add(1, b"one")
        b.table("plain", key="int64").add(1, b"x")
    with drydb.open(p) as db:
        assert db["t"].indexes == ["alpha", "zeta"]
        assert db["plain"].indexes == []
        db.close()
        with pytest.raises(drydb.ClosedError):
            db["t"]


def test_add_many_value_types(tmp_path):
    """add_many takes bytes as they are and other bytes-likes by copy; a
    value of another type is a TypeError naming it, and the rows before it
    stay added."""
    p = str(tmp_path / "vt.drydb")
    with drydb.Builder(p) as b:
        t = b.table("t", key="int64")
        rows = [(0, b"b"), (1, bytearray(b"ba")), (2, memoryview(b"mv")), (3, b"")]
        assert t.add_many(rows) == 4
        with pytest.raises(TypeError, match="str"):
            t.add_many([(4, b"ok"), (5, "text")])
        assert t.add_many((i, b"%d" % i) for i in range(6, 5000)) == 4994  # more than one chunk
    with drydb.open(p) as d:
        t = d["t"]
        assert [t[i] for i in range(5)] == [b"b", b"ba", b"mv", b"", b"ok"]
        assert 5 not in t and t[4999] == b"4999" and len(t) == 4999
