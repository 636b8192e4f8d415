"""The per-table fast paths (drydb/_fast.py): batch decoding on every layout,
closures kept by the caller after close and across fork, argument errors."""

import os
import random
import threading

import pytest

import drydb


def _val(i, fixed):
    if fixed:
        return b"value-%07d" % i
    return b"v" * (i % 37) + b"%d" % i


@pytest.fixture(scope="module")
def shapes(tmp_path_factory):
    """int64 tables with fixed-size and variable-size values (several leaves
    per 256-row batch), a uint64 one, a string one, one with a few overflow
    values, all on 512-byte pages (many leaves)."""
    p = str(tmp_path_factory.mktemp("fast") / "shapes.drydb")
    ints = list(range(-1500, 1500, 3))
    with drydb.Builder(p, page_size=512) as b:
        b.table("fixed", key="int64").add_many((i, _val(i, True)) for i in ints)
        b.table("var", key="int64").add_many((i, _val(i, False)) for i in ints)
        b.table("u", key="uint64").add_many((i, _val(i, True)) for i in range(0, 3000, 3))
        b.table("s", key="string").add_many(("k%05d" % i, _val(i, True)) for i in range(1000))
        big = {i: b"x" * 300 + b"%d" % i for i in range(0, 200, 17)}
        b.table("ovf", key="int64").add_many((i, big.get(i, _val(i, True))) for i in range(200))
        b.table("one", key="int64").add(7, b"")
    return p, ints, big


def test_ranges_match_reference(shapes):
    p, ints, big = shapes
    rnd = random.Random(5)
    with drydb.open(p) as db:
        refs = {
            "fixed": [(i, _val(i, True)) for i in ints],
            "var": [(i, _val(i, False)) for i in ints],
            "u": [(i, _val(i, True)) for i in range(0, 3000, 3)],
            "ovf": [(i, big.get(i, _val(i, True))) for i in range(200)],
            "one": [(7, b"")],
        }
        for name, ref in refs.items():
            t = db[name]
            assert list(t.items()) == ref
            assert list(reversed(t)) == [k for k, _ in reversed(ref)]
            assert list(t.values()) == [v for _, v in ref]
            lo_k, hi_k = ref[0][0], ref[-1][0]
            for _ in range(60):
                a = rnd.randint(max(lo_k - 5, 0) if name == "u" else lo_k - 5, hi_k + 5)
                z = rnd.randint(a, hi_k + 10)
                inc = (rnd.random() < 0.5, rnd.random() < 0.5)
                want = [(k, v) for k, v in ref
                        if (k >= a if inc[0] else k > a) and (k <= z if inc[1] else k < z)]
                assert list(t.range(a, z, inclusive=inc)) == want, (name, a, z, inc)
                assert list(t.range(a, z, inclusive=inc, reverse=True)) == want[::-1]
                assert list(t.range(a, z, inclusive=inc, values=False)) == [k for k, _ in want]
                assert list(t.range(a, z, inclusive=inc, keys=False, reverse=True)) == \
                    [v for _, v in want][::-1]
                assert t.count(a, z, inclusive=inc) == len(want)
        s = db["s"]
        assert list(s.range("k00010", "k00020")) == [("k%05d" % i, _val(i, True)) for i in range(10, 20)]
        assert list(s.prefix("k009", reverse=True))[0] == ("k00999", _val(999, True))


