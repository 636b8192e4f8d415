"""Hash indexes (Builder.table(hash=...), Table.hashed): which tables get
one, that every key kind reads the same through it as through the tree,
what is refused, and that a merge can turn one on or off."""

import uuid

import pytest

import drydb


def _keys(kind, n):
    if kind == "string":
        return ["item:%06d" % (i * 7) for i in range(n)]
    if kind == "bytes":
        return [(i * 3).to_bytes(3, "big") for i in range(n)]
    if kind == "uuid":
        return [uuid.UUID(int=(i << 64) | (i * 0x9E3779B97F4A7C15 & (2**64 - 1))) for i in range(n)]
    if kind == "sparse":
        return [i * 37 - 5000 for i in range(n)]
    return list(range(n))  # dense


_KEY = {"string": str, "bytes": bytes, "uuid": uuid.UUID, "sparse": int, "dense": int}


@pytest.mark.parametrize("kind", ["string", "bytes", "uuid", "sparse", "dense"])
@pytest.mark.parametrize("hash_", [None, True, False])
def test_hash_modes(kind, hash_):
    keys = _keys(kind, 3000)
    b = drydb.Builder(None, page_size=512)
    t = b.table("t", key=_KEY[kind], hash=hash_)
    t.add_many((k, b"v%d" % i) for i, k in enumerate(keys))
    db = drydb.open_memory(b.build())
    db.verify()
    tbl = db.table("t")
    want = hash_ is True or hash_ is None and kind != "dense"
    assert tbl.hashed is want
    for i, k in enumerate(keys):
        assert tbl.get(k) == b"v%d" % i
    got = tbl.get_many(keys[::-1])
    assert got == [b"v%d" % i for i in range(len(keys) - 1, -1, -1)]
    absent = {"string": "item:0000001", "bytes": b"\xff\xff\xff\xff", "uuid": uuid.UUID(int=5),
              "sparse": -4999, "dense": 10**9}[kind]
    assert tbl.get(absent) is None
    assert absent not in tbl
    db.close()


@pytest.mark.parametrize("compression", ["zstd", "s2"])
def test_hash_compressed(compression):
    keys = _keys("string", 4000)
    b = drydb.Builder(None, page_size=512)
    with pytest.raises(TypeError):
        b.table("y", key=str, hash="yes")
    for name, h in (("auto", None), ("on", True)):
        b.table(name, key=str, compression=compression, hash=h).add_many(
            (k, b"v%d" % i) for i, k in enumerate(keys))
    db = drydb.open_memory(b.build())
    db.verify()
    assert db.table("auto").hashed is False and db.table("on").hashed is True
    for name in ("auto", "on"):
        tbl = db.table(name)
        for _ in range(2):  # cold (Go decodes), then warm (cache hits in C)
            for i in range(0, len(keys), 7):
                assert tbl.get(keys[i]) == b"v%d" % i
            assert tbl.get("item:0000001") is None
        assert tbl.get_many(keys[:300]) == [b"v%d" % i for i in range(300)]


def test_merge_turns_hash_off_and_on(tmp_path):
    base = str(tmp_path / "base.drydb")
    with drydb.Builder(base) as b:
        t = b.table("t", key=str)
        t.add_many(("k%05d" % i, b"%d" % i) for i in range(2000))
    with drydb.open(base) as db:
        assert db.table("t").hashed
    for hash_, want in ((False, False), (None, True), (True, True)):
        out = str(tmp_path / ("m%s.drydb" % hash_))
        with drydb.open(base) as bdb, drydb.Builder.merge(bdb, out) as m:
            t = m.table("t", hash=hash_)
            t.add("k99999", b"new")
        with drydb.open(out) as db:
            db.verify()
            tbl = db.table("t")
            assert tbl.hashed is want
            assert tbl.get("k01234") == b"1234" and tbl.get("k99999") == b"new"
            assert len(tbl) == 2001
