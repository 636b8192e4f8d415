"""Rebuild by merge (Builder.merge): random changes against a full rebuild
of the same final rows, function indexes re-supplied, the refusals, and a
base closed under its merge builder."""

import random

import pytest

import drydb


def _name(v):
    return v["name"][:2]


def _build(path, rows, compression=None):
    with drydb.Builder(path, meta={"m": "1"}) as b:
        t = b.table("items", key="int64", codec="json", compression=compression)
        t.index("by_name", key="string", func=lambda k, v: _name(v))
        tag = t.index("tag", key="int64")
        u = b.table("plain", key="string")
        u.add("a", b"b")
        for k, v in rows.items():
            t.add(k, v)
            tag.add(k % 3, k)


def _contents(path):
    with drydb.open(path) as db:
        db.verify()
        t = db.table("items")
        return (list(t.items()), list(db.table("plain").items()),
                [list(t.index(n).range(with_index_key=True)) for n in ("by_name", "tag")],
                db.meta("m"))


@pytest.mark.parametrize("deletes,upserts,first_last,compression", [
    (0.01, 0.01, False, None),
    (0.3, 0.3, True, None),
    (1.0, 0.0, False, None),
    (0.1, 0.2, True, "zstd"),
])
def test_merge_equals_full_rebuild(tmp_path, deletes, upserts, first_last, compression):
    r = random.Random(5)
    rows = {k: {"name": r.choice("abcdef") * 3, "n": k} for k in range(1, 3000, 2)}
    base = str(tmp_path / "base.drydb")
    _build(base, rows, compression)
    final = dict(rows)
    with drydb.open(base) as db:
        with drydb.Builder.merge(db, str(tmp_path / "merged.drydb")) as b:
            t = b.table("items")
            t.index("by_name", func=lambda k, v: _name(v))
            tag = t.index("tag")
            for k in range(0, 3001):
                x = r.random()
                if first_last and k in (0, 3000):
                    x = 1.0 - upserts / 2
                if x < deletes:
                    t.delete(k)
                    final.pop(k, None)
                elif x > 1.0 - upserts:
                    v = {"name": r.choice("uvwxyz") * 3, "n": -k}
                    t.add(k, v)
                    tag.add(k % 3, k)
                    final[k] = v
    _build(str(tmp_path / "full.drydb"), final, compression)
    merged = _contents(str(tmp_path / "merged.drydb"))
    assert merged == _contents(str(tmp_path / "full.drydb"))
    assert len(merged[0]) == len(final)


def _base(tmp_path):
    p = str(tmp_path / "base.drydb")
    _build(p, {k: {"name": "abc", "n": k} for k in range(10)})
    return drydb.open(p)


@pytest.mark.parametrize("ops,error", [
    ("aa", drydb.DuplicateKeyError),
    ("ad", drydb.InvalidError),
    ("da", drydb.InvalidError),
])
def test_key_changed_twice_is_refused(tmp_path, ops, error):
    with _base(tmp_path) as db:
        b = drydb.Builder.merge(db, None)
        t = b.table("items")
        for op in ops:
            if op == "a":
                t.add(3, {"name": "new"})
            else:
                t.delete(3)
        with pytest.raises(error):
            b.build()


def test_refusals(tmp_path):
    with _base(tmp_path) as db:
        b = drydb.Builder.merge(db, None)
        with pytest.raises(ValueError):
            b.table("items", key="string")
        t = b.table("items")
        assert b.table("items") is t
        with pytest.raises(drydb.InvalidError):
            t.index("new_index", key="string")
        b.abort()
        plain = drydb.Builder(None)
        with pytest.raises(drydb.InvalidError):
            plain.table("x").delete(b"k")
        plain.abort()


def test_base_closed_under_the_builder(tmp_path):
    db = _base(tmp_path)
    b = drydb.Builder.merge(db, str(tmp_path / "out.drydb"))
    t = b.table("items", codec="json")
    t.add(100, {"name": "zz"})
    db.close()
    with pytest.raises(drydb.ClosedError):
        t.delete(1)
    with pytest.raises(drydb.ClosedError):
        b.build()
    assert not (tmp_path / "out.drydb").exists()


def test_merge_changes_compression_and_keeps_untouched_tables(tmp_path):
    out = str(tmp_path / "out.drydb")
    with _base(tmp_path) as db:
        with drydb.Builder.merge(db, out) as b:
            t = b.table("items", compression="s2")
            t.index("by_name", func=lambda k, v: _name(v))
            t.add(5, {"name": "qqq"})
    with drydb.open(out) as db:
        db.verify()
        t = db.table("items")
        assert t.compression == "s2"
        assert t.get(5) == {"name": "qqq"} and t.get(4) == {"name": "abc", "n": 4}
        assert [(ik, pk) for ik, pk, _ in t.index("by_name").range(with_index_key=True) if ik == "qq"] == [("qq", 5)]
        assert list(db.table("plain").items()) == [("a", b"b")]