def test_get_paths(shapes):
    p, ints, _ = shapes
    with drydb.open(p) as db:
        t = db["fixed"]
        keys = ints[::7] + [1, 2, 10 ** 6, -(1 << 63), (1 << 63) - 1]
        want = [_val(k, True) if k in set(ints) else None for k in keys]
        assert [t.get(k) for k in keys] == want
        assert t.get_many(keys) == want
        assert t.get_many(keys, default=b"-") == [b"-" if w is None else w for w in want]
        assert t.get_many(iter(keys * 3)) == want * 3
        assert t.get_many([]) == []
        assert (ints[0] in t) and (1 not in t)
        assert t[ints[3]] == _val(ints[3], True)
        with pytest.raises(KeyError):
            t[1]
        for bad in (True, 1.5, "1", None):
            with pytest.raises(TypeError):
                t.get(bad)
            with pytest.raises(TypeError):
                t.get_many([ints[0], bad])
            if bad is not None:  # None: unbounded
                with pytest.raises(TypeError):
                    t.count(bad, 5)
        for bad in (1 << 63, -(1 << 63) - 1):
            with pytest.raises(ValueError):
                t.get(bad)
            with pytest.raises(ValueError):
                t.get_many([bad])
            with pytest.raises(ValueError):
                list(t.range(bad, None))
        with pytest.raises(TypeError):
            t.count(1, 2, inclusive=True)
        u = db["u"]
        assert u.get(3) == _val(3, True) and u.get_many([0, 1, 2997]) == [_val(0, True), None, _val(2997, True)]
        with pytest.raises(ValueError):
            u.get(-1)
        assert t.get.__doc__ == drydb.Table.get.__doc__


def test_kept_closures_after_close(shapes):
    p, ints, _ = shapes
    db = drydb.open(p)
    t = db["fixed"]
    get, get_many, count = t.get, t.get_many, t.count
    view = db["var"].get(ints[5], view=True)  # keeps the native database open
    assert get(ints[0]) == _val(ints[0], True)
    db.close()
    for call in (lambda: get(ints[0]), lambda: get_many([ints[0]]), lambda: count(),
                 lambda: t[ints[0]], lambda: ints[0] in t):
        with pytest.raises(drydb.ClosedError):
            call()
    del view


def test_threads_share_fast_paths(shapes):
    p, ints, _ = shapes
    errors = []
    with drydb.open(p) as db:
        t = db["var"]
        get = t.get

        def worker(n):
            try:
                for i in range(2000):
                    k = ints[(n * 131 + i * 7) % len(ints)]
                    assert get(k) == _val(k, False)
                    if i % 100 == 0:
                        assert t.get_many(ints[:300]) == [_val(x, False) for x in ints[:300]]
                        assert list(t.range(k, k + 30)) == [(x, _val(x, False)) for x in ints if k <= x < k + 30]
            except BaseException as e:  # noqa: BLE001
                errors.append(repr(e))
        ths = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
        for th in ths:
            th.start()
        for th in ths:
            th.join()
    assert errors == []


def test_fork_kept_closure(shapes):
    p, ints, _ = shapes
    with drydb.open(p) as db:
        get = db["fixed"].get
        it = iter(db["fixed"].keys())
        assert get(ints[0])
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                get(ints[0])
            except drydb.ForkError:
                try:
                    next(it)
                except drydb.ForkError:
                    code = 0
            except BaseException:
                code = 3
            os._exit(code)
        os.close(w)
        os.close(r)
        _, status = os.waitpid(pid, 0)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        assert get(ints[0]) == _val(ints[0], True)


