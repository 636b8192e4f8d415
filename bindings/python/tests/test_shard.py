"""A sharded database (range shards and a manifest) read through the
binding gives what the same rows in one file give."""

import os

import pytest

import drydb

ROWS = 3000
CUTS = [0, 800, 1700, 1701, ROWS]  # four shards, one holding a single row


def _build(path, rows, names=True):
    with drydb.Builder(path, page_size=512) as b:
        t = b.table("items", key="int64", codec="json")
        t.index("by_cat", key="string", func=lambda k, v: v["cat"])
        z = b.table("names", key="string", compression="zstd") if names else None
        for i in rows:
            t.add(3 * i, {"cat": "c%d" % (i % 7), "n": i})
            if z:
                z.add("k%05d" % i, b"v%d" % i)


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    d = tmp_path_factory.mktemp("shard")
    _build(str(d / "one.drydb"), range(ROWS))
    names = []
    for s in range(len(CUTS) - 1):
        names.append("part-%d.drydb" % s)
        _build(str(d / names[-1]), range(CUTS[s], CUTS[s + 1]))
    drydb.write_range_manifest(str(d / "db.manifest"), names)
    one, sharded = drydb.open(str(d / "one.drydb")), drydb.open(str(d / "db.manifest"), verify=True)
    yield d, one, sharded
    one.close()
    sharded.close()


def _marks(table):
    ms = [-1, 0, 1, 799, 800, 801, 1699, 1700, 1701, 1702, 2999, 3000]
    if table == "items":
        return [3 * m + d for m in ms for d in (-1, 0, 1)]
    return ["k%05d" % m for m in ms] + ["k%05d!" % m for m in ms]


@pytest.mark.parametrize("name", ["items", "names"])
def test_same_as_one_file(pair, name):
    _, one, sh = pair
    a, b = one[name], sh[name]
    assert len(a) == len(b) == ROWS
    assert a.key_kind == b.key_kind and a.indexes == b.indexes
    marks = _marks(name)
    for k in marks:
        assert a.get(k) == b.get(k)
        assert a.rank(k) == b.rank(k)
    assert a.get_many(marks) == b.get_many(marks)
    for n in list(range(0, ROWS, 97)) + [ROWS - 1]:
        assert a.at(n) == b.at(n)
    with pytest.raises(IndexError):
        b.at(ROWS)
    assert a.first() == b.first() and a.last() == b.last()
    for lo in marks[::2]:
        for hi in marks[1::3]:
            assert a.count(lo, hi) == b.count(lo, hi)
            for rev in (False, True):
                assert list(a.range(lo, hi, reverse=rev)) == list(b.range(lo, hi, reverse=rev))
    assert list(a.items()) == list(b.items())


def test_cursor_crosses_shards(pair):
    _, one, sh = pair
    for t in (one["items"], sh["items"]):
        c = t.cursor()
        assert c.seek(3 * 799)
        seen = [c.key]
        for _ in range(3):
            c.next()
            seen.append(c.key)
        for _ in range(5):
            c.prev()
            seen.append(c.key)
        assert c.seek_row(1700) and c.key == 3 * 1700
        seen.append(c.value)
        c.close()
        if t is one["items"]:
            want = seen
    assert seen == want


def test_index_merges_shards(pair):
    _, one, sh = pair
    a, b = one["items"].index("by_cat"), sh["items"].index("by_cat")
    for cat in ["c0", "c3", "c6", "c9"]:
        assert a.get(cat) == b.get(cat)
        assert a.count(cat, cat, inclusive=(True, True)) == b.count(cat, cat, inclusive=(True, True))
        assert a.get_all(cat) == b.get_all(cat)
    for rev in (False, True):
        assert list(a.range("c2", "c5", reverse=rev)) == list(b.range("c2", "c5", reverse=rev))


