"""Hot swap (Database.refresh) under load, and its edge cases.

A writer thread rebuilds the file every ~100 ms (the builder writes a
temporary file and renames it over the path) while 5 reader threads run
gets, get_many, counts, ranges and cursor walks; one of them refreshes.
Every value encodes the version that wrote it and the row set is a
function of the version, so each answer is checked against the version
that answered, which must lie between the versions current before and
after the call. Afterwards the file's mappings are back to one.
DRYDB_SWAP_SECONDS sets the load's length (default 2)."""

import os
import threading
import time

import pytest

import drydb

NK = 600


def in_set(k, v):
    return 0 <= k < NK and k % 5 != v % 5


def val(k, v):
    return b"v%08d k%08d" % (v, k)


def dec(b, k):
    v, kk = b.split(b" ")
    assert int(kk[1:]) == k, (b, k)
    return int(v[1:])


def count_of(v):
    return sum(in_set(k, v) for k in range(NK))


def build(path, v):
    with drydb.Builder(path, meta={"version": str(v)}) as b:
        for name, comp in (("t", None), ("z", "zstd"), ("even", None)):
            if name == "even" and v % 2:
                continue
            t = b.table(name, key="int64", compression=comp)
            t.add_many((k, val(k, v)) for k in range(NK) if in_set(k, v))


def version(db):
    return int(db.meta("version"))


def mappings(path):
    with open("/proc/self/maps") as f:
        return sum(path in line for line in f)


needs_proc = pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="needs /proc/self/maps")


@needs_proc
def test_load(tmp_path):
    path = str(tmp_path / "live.drydb")
    build(path, 0)
    seconds = float(os.environ.get("DRYDB_SWAP_SECONDS", "2"))
    wrong = []
    answers = [0]
    stop = threading.Event()
    written = [0]

    def writer():
        v = 1
        nxt = str(tmp_path / "next.drydb")
        while not stop.is_set():
            build(nxt, v)
            os.replace(nxt, path)
            written[0] = v
            v += 1
            time.sleep(0.1)

    def bad(what, k, got, lo, hi):
        wrong.append("%s key %s: version %s, current %s..%s" % (what, k, got, lo, hi))

    def reader(db, seed, refresher):
        import random
        rnd = random.Random(seed)
        tabs = [db["t"], db["z"]]
        n = 0
        while not stop.is_set():
            t = tabs[n % 2]
            if refresher and n % 20 == 0:
                db.refresh()
            k = rnd.randrange(NK + 10)
            lo = version(db)
            op = rnd.randrange(5)
            if op == 0:
                got = t.get(k)
                hi = version(db)
                if got is None:
                    if not any(not in_set(k, x) for x in range(lo, hi + 1)):
                        bad("get (missing)", k, None, lo, hi)
                else:
                    g = dec(got, k)
                    if not (lo <= g <= hi and in_set(k, g)):
                        bad("get", k, g, lo, hi)
            elif op == 1:
                ks = list(range(k, k + 16))
                vs = t.get_many(ks)
                hi = version(db)
                seen = {dec(v, kk) for kk, v in zip(ks, vs) if v is not None}
                if len(seen) > 1:
                    bad("get_many (mixed)", k, seen, lo, hi)
                for g in seen:
                    if not lo <= g <= hi or any((v is not None) != in_set(kk, g) for kk, v in zip(ks, vs)):
                        bad("get_many", k, g, lo, hi)
            elif op == 2:
                c = t.count()
                hi = version(db)
                if not any(c == count_of(x) for x in range(lo, hi + 1)):
                    bad("count", None, c, lo, hi)
            elif op == 3:
                # range() reads 16 rows, then 32, ...: each batch from the
                # version current at its call, so a refresh between batches
                # moves the rest of the walk to the new version (README,
                # "Live data"). Each row is right for the version it came
                # from, versions never go back, one version gives exactly
                # its rows.
                rows = list(t.range(k, k + 40))
                hi = version(db)
                gs = [dec(v, kk) for kk, v in rows]
                keys = [kk for kk, _ in rows]
                if gs != sorted(gs) or keys != sorted(set(keys)) or any(not k <= kk < k + 40 for kk in keys):
                    bad("range (order)", k, gs, lo, hi)
                for kk, g in zip(keys, gs):
                    if not lo <= g <= hi or not in_set(kk, g):
                        bad("range", kk, g, lo, hi)
                if len(set(gs)) == 1 and keys != [x for x in range(k, k + 40) if in_set(x, gs[0])]:
                    bad("range (rows)", k, gs[0], lo, hi)
                if not rows and all(any(in_set(x, g) for x in range(k, k + 40)) for g in range(lo, hi + 1)):
                    bad("range (none)", k, None, lo, hi)
            else:
                # a cursor walk in small steps: refreshes happen meanwhile
                rows = []
                with t.cursor(k, k + 200) as c:
                    for kk, v in c:
                        rows.append((kk, v))
                        if len(rows) % 50 == 0:
                            time.sleep(0.001)
                hi = version(db)
                seen = {dec(v, kk) for kk, v in rows}
                if len(seen) > 1:
                    bad("cursor (mixed)", k, seen, lo, hi)
                for g in seen:
                    if [kk for kk, _ in rows] != [x for x in range(k, k + 200) if in_set(x, g)]:
                        bad("cursor", k, g, lo, hi)
            n += 1
        answers[0] += n

    with drydb.open(path) as db:
        assert mappings(path) == 1
        threads = [threading.Thread(target=writer)]
        threads += [threading.Thread(target=reader, args=(db, i, i == 0)) for i in range(5)]
        for th in threads:
            th.start()
        time.sleep(seconds)
        stop.set()
        for th in threads:
            th.join()
        assert not wrong, wrong[:10]
        assert db.refresh() in (True, False)
        assert version(db) == written[0]
        assert db.version[1] >= 2
        assert len(db["t"]) == count_of(written[0])
        # the reader threads are gone with their holds: only the current file
        assert mappings(path) == 1
        print("python load: %.0f s, %d answers, %d versions" % (seconds, answers[0], db.version[1]))
    assert mappings(path) == 0