def test_word_paths_at_their_edges(tmp_path):
    """get/[]/in/count answered in one word (drydb__get_word*, keys passed
    as C ints when they fit): keys on both sides of the C int range, int-like
    keys, values on both sides of the 64 KiB word limit, empty values, views,
    compressed tables (values in a per-thread buffer), every table kind."""
    import enum

    class E(enum.IntEnum):
        A = 5

    class Idx:
        def __index__(self):
            return 5

    edge = [-(1 << 63), -(1 << 40), -(1 << 31) - 1, -(1 << 31), -(1 << 31) + 1, -1, 0, 5,
            (1 << 31) - 2, (1 << 31) - 1, 1 << 31, 1 << 40, (1 << 63) - 1]
    sizes = {0: 0, 5: 65535, 1 << 31: 65536, -1: 70000, (1 << 31) - 1: 13}
    vals = {k: (b"%d:" % k + b"z" * sizes.get(k, 9))[:sizes.get(k, 100)] if k in sizes
            else b"v%d" % k for k in edge}
    p = str(tmp_path / "edges.drydb")
    with drydb.Builder(p) as b:
        b.table("i", key="int64").add_many(sorted(vals.items()))
        b.table("u", key="uint64").add_many(sorted((k, v) for k, v in vals.items() if k >= 0))
        b.table("z", key="int64", compression="zstd").add_many(sorted(vals.items()))
        b.table("s", key="string").add_many(sorted(("k%d" % k, v) for k, v in vals.items()))
    with drydb.open(p) as db:
        for name in ("i", "z", "u"):
            t = db[name]
            have = {k: v for k, v in vals.items() if name != "u" or k >= 0}
            for k in edge + [k + 1 for k in edge if k + 1 not in vals and k + 1 < 1 << 63]:
                if name == "u" and k < 0:
                    with pytest.raises(ValueError):
                        t.get(k)
                    continue
                want = have.get(k)
                assert t.get(k) == want, (name, k)
                assert t.get(k, b"-") == (b"-" if want is None else want)
                assert (k in t) == (want is not None)
                if want is None:
                    with pytest.raises(KeyError):
                        t[k]
                else:
                    assert t[k] == want
                    assert bytes(t.get(k, view=True)) == want
            assert t.get(E.A) == t.get(Idx()) == t[E.A] == have[5]
            for bad in (True, False, 5.0, "5"):
                with pytest.raises(TypeError):
                    t.get(bad)
                with pytest.raises(TypeError):
                    t[bad]
            ks = sorted(have)
            for a in ks + [-(1 << 31) + 7, 12]:
                for z in ks + [(1 << 31) + 7, 12]:
                    for inc in ((True, False), (True, True), (False, False), (False, True)):
                        want = sum(1 for k in ks if (k >= a if inc[0] else k > a)
                                   and (k <= z if inc[1] else k < z))
                        if name == "u" and (a < 0 or z < 0):
                            continue
                        assert t.count(a, z, inclusive=inc) == want, (name, a, z, inc)
            assert t.count(E.A, None) == t.count(5, None)
            with pytest.raises(TypeError):
                t.count(True, 5)
        with pytest.raises(ValueError):
            db["u"].count(-1, 5)
        s = db["s"]
        for k, v in vals.items():
            assert s.get("k%d" % k) == v and s["k%d" % k] == v and ("k%d" % k) in s
        assert s.get("nope") is None and "nope" not in s
        with pytest.raises(KeyError):
            s["nope"]
        get, count, item = db["i"].get, db["i"].count, db["i"].__getitem__
    for call in (lambda: get(5), lambda: get(1 << 40), lambda: count(1, 2),
                 lambda: count(None, 1 << 40), lambda: item(5)):
        with pytest.raises(drydb.ClosedError):
            call()


