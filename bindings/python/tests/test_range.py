"""Scans through drydb_range (range, prefix, keys, values, items): every bound
kind, both directions, ranges of many batches, compressed tables, overflow
values, composite and bytes keys, use after close, threads; and the batch
paths of get_many and count that go with them."""

import itertools
import random
import threading

import pytest

import drydb


def _v(i):
    return b"v" * (i % 23) + b"%d" % i


N = 3000  # > 256: every full scan takes several drydb_range calls


@pytest.fixture(scope="module")
def db_path(tmp_path_factory):
    p = str(tmp_path_factory.mktemp("range") / "r.drydb")
    big = {i: b"B" * (700 + i) for i in range(0, N, 97)}  # overflow values on 512-byte pages
    with drydb.Builder(p, page_size=512) as b:
        b.table("plain", key="int64").add_many((i, _v(i)) for i in range(-N, N, 2))
        b.table("zstd", key="int64", compression="zstd").add_many((i, _v(i)) for i in range(-N, N, 2))
        b.table("s2", key="uint64", compression="s2").add_many((i, _v(i)) for i in range(0, N))
        b.table("ovf", key="int64").add_many((i, big.get(i, _v(i))) for i in range(N))
        b.table("ovfz", key="int64", compression="zstd").add_many(
            (i, big.get(i, _v(i))) for i in range(N))
        b.table("str", key="string", compression="zstd").add_many(
            ("k%05d" % i, _v(i)) for i in range(N))
        b.table("comp", key=("string", "int64")).add_many(
            ((g, i), _v(i)) for g in ("a", "b", "c") for i in range(400))
        b.table("bytes", key="bytes").add_many(
            (bytes(t), b"%r" % (t,)) for t in itertools.product((0, 1, 0xFE, 0xFF), repeat=3))
        b.table("json", key="int64", codec="json").add_many((i, {"n": i}) for i in range(600))
        b.table("empty", key="int64")
        # batches that outgrow drydb__py_range's 8 KB of keys and 16 KB of
        # values (more rows follow), and rows that alone do (the copy path)
        b.table("huge", key="int64").add_many((i, b"H" * (i * 997 % 20011)) for i in range(-150, 150))
        b.table("ustr", key="string").add_many(("%s%04d" % (p, i), _v(i)) for p in ("a", "é", "ключ", "\U0001F600")
                                               for i in range(300))
        b.table("long", key="bytes").add_many((b"K" * 96 + b"%04d" % i, _v(i)) for i in range(300))
    refs = {
        "plain": [(i, _v(i)) for i in range(-N, N, 2)],
        "zstd": [(i, _v(i)) for i in range(-N, N, 2)],
        "s2": [(i, _v(i)) for i in range(0, N)],
        "ovf": [(i, big.get(i, _v(i))) for i in range(N)],
        "ovfz": [(i, big.get(i, _v(i))) for i in range(N)],
        "huge": [(i, b"H" * (i * 997 % 20011)) for i in range(-150, 150)],
        "ustr": sorted(("%s%04d" % (p, i), _v(i)) for p in ("a", "é", "ключ", "\U0001F600") for i in range(300)),
        "long": [(b"K" * 96 + b"%04d" % i, _v(i)) for i in range(300)],
    }
    return p, refs


def _want(ref, lo, hi, inc):
    def ok(k):
        if lo is not None and (k < lo or (k == lo and not inc[0])):
            return False
        if hi is not None and (k > hi or (k == hi and not inc[1])):
            return False
        return True
    return [(k, v) for k, v in ref if ok(k)]


INCS = [(True, False), (True, True), (False, False), (False, True)]


@pytest.mark.parametrize("name", ["plain", "zstd", "s2", "ovf", "ovfz"])
def test_bounds_both_directions(db_path, name):
    p, refs = db_path
    ref = refs[name]
    rnd = random.Random(name)
    first, last = ref[0][0], ref[-1][0]
    cases = [(None, None), (first, last), (first - 1, last + 1), (last, first)]
    for _ in range(40):
        a = rnd.randint(first - 3, last + 3)
        z = a + rnd.choice([0, 1, 2, 255, 256, 257, 511, 512, 513, 1000, 5000])
        cases += [(a, z), (a, None), (None, z)]
    cases = [(max(a, 0) if a is not None and name == "s2" else a,
              max(z, 0) if z is not None and name == "s2" else z) for a, z in cases]
    with drydb.open(p) as db:
        t = db[name]
        for lo, hi in cases:
            for inc in INCS:
                want = _want(ref, lo, hi, inc)
                assert list(t.range(lo, hi, inclusive=inc)) == want, (lo, hi, inc)
                assert list(t.range(lo, hi, inclusive=inc, reverse=True)) == want[::-1]
                assert list(t.range(lo, hi, inclusive=inc, values=False)) == [k for k, _ in want]
                assert list(t.range(lo, hi, inclusive=inc, keys=False, reverse=True)) == \
                    [v for _, v in want][::-1]
                assert t.count(lo, hi, inclusive=inc) == len(want)
                assert t.count(lo, hi, inc) == len(want)  # positional inclusive
        assert list(t.items()) == ref
        assert list(t.keys()) == [k for k, _ in ref] == list(t)
        assert list(t.values()) == [v for _, v in ref]
        assert list(reversed(t)) == [k for k, _ in reversed(ref)]


