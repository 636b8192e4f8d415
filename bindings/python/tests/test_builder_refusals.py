"""What the builder refuses, and when: index entries without their row, a
function index that fails half way, keys over the limit (at the call that
gives them, naming the row), targets that are not regular files. Also bounds
that are no keys."""

import os
import stat

import pytest

import drydb


def _ikeys(ix):
    return [ik for ik, _, _ in ix.range(with_index_key=True)]


def _build(b):
    img = b.build()
    db = drydb.open_memory(img)
    db.verify()
    return db


def test_function_index_failing_half_way_adds_nothing():
    b = drydb.Builder(None)
    t = b.table("t", key=str)
    t.index("first", key=str, func=lambda k, v: k[:1])

    def second(k, v):
        if k.startswith("boom"):
            raise RuntimeError("second index failed")
        return [k, k + "!"]

    t.index("second", key=str, func=second)
    t.index("third", key=int, func=lambda k, v: "not an int" if k == "badkey" else len(k))
    t.add("a", b"1")
    # the first index took the row before the second raised: nothing stays
    with pytest.raises(RuntimeError):
        t.add("boom1", b"x")
    with pytest.raises(RuntimeError):
        t.add_many([("b", b"2"), ("boom2", b"x"), ("never", b"x")])
    with pytest.raises(TypeError):  # the third index's key does not encode
        t.add("badkey", b"x")
    t.add_many([("c", b"3")])
    db = _build(b)
    tt = db["t"]
    assert list(tt.keys()) == ["a", "b", "c"]
    assert _ikeys(tt.index("first")) == ["a", "b", "c"]
    assert _ikeys(tt.index("second")) == ["a", "a!", "b", "b!", "c", "c!"]
    assert len(tt.index("third")) == 3


def test_function_index_key_too_large_adds_nothing():
    b = drydb.Builder(None, page_size=512)  # keys up to 104 bytes
    t = b.table("t", key=str)
    t.index("short", key=str, func=lambda k, v: k)
    t.index("long", key=str, func=lambda k, v: k * 60)
    t.add("k", b"")
    with pytest.raises(drydb.KeyTooLargeError) as e:
        t.add("kk", b"")
    assert 'row 1 (counted from 0)' in str(e.value) and 'index "long"' in str(e.value)
    db = _build(b)
    assert list(db["t"].keys()) == ["k"] and _ikeys(db["t"].index("short")) == ["k"]


def test_entry_without_row_is_refused_at_build():
    b = drydb.Builder(None)
    t = b.table("items", key=int)
    ix = t.index("by_name", key=str)
    t.add_many((i, b"v") for i in range(100))
    ix.add_many(("n%d" % i, i) for i in range(100))
    ix.add("ghost", 1234)
    with pytest.raises(drydb.InvalidError) as e:
        b.build()
    msg = str(e.value)
    assert 'index "by_name" of table "items"' in msg
    assert '(index key "ghost") for primary key "1234"' in msg


@pytest.mark.parametrize("how", ["add", "add_many", "mixed"])
def test_key_too_large_at_the_call_that_gave_it(how):
    b = drydb.Builder(None)
    t = b.table("t", key=bytes)
    big = b"x" * 1001
    if how == "add":  # 10 rows wait in the binding's batch; the 11th is refused now
        for i in range(10):
            t.add(b"k%d" % i, b"")
        row = 10
        with pytest.raises(drydb.KeyTooLargeError) as e:
            t.add(big, b"")
    elif how == "add_many":  # several batches into one call
        row = 9000
        with pytest.raises(drydb.KeyTooLargeError) as e:
            t.add_many((b"k%d" % i if i != row else big, b"") for i in range(10000))
    else:  # rows of add() still waiting, then add_many
        for i in range(5):
            t.add(b"a%d" % i, b"")
        row = 5 + 7
        with pytest.raises(drydb.KeyTooLargeError) as e:
            t.add_many((b"k%d" % i if i != 7 else big, b"") for i in range(100))
    assert e.value.code == drydb.KEYTOOLARGE
    assert "row %d (counted from 0): key of 1001 bytes exceeds the limit of 1000 bytes" % row in str(e.value)
    db = _build(b)
    assert len(db["t"]) == row  # the rows before it went in, nothing after


@pytest.mark.parametrize("page_size,limit", [(512, 104), (4096, 1000), (65536, 16360)])
def test_key_limit_is_the_library_s(page_size, limit):
    b = drydb.Builder(None, page_size=page_size)
    t = b.table("t", key=bytes)
    t.add(b"a" * limit, b"")  # buffered: the binding lets the limit itself pass
    with pytest.raises(drydb.KeyTooLargeError):
        t.add(b"b" * (limit + 1), b"")
    assert list(_build(b)["t"].keys()) == [b"a" * limit]


@pytest.mark.parametrize("kind", ["fifo", "dir", "symlink"])
def test_build_refuses_a_target_that_is_not_a_regular_file(tmp_path, kind):
    p = tmp_path / "target"
    keep = tmp_path / "keep"
    keep.write_bytes(b"keep")
    if kind == "fifo":
        os.mkfifo(p)
    elif kind == "dir":
        p.mkdir()
    else:
        p.symlink_to(keep)
    before = os.lstat(p)
    b = drydb.Builder(str(p))
    b.table("t").add(b"k", b"v")
    with pytest.raises(drydb.InvalidError) as e:
        b.build()
    assert "not a regular file" in str(e.value)
    after = os.lstat(p)
    assert stat.S_IFMT(after.st_mode) == stat.S_IFMT(before.st_mode) and after.st_ino == before.st_ino
    assert keep.read_bytes() == b"keep"
    assert sorted(os.listdir(tmp_path)) == ["keep", "target"]  # no temporary file left


def test_bounds_are_keys():
    b = drydb.Builder(None)
    b.table("t", key=int).add_many((i, b"v") for i in range(10))
    db = drydb.open_memory(b.build())
    raw = db.table("t", raw_keys=True)
    with pytest.raises(drydb.BadKeyError):
        raw.count(b"")
    with pytest.raises(drydb.BadKeyError):
        raw.count(None, b"\x80\x00\x00\x00\x00\x00\x00\x05\x00")
    assert db["t"].count(3, 7) == 4