def test_bad_files_keep_the_version(tmp_path):
    path = str(tmp_path / "a.drydb")
    good = str(tmp_path / "good.drydb")
    build(path, 10)
    build(good, 12)
    data = open(good, "rb").read()
    with drydb.open(path) as db:
        bid, seq = db.version
        assert seq == 0 and len(bid) == 16
        assert db.refresh() is False
        t = db["t"]
        cases = [
            (data[: len(data) // 2], drydb.CorruptError),
            (b"", drydb.CorruptError),
            (data[:-10] + bytes([data[-10] ^ 0x40]) + data[-9:], drydb.CorruptError),
            (None, drydb.IOFailure),
        ]
        for content, exc in cases:
            if content is None:
                os.unlink(path)
            else:
                with open(path + ".tmp", "wb") as f:
                    f.write(content)
                os.replace(path + ".tmp", path)
            with pytest.raises(exc, match="keeps the version"):
                db.refresh()
            assert version(db) == 10
            assert dec(t[1], 1) == 10
            assert db.version == (bid, 0)
        os.replace(good, path)
        assert db.refresh() is True
        assert version(db) == 12 and dec(t[1], 1) == 12
        assert db.version[0] != bid and db.version[1] == 1
    with pytest.raises(drydb.ClosedError):
        db.refresh()


def test_vanished_table_cursors_and_views(tmp_path):
    path = str(tmp_path / "b.drydb")
    build(path, 2)
    with drydb.open(path) as db:
        t, even = db["t"], db["even"]
        cur = t.cursor()  # reads version 2 until closed
        it = iter(cur)
        first = next(it)
        view = t.get(1, view=True)
        assert dec(bytes(view), 1) == 2
        build(path, 3)
        assert db.refresh() is True
        with pytest.raises(ValueError):
            bytes(view)  # released by the refresh
        with pytest.raises(drydb.NoTableError, match='"even"'):
            even.get(2)
        with pytest.raises(drydb.NoTableError):
            even.count()
        rest = [first] + list(it)
        assert [k for k, _ in rest] == [k for k in range(NK) if in_set(k, 2)]
        assert {dec(v, k) for k, v in rest} == {2}
        cur.close()
        assert len(t) == count_of(3)
        build(path, 4)
        assert db.refresh() is True
        assert dec(even[2], 2) == 4
        exported = t.get(1, view=True)
        held = exported[2:]
        build(path, 5)
        with pytest.raises(drydb.InvalidError, match="exported"):
            db.refresh()
        assert version(db) == 4
        held.release()
        exported.release()
        assert db.refresh() is True
        assert version(db) == 5


def test_refresh_every(tmp_path):
    path = str(tmp_path / "c.drydb")
    build(path, 1)
    with drydb.open(path) as db:
        db.refresh_every(5)
        build(path, 2)
        deadline = time.time() + 5
        while version(db) != 2 and time.time() < deadline:
            time.sleep(0.01)
            db.table("z").count()  # a call that enters the library's Go side
        assert version(db) == 2
        db.refresh_every(0)
        build(path, 3)
        time.sleep(0.02)
        db.table("z").count()
        assert version(db) == 2
    with drydb.open_memory(open(path, "rb").read()) as db:
        with pytest.raises(drydb.InvalidError):
            db.refresh()


def test_close_races_refresh(tmp_path):
    path = str(tmp_path / "d.drydb")
    for rnd in range(5):
        build(path, rnd)
        db = drydb.open(path)
        t = db["t"]
        errors = []

        def loop(f):
            try:
                while True:
                    f()
            except drydb.ClosedError:
                pass
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)

        ths = [threading.Thread(target=loop, args=(db.refresh,)),
               threading.Thread(target=loop, args=(lambda: t.get(3),))]
        for th in ths:
            th.start()
        build(path, rnd + 100)
        time.sleep(0.01)
        db.close()
        for th in ths:
            th.join()
        assert not errors, errors