def test_missing_and_corrupt_shard(pair, tmp_path):
    d, _, _ = pair
    import shutil
    for f in os.listdir(d):
        shutil.copy(os.path.join(d, f), tmp_path / f)
    os.remove(tmp_path / "part-2.drydb")
    with drydb.open(str(tmp_path / "db.manifest")) as db:
        assert db["items"].get(3) == {"cat": "c1", "n": 1}
        with pytest.raises(drydb.IOFailure, match=r"shard 2 \(part-2\.drydb\)"):
            db["items"].get(3 * 1700)
        with pytest.raises(drydb.Error, match="part-2.drydb"):
            db.verify()
    data = bytearray((tmp_path / "db.manifest").read_bytes())
    data[-5] ^= 1
    (tmp_path / "db.manifest").write_bytes(bytes(data))
    with pytest.raises(drydb.CorruptError, match="manifest"):
        drydb.open(str(tmp_path / "db.manifest"))


def test_manifest_refuses_shards_out_of_order(pair, tmp_path):
    d, _, _ = pair
    with pytest.raises(drydb.CorruptError, match="overlap"):
        drydb.write_range_manifest(str(d / "bad.manifest"), ["part-1.drydb", "part-0.drydb"])


def test_refresh_follows_a_manifest(tmp_path):
    """New shards and a new manifest renamed over the old one: refresh
    switches to them; readers of the old version kept their shards."""
    _build(str(tmp_path / "a0.drydb"), range(0, 100))
    _build(str(tmp_path / "a1.drydb"), range(100, 200))
    man = str(tmp_path / "db.manifest")
    drydb.write_range_manifest(man, ["a0.drydb", "a1.drydb"])
    with drydb.open(man) as db:
        t = db["items"]
        assert len(t) == 200 and t.get(3 * 250) is None
        assert db.refresh() is False
        _build(str(tmp_path / "b0.drydb"), range(0, 150))
        _build(str(tmp_path / "b1.drydb"), range(150, 300))
        drydb.write_range_manifest(man, ["b0.drydb", "b1.drydb"])  # atomic rename over the old one
        assert db.refresh() is True
        assert len(t) == 300 and t.get(3 * 250) == {"cat": "c5", "n": 250}
        assert t.count(3 * 140, 3 * 160) == 20
        assert db.verify() is None


def test_hash_shards(tmp_path):
    """Hash shards built here, routed by drydb.shard_slots (the library's
    FNV-1a-64 rule), read as one file: every key found, absent keys absent,
    counts and ranges; row numbers refused; shards out of slot order refused."""
    # FNV-1a-64 of "", "a", "foobar" (the published vectors), mod the most slots
    fnv = [0xCBF29CE484222325, 0xAF63DC4C8601EC8C, 0x85944171F73967E8]
    assert drydb.shard_slots([b"", b"a", b"foobar"], 0xFFFFFFFF) == [h % 0xFFFFFFFF for h in fnv]
    assert drydb.shard_slots([], 3) == []
    n = 3
    slots = drydb.shard_slots([drydb.keys.encode_int64(3 * i) for i in range(ROWS)], n)
    names = []
    for s in range(n):
        names.append("h%d.drydb" % s)
        # (one table: "names" would be routed by its own keys)
        _build(str(tmp_path / names[-1]), [i for i in range(ROWS) if slots[i] == s], names=False)
    _build(str(tmp_path / "one.drydb"), range(ROWS), names=False)
    man = str(tmp_path / "h.manifest")
    drydb.write_hash_manifest(man, names)
    with drydb.open(man, verify=True) as sh, drydb.open(str(tmp_path / "one.drydb")) as one:
        a, b = one["items"], sh["items"]
        ks = list(range(-3, 3 * ROWS + 3))
        assert b.get_many(ks) == a.get_many(ks)
        assert b.count(300, 3000) == a.count(300, 3000) and b.rank(1500) == a.rank(1500)
        assert list(b.range(2990, 3100, reverse=True)) == list(a.range(2990, 3100, reverse=True))
        assert list(b.index("by_cat").range("c2", "c3")) == list(a.index("by_cat").range("c2", "c3"))
        with pytest.raises(drydb.InvalidError, match="hash-partitioned"):
            b.at(0)
    with pytest.raises(drydb.InvalidError, match="slot order"):
        drydb.write_hash_manifest(str(tmp_path / "bad.manifest"), [names[1], names[0], names[2]])