@pytest.mark.parametrize("name", ["huge", "ustr", "long"])
def test_rows_made_in_c(db_path, name):
    """Scans whose rows C makes into objects (drydb__py_range): batches cut
    short by its buffers continue where they stopped, rows too long for them
    take the copy path, in both directions, every field choice; the first
    rows of an open range are those rows."""
    p, refs = db_path
    ref = refs[name]
    with drydb.open(p) as db:
        t = db[name]
        for rev in (False, True):
            want = ref[::-1] if rev else ref
            assert list(t.range(reverse=rev)) == want
            assert list(t.range(reverse=rev, values=False)) == [k for k, _ in want]
            assert list(t.range(reverse=rev, keys=False)) == [v for _, v in want]
            mid = want[len(want) // 3][0]
            it = t.range(None, mid, inclusive=(True, True), reverse=True) if rev else t.range(mid)
            got = list(itertools.islice(it, 100))
            assert got == want[len(want) // 3:len(want) // 3 + 100]
            lo, hi = (want[77][0], want[5][0]) if rev else (want[5][0], want[77][0])
            assert list(t.range(lo, hi, inclusive=(True, True), reverse=rev)) == want[5:78]


def test_long_ranges_interleaved(db_path):
    """Several scans of compressed and plain tables in progress on one
    thread at once: each batch is copied before the next call."""
    p, refs = db_path
    with drydb.open(p) as db:
        its = {n: iter(db[n].items()) for n in ("plain", "zstd", "ovfz", "s2")}
        rev = {n: db[n].range(reverse=True) for n in ("zstd", "ovf")}
        got = {n: [] for n in list(its) + ["r" + n for n in rev]}
        alive = True
        while alive:
            alive = False
            for n, it in its.items():
                for row in itertools.islice(it, 37):
                    got[n].append(row)
                    alive = True
                db["zstd"].get(10)  # uses the thread's buffer between batches
            for n, it in rev.items():
                for row in itertools.islice(it, 300):
                    got["r" + n].append(row)
                    alive = True
        for n in its:
            assert got[n] == refs[n]
        for n in rev:
            assert got["r" + n] == refs[n][::-1]


def test_string_composite_bytes_prefix(db_path):
    p, _ = db_path
    with drydb.open(p) as db:
        s = db["str"]
        assert list(s.range("k00010", "k00020")) == [("k%05d" % i, _v(i)) for i in range(10, 20)]
        assert list(s.prefix("k00")) == [("k%05d" % i, _v(i)) for i in range(1000)]
        assert list(s.prefix("k01", reverse=True, values=False)) == \
            ["k%05d" % i for i in range(1999, 999, -1)]
        assert list(s.prefix("")) == list(s.items()) and len(list(s.items())) == N
        assert list(s.prefix("z")) == []
        c = db["comp"]
        assert list(c.prefix(("b",), keys=False)) == [_v(i) for i in range(400)]
        assert list(c.range(("a", 398), ("b", 2))) == \
            [(("a", 398), _v(398)), (("a", 399), _v(399)), (("b", 0), _v(0)), (("b", 1), _v(1))]
        assert list(c.range(("c",), None, reverse=True, values=False))[:2] == [("c", 399), ("c", 398)]
        b = db["bytes"]
        allk = sorted(bytes(t) for t in itertools.product((0, 1, 0xFE, 0xFF), repeat=3))
        for pre in (b"", b"\x00", b"\xfe", b"\xff", b"\xff\xff", b"\xfe\xff", b"\xff\xff\xff",
                    b"\x01\xff"):
            want = [k for k in allk if k.startswith(pre)]
            assert list(b.prefix(pre, values=False)) == want, pre
            assert list(b.prefix(pre, reverse=True, values=False)) == want[::-1], pre
        j = db["json"]
        assert list(j.range(10, 13)) == [(10, {"n": 10}), (11, {"n": 11}), (12, {"n": 12})]
        assert [v["n"] for v in j.values()] == list(range(600))
        e = db["empty"]
        assert list(e.items()) == [] and list(e.range(0, 5, reverse=True)) == []


def test_string_get_refuses_what_is_not_text(db_path):
    """A string table's get and [] encode a str inline: a lone surrogate
    and a non-str key still get the encoder's errors, and non-ASCII text
    finds its row."""
    p, _ = db_path
    with drydb.open(p) as db:
        t = db["ustr"]
        assert t.get("é0007") == t["é0007"] == _v(7)
        assert t.get("\U0001F6000299") == _v(299) and t.get("é9999") is None
        for f in (t.get, t.__getitem__):
            with pytest.raises(ValueError, match="not valid UTF-8"):
                f("\udc80")
            with pytest.raises(TypeError, match="must be a str"):
                f(3)
            with pytest.raises(TypeError, match="must be a str"):
                f(b"a0001")


def test_bound_errors_are_eager(db_path):
    p, _ = db_path
    with drydb.open(p) as db:
        t = db["plain"]
        with pytest.raises(TypeError):
            t.range(0, 1, inclusive=True)
        with pytest.raises(TypeError):
            t.range("a", 5)
        with pytest.raises(ValueError):
            t.range(1 << 63, None)
        with pytest.raises(TypeError):
            db["str"].prefix(5)


def test_after_close(db_path):
    p, refs = db_path
    db = drydb.open(p)
    t, z, s = db["plain"], db["zstd"], db["str"]
    full = iter(t.items())
    assert next(full) == refs["plain"][0]
    short = z.range(0, 20)  # not started yet
    db.close()
    rest = []
    with pytest.raises(drydb.ClosedError):
        for row in full:  # the rest of the first batch (copies), then ClosedError
            rest.append(row)
    assert rest == refs["plain"][1:16]  # the first batch holds 16 rows
    for call in (lambda: list(short), lambda: list(t.range(0, 5)), lambda: list(s.prefix("k")),
                 lambda: list(t.keys()), lambda: list(reversed(z))):
        with pytest.raises(drydb.ClosedError):
            call()


def test_threads(db_path):
    p, refs = db_path
    errors = []
    with drydb.open(p) as db:
        def worker(n):
            try:
                rnd = random.Random(n)
                for _ in range(40):
                    name = rnd.choice(["plain", "zstd", "s2", "ovfz"])
                    ref = refs[name]
                    i = rnd.randrange(len(ref))
                    j = min(len(ref), i + rnd.choice([1, 100, 300, 700]))
                    lo, hi = ref[i][0], ref[j - 1][0]
                    rv = rnd.random() < 0.5
                    got = list(db[name].range(lo, hi, inclusive=(True, True), reverse=rv))
                    assert got == (ref[i:j][::-1] if rv else ref[i:j]), (name, lo, hi, rv)
                    assert db[name].count(lo, hi, (True, True)) == j - i
                    ks = [k for k, _ in ref[i:j]]
                    assert db[name].get_many(ks) == [v for _, v in ref[i:j]]
            except BaseException as e:  # noqa: BLE001
                errors.append(repr(e))
        ths = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
        for th in ths:
            th.start()
        for th in ths:
            th.join()
    assert errors == []


def test_get_many_int_batches(db_path):
    p, refs = db_path
    with drydb.open(p) as db:
        t, u = db["ovf"], db["s2"]
        d = dict(refs["ovf"])
        keys = [0, 1, 2, 97, -1, 1, 0, N - 1, N, (1 << 63) - 1, -(1 << 63)] * 30
        assert t.get_many(keys) == [d.get(k) for k in keys]
        assert t.get_many(tuple(keys)) == [d.get(k) for k in keys]
        assert u.get_many([0, 1, 2, (1 << 64) - 1]) == [_v(0), _v(1), _v(2), None]
        for bad_at in (0, 1, 100, 255, 256, 299):
            for bad in (True, False):
                ks = list(range(300))
                ks[bad_at] = bad
                for tab in (t, u):
                    with pytest.raises(TypeError):
                        tab.get_many(ks)
        with pytest.raises(ValueError):
            u.get_many([1, -1])
        with pytest.raises(ValueError):
            t.get_many([1, 1 << 63])
        with pytest.raises(TypeError):
            t.get_many([1, 2.0])


def test_count_inclusive_cache(db_path):
    p, refs = db_path
    with drydb.open(p) as db:
        t = db["plain"]
        ref = refs["plain"]
        for inc in INCS * 2 + [(1, 0), (0, 1)]:
            inc = tuple(inc)
            for lo, hi in ((-10, 10), (-11, 11), (0, 0)):
                assert t.count(lo, hi, inclusive=inc) == len(_want(ref, lo, hi, inc)), inc
        with pytest.raises(TypeError):
            t.count(1, 2, inclusive=True)
        with pytest.raises(TypeError):
            t.count(1, 2, (True,))