def test_get_many_copy_paths(tmp_path):
    """get_many's values come back copied into one buffer of the binding
    (128 KiB; drydb__copy_get_many): batches on both sides of what fits
    (the keys not answered are asked again), values longer than the buffer
    (it grows for them), with and without missing keys, equal and unequal
    lengths, compressed tables, a codec; scans of those tables too."""
    p = str(tmp_path / "copy.drydb")
    rows = {i: (b"%06d" % i) * 170 for i in range(0, 3000, 2)}  # 1,020 bytes each
    short = {i: b"s%05d" % i for i in range(3000)}
    uneven = {i: b"u" * (i % 50) for i in range(3000)}
    huge = {i: bytes([i]) * (150_000 + 70_000 * i) for i in range(4)}  # longer than the buffer
    with drydb.Builder(p) as b:
        b.table("big", key="int64").add_many(sorted(rows.items()))
        b.table("bigz", key="int64", compression="zstd").add_many(sorted(rows.items()))
        b.table("short", key="uint64").add_many(sorted(short.items()))
        b.table("uneven", key="int64").add_many(sorted(uneven.items()))
        h = b.table("huge", key="int64")
        h.index("parity", key="int64", func=lambda k, v: k % 2)
        h.add_many(sorted(huge.items()))
        b.table("hugez", key="int64", compression="zstd").add_many(sorted(huge.items()))
        b.table("json", key="int64", codec="json").add_many((i, {"i": i}) for i in range(100))
    rnd = random.Random(7)
    with drydb.open(p) as db:
        for name, ref in (("big", rows), ("bigz", rows), ("short", short), ("uneven", uneven)):
            t = db[name]
            for n in (1, 20, 64, 65, 128, 129, 256, 300, 700):  # 128 x 1,020 B fit the buffer, 129 do not
                keys = [rnd.randrange(3000) for _ in range(n)]
                assert t.get_many(keys) == [ref.get(k) for k in keys], (name, n)
                present = [k for k in keys if k in ref]
                assert t.get_many(present) == [ref[k] for k in present], (name, n)
            assert list(t.items()) == sorted(ref.items()), name
            assert list(t.range(reverse=True, keys=False)) == [v for _, v in sorted(ref.items(), reverse=True)]
        for name in ("huge", "hugez"):
            t = db[name]
            assert t.get_many([3, 0, 9, 2, 1]) == [huge[3], huge[0], None, huge[2], huge[1]], name
            assert list(t.items()) == sorted(huge.items()), name
            assert t.at(3) == (3, huge[3]) and t.get(2) == huge[2], name
        par = db["huge"].index("parity")
        assert list(par.range(with_index_key=True)) == [(k % 2, k, huge[k]) for k in (0, 2, 1, 3)]
        assert par.get(1) == (1, huge[1])
        with db["huge"].cursor() as c:
            assert [c.item for _ in iter(c.next, False)] == sorted(huge.items())
        j = db["json"]
        assert j.get_many([5, 99, 100, 0]) == [{"i": 5}, {"i": 99}, None, {"i": 0}]
        assert j.get_many(list(range(100))) == [{"i": i} for i in range(100)]


def test_values_made_in_c_are_not_leaked(tmp_path):
    """get and [] return bytes objects made in C (drydb__py_get*): each is
    handed over exactly once (20,000 gets of a 100 KB value would leak 2 GB
    otherwise), and the sentinels keep their reference counts."""
    import resource
    import sys
    from drydb import _lib as L

    p = str(tmp_path / "leak.drydb")
    big = b"x" * 100_000
    with drydb.Builder(p) as b:
        b.table("i", key="int64").add_many([(1, big), (2, b"small")])
        b.table("s", key="string").add_many([("a", big)])
    with drydb.open(p) as db:
        i, s = db["i"], db["s"]
        assert i.get(1) == big and s.get("a") == big and i[2] == b"small"
        refs = sys.getrefcount(L.PY_MISSING), sys.getrefcount(L.PY_ASK)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        for _ in range(10_000):
            i.get(1)
            s["a"]
            i.get(3)
            s.get("b")
        grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
        assert grown_kb < 100_000, grown_kb
        assert (sys.getrefcount(L.PY_MISSING), sys.getrefcount(L.PY_ASK)) == refs
        v = i.get(1)
        assert sys.getrefcount(v) == 2  # v and getrefcount's argument


def test_scan_iterators_close_like_generators(shapes):
    """range/prefix/keys/values/items return an iterator with close(), as a
    generator has: after close() it is exhausted, whatever it had fetched;
    contextlib.closing works with it."""
    import contextlib
    import itertools

    p, ints, _ = shapes
    with drydb.open(p) as db:
        t = db["fixed"]
        for make in (lambda: t.range(ints[10], None), lambda: t.range(None, None, reverse=True),
                     lambda: iter(t.keys()), lambda: iter(t.values()), lambda: iter(t.items()),
                     lambda: db["s"].prefix("k00")):
            it = make()
            assert len(list(itertools.islice(it, 300))) == 300  # past a 256-row batch
            it.close()
            assert list(it) == [] and next(it, None) is None
            it.close()  # twice is fine
            with contextlib.closing(make()) as it2:
                assert next(it2) is not None
            assert list(it2) == []
        it = t.range(ints[0], ints[5])
        it.close()  # before the first row
        assert list(it) == []
