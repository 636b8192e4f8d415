"""The columnar reads' C path (capi/colfast.c): get_many_columns and
range_columns answered in C over the mapped pages, with Go answering what C
leaves to it (pages not checked yet, compressed leaves not in the cache,
overflow values, refused keys, a close, a truncated file). Every answer is
checked against the row API's, read cold (a fresh open: C meets unchecked
pages in the middle of a batch) and warm (C answers all). Runs without the
extras: numbers go in as array.array, strings as Binary."""

import array
import os
import random
import shutil
import uuid

import pytest

import drydb
from test_columnar import _binary, _val

N = 3000


# name: (key kind, table options, rows, column of query keys from Python keys)
TABLES = {
    "i": ("int64", {}, [(i, _val(i)) for i in range(-N, N, 3)], lambda ks: array.array("q", ks)),
    "u": ("uint64", {}, [(i * 0x9E3779B97F4A7C15 % 2**64, _val(i)) for i in range(N)],
          lambda ks: array.array("Q", ks)),
    "f": ("float64", {}, [(i / 8, _val(i)) for i in range(-N, N, 3)], lambda ks: array.array("d", ks)),
    "s": ("string", {}, [("k%06d" % i, _val(i)) for i in range(0, 3 * N, 3)],
          lambda ks: _binary([k.encode() for k in ks])),
    "b": ("bytes", {}, [(b"\x00%d" % i, _val(i)) for i in range(N)], lambda ks: _binary(ks)),
    "id": ("uuid", {}, [(uuid.UUID(int=i * 7), _val(i)) for i in range(N)],
           lambda ks: _binary([k.bytes for k in ks])),
    "c": (("int64", "string"), {}, [((g, "x%d" % i), _val(i)) for g in range(3) for i in range(N // 3)], list),
    # compressed: C answers only leaves in the engine's cache
    "z": ("int64", {"compression": "zstd"}, [(i, _val(i)) for i in range(N)], lambda ks: array.array("q", ks)),
    # overflow values among inline ones: Go follows those, in the middle of C's batches
    "o": ("int64", {}, [(i, b"O%d" % i * 300 if i % 37 == 0 else _val(i)) for i in range(N)],
          lambda ks: array.array("q", ks)),
    # one value size: pages of fixed-size entries
    "x": ("int64", {}, [(i, b"%08d" % i) for i in range(N)], lambda ks: array.array("q", ks)),
    # values longer than the binding's first guess of the column's size
    "w": ("int64", {}, [(i * 5, b"w%d," % i * (i % 5 + 3)) for i in range(N)], lambda ks: array.array("q", ks)),
}


@pytest.fixture(scope="module")
def path(tmp_path_factory):
    p = str(tmp_path_factory.mktemp("colfast") / "c.drydb")
    with drydb.Builder(p, page_size=512) as b:
        for name, (kind, opts, rows, _) in TABLES.items():
            b.table(name, key=kind, **opts).add_many(sorted(rows))
    return p


def _queries(name, seed=1):
    """Keys present (in random order, repeated) and absent, more than one
    batch of C's (64) and many leaves."""
    kind, _, rows, _ = TABLES[name]
    r = random.Random(seed)
    keys = [k for k, _ in r.sample(rows, min(len(rows), 700))] + [rows[5][0]] * 3
    absent = {"int64": [1, -N - 7, 2**62], "uint64": [1, 2], "float64": [0.0625, 1e300],
              "string": ["k000001", "zz", ""], "bytes": [b"", b"\x01"], "uuid": [uuid.UUID(int=1)]}
    keys += absent.get(kind, []) if isinstance(kind, str) else [(9, "x1"), (0, "")]
    r.shuffle(keys)
    return keys


def _list(col):
    return col.to_pylist() if hasattr(col, "to_pylist") else list(col)


def _check_get_many(t, name):
    keys = _queries(name)
    v, found = t.get_many_columns(TABLES[name][3](keys), output="buffers")
    want = t.get_many(keys)
    assert [bool(f) for f in found] == [w is not None for w in want]
    assert [g if f else None for g, f in zip(_list(v), found)] == want


def _check_ranges(t, name):
    rows = sorted(TABLES[name][2])
    lo, hi = rows[len(rows) // 5][0], rows[len(rows) * 4 // 5][0]
    for start, stop, limit in ((None, None, None), (lo, hi, None), (lo, None, 301), (None, hi, 5)):
        for reverse in (False, True):
            for incl in ((True, False), (False, True)):
                k, v = t.range_columns(start, stop, inclusive=incl, reverse=reverse, limit=limit,
                                       output="buffers")
                want = list(t.range(start, stop, inclusive=incl, reverse=reverse))[:limit]
                keys = _list(k)
                if name == "id":
                    keys = [uuid.UUID(bytes=x) for x in keys]
                elif name == "c":
                    keys = [t._key.decode(x) for x in keys]
                assert list(zip(keys, _list(v))) == want, (start, stop, limit, reverse, incl)
    k, v = t.range_columns(values=False, output="buffers")
    assert v is None and len(k) == len(rows)
    k, v = t.range_columns(keys=False, reverse=True, output="buffers")
    assert k is None and _list(v) == [x for _, x in reversed(rows)]


@pytest.mark.parametrize("name", list(TABLES))
def test_get_many_equals_rows_cold_and_warm(path, name):
    with drydb.open(path) as db:
        _check_get_many(db[name], name)  # cold: unchecked pages go to Go mid-batch
        _check_get_many(db[name], name)  # warm: C answers


@pytest.mark.parametrize("name", list(TABLES))
def test_ranges_equal_rows_cold_and_warm(path, name):
    with drydb.open(path) as db:
        for _ in range(2):
            _check_ranges(db[name], name)


@pytest.mark.parametrize("name", ["i", "u", "f", "o", "x", "z", "w"])
def test_get_many_large_batches(path, name):
    """Batches large enough for C to answer in key order (sorted, the leaves
    walked in file order, the values put back in the caller's order), cold
    and warm, shuffled, sorted and reversed, with repeats and absent keys:
    as the row API. Overflow values (o) and a compressed table (z) are
    answered in the caller's order; long values (w) fill the column's first
    guess of its size mid-batch."""
    rows = TABLES[name][2]
    r = random.Random(7)
    keys = [k for k, _ in r.choices(rows, k=20000)] + _queries(name)[:50]
    if TABLES[name][0] == "int64":
        # each key's neighbour: absent between two keys, past the last key,
        # and between two leaves (the walk steps to the next leaf there)
        keys += [k + 1 for k in keys[:5000]] + [rows[-1][0] + 1, rows[-1][0] + 2]
    for order in ("shuffled", "sorted", "reversed", "warm"):
        if order == "sorted":
            keys.sort()
        elif order == "reversed":
            keys.reverse()
        elif order == "warm":
            r.shuffle(keys)
        with drydb.open(path) as db:
            t = db[name]
            if order == "warm":
                t.get_many(keys)
            v, found = t.get_many_columns(TABLES[name][3](keys), output="buffers")
            want = t.get_many(keys)
            assert [bool(f) for f in found] == [w is not None for w in want], order
            assert [g if f else None for g, f in zip(_list(v), found)] == want, order


@pytest.mark.parametrize("step", [1, 7])
def test_get_many_large_batches_wide_keys(tmp_path, step):
    """Keys spanning more than 2^15: the sort orders them by their top
    bits only, so nearby keys come in any order and the walk steps to the
    leaf before as well as after (consecutive keys, and keys with gaps)."""
    p = str(tmp_path / "wide.drydb")
    n = 60000
    with drydb.Builder(p, page_size=512) as b:
        b.table("t", key="int64").add_many((i * step, b"%07d" % i) for i in range(n))
    r = random.Random(step)
    keys = [r.randrange(-5, n * step + 5) for _ in range(40000)]
    with drydb.open(p) as db:
        t = db["t"]
        for ks in (keys, sorted(keys), sorted(keys, reverse=True)):
            v, found = t.get_many_columns(array.array("q", ks), output="buffers")
            want = t.get_many(ks)
            assert [bool(f) for f in found] == [w is not None for w in want]
            assert [g if f else None for g, f in zip(_list(v), found)] == want


def test_numbers_convert_as_keys(path):
    """-0.0 finds 0.0; a NaN is refused naming its index, the keys before it
    not mattering (C hands it to Go, which names it)."""
    with drydb.open(path) as db:
        f = db["f"]
        v, found = f.get_many_columns(array.array("d", [-0.0, 0.375]), output="buffers")
        assert list(found) == [1, 1] and _list(v) == [f[0.0], f[0.375]]
        with pytest.raises(drydb.BadKeyError, match="key 70"):
            f.get_many_columns(array.array("d", [0.0] * 70 + [float("nan")] + [1.0] * 100), output="buffers")
        with pytest.raises(drydb.BadKeyError, match="key 3"):
            db["s"].get_many_columns(_binary([b"k000000"] * 3 + [b"\xff"]), output="buffers")


def test_columns_fill_and_continue(path):
    """Values past the first guess of the output's size: C reports the column
    full, the binding grows it and the call goes on (a range from a skip: Go)."""
    with drydb.open(path) as db:
        t = db["o"]
        keys = [i for i in range(0, N, 37)] * 3
        v, found = t.get_many_columns(array.array("q", keys), output="buffers")
        assert all(found) and _list(v) == t.get_many(keys)
        k, v = t.range_columns(output="buffers")
        assert list(zip(_list(k), _list(v))) == list(t.items())


def test_truncated_file_is_an_error_not_a_crash(path, tmp_path):
    """A file truncated under an open database: every columnar read gives the
    right answer or CorruptError (C's fault guard sends the read to Go)."""
    p = str(tmp_path / "t.drydb")
    shutil.copyfile(path, p)
    with drydb.open(p) as db:
        t = db["x"]
        q = array.array("q", random.Random(3).sample(range(N), 500))
        want = t.get_many(list(q))
        t.get_many_columns(q, output="buffers")  # warm: C answers
        os.truncate(p, os.path.getsize(p) // 3)
        for _ in range(2):
            try:
                v, _ = t.get_many_columns(q, output="buffers")
                assert _list(v) == want
            except drydb.CorruptError:
                pass
            try:
                k, v = t.range_columns(output="buffers")
                assert len(k) == N
            except drydb.CorruptError:
                pass


def test_range_goes_on_in_go_from_an_unchecked_page(path):
    """C walks the leaves it may read, then meets one the engine has not
    checked yet: Go goes on from the row where C stopped."""
    with drydb.open(path) as db:
        t = db["i"]
        rows = sorted(TABLES["i"][2])
        t.get_many([k for k, _ in rows[:700]])  # the first leaves checked
        k, v = t.range_columns(output="buffers")
        assert list(zip(_list(k), _list(v))) == rows
        t.get_many([k for k, _ in rows[-700:]])
        k, v = t.range_columns(reverse=True, output="buffers")
        assert list(zip(_list(k), _list(v))) == rows[::-1]
