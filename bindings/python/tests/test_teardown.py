"""Databases closed, and files truncated, while other threads read them.

The binding copies every answer inside the library call (drydb/_copy.py):
``close()`` racing reads gives each reader a finished answer or
``ClosedError``, and a file truncated underneath gives ``CorruptError``, in
every read path: scans, cursors, index gets and scans, get_many, at, get
(and zero-copy views, under close only: a view reads the file itself).
Before, rows were copied out of the mapping after the call returned, and
these runs died of SIGSEGV/SIGBUS; so each scenario runs in a child process,
where a crash fails the test instead of killing pytest.

Also two small ones: a table name that is not UTF-8 (kept as lone
surrogates, and it still opens its table) and ``len()`` of a table claiming
2**64 - 1 rows (``TooLargeError``; ``count()`` gives the number).
"""

import os
import struct
import subprocess
import sys
import textwrap

import pytest

import drydb

ROWS = 20000

# The child: builds nothing, reads the file given, prints one line of
# figures; exit status 0 when every answer was right and every error the
# expected one.
CHILD = textwrap.dedent(r'''
    import os, random, sys, threading, time
    import drydb

    mode, path, rounds, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    ROWS = %d

    def val(i):
        return b"value-%%08d" %% i

    def sval(i):
        return b"s" * (i %% 50) + b"%%d" %% i

    def ops(db, rnd):
        """One read of each kind, every answer checked; yields after each."""
        t, s = db["ints"], db["strs"]
        ix = t.index("by_mod")
        while True:
            lo = rnd.randrange(ROWS)
            got = list(t.range(lo, lo + 300))
            assert got == [(i, val(i)) for i in range(lo, min(lo + 300, ROWS))], "range"
            yield
            got = list(t.range(lo - 50, lo, reverse=True, keys=False))
            assert got == [val(i) for i in range(lo - 1, max(lo - 51, -1), -1)], "reverse values"
            yield
            keys = [rnd.randrange(ROWS + 100) for _ in range(400)]
            assert t.get_many(keys) == [val(k) if k < ROWS else None for k in keys], "get_many"
            yield
            i = rnd.randrange(ROWS)
            assert t.at(i) == (i, val(i)) and t.get(i) == val(i) and t[i] == val(i), "at/get"
            yield
            with t.cursor(lo, lo + 120) as c:
                assert [c.item for _ in iter(c.next, False)] == [(i, val(i)) for i in range(lo, min(lo + 120, ROWS))], "cursor"
            yield
            m = lo %% 7
            got = list(ix.range(m, m, inclusive=(True, True)))[:200]
            assert got == [(k, val(k)) for k in range(m, ROWS, 7)][:200], "index scan"
            assert ix.get(m) == (m, val(m)), "index get"
            yield
            with ix.cursor(m, m, inclusive=(True, True)) as c:
                assert c.next() and c.primary_key == m and c.key == m, "index cursor"
            yield
            got = list(s.range("k%%06d" %% lo, "k%%06d" %% (lo + 150)))
            assert got == [("k%%06d" %% i, sval(i)) for i in range(lo, min(lo + 150, ROWS))], "strings"
            yield
            if mode == "close":  # views read the file itself: not under truncation
                v = t.get(i, view=True)
                try:
                    assert bytes(v) == val(i), "view"
                except ValueError:  # released by close(), as documented
                    raise drydb.ClosedError("drydb: view released by close()")
                del v
                yield

    def reader(db, seed, expect, out):
        """Reads until an error: the expected one, once the trigger fired."""
        rnd = random.Random(seed)
        n = 0
        try:
            for _ in ops(db, rnd):
                n += 1
        except expect as e:
            out.append((n, type(e).__name__))
        except BaseException as e:  # a wrong answer or another error
            out.append((n, "%%s: %%s" %% (type(e).__name__, e)))

    def run(expect, trigger, label, reset=lambda: None):
        results = []
        for r in range(rounds):
            reset()
            db = drydb.open(path)
            for name in ("ints", "strs"):  # every page read (checked) once: the C paths answer
                list(db[name].items())
            out = []
            ts = [threading.Thread(target=reader, args=(db, r * 100 + k, expect, out))
                  for k in range(threads)]
            for t in ts:
                t.start()
            time.sleep(0.005 + 0.02 * random.Random(r).random())
            trigger(db)
            for t in ts:
                t.join(60)
            assert not any(t.is_alive() for t in ts), "a reader hangs"
            db.close()
            results += out
        bad = [o for o in results if o[1] != expect.__name__]
        print("%%s: %%d rounds x %%d threads, %%d reads, endings %%s"
              %% (label, rounds, threads, sum(n for n, _ in results), sorted(set(e for _, e in results))))
        if bad:
            sys.exit("%%s: readers ended otherwise: %%r" %% (label, bad[:5]))

    if mode == "close":
        run(drydb.ClosedError, lambda db: db.close(), "close racing reads")
    else:
        with open(path, "rb") as f:
            orig = f.read()
        # whole pages: bytes past the end inside the last page of the mapping
        # read as zeros, not as a fault
        cut_to = 0 if mode == "truncate0" else len(orig) // 2 & ~4095

        def reset():
            with open(path, "wb") as f:
                f.write(orig)

        run(drydb.CorruptError, lambda db: os.truncate(path, cut_to),
            "truncated to %%d of %%d bytes while read" %% (cut_to, len(orig)), reset)
''' % ROWS)


@pytest.fixture(scope="module")
def teardown_file(tmp_path_factory):
    """ints: int64 keys 0..ROWS-1, same-size values, index by_mod (k % 7);
    strs: string keys, values of varying length. Uncompressed: truncation
    of compressed tables is left out (a later read of a block whose decode
    faulted waits forever in the engine's cache)."""
    path = str(tmp_path_factory.mktemp("teardown") / "t.drydb")
    with drydb.Builder(path) as b:
        t = b.table("ints", key="int64")
        t.index("by_mod", key="int64", func=lambda k, v: k % 7)
        t.add_many((i, b"value-%08d" % i) for i in range(ROWS))
        s = b.table("strs", key="string")
        s.add_many(("k%06d" % i, b"s" * (i % 50) + b"%d" % i) for i in range(ROWS))
    return path


def _child(mode, path, rounds, threads=4):
    p = subprocess.run([sys.executable, "-c", CHILD, mode, path, str(rounds), str(threads)],
                       capture_output=True, text=True, timeout=600)
    sys.stderr.write(p.stdout)
    assert p.returncode == 0, "child %s exited with %d (negative: killed by that signal)\n%s\n%s" % (
        mode, p.returncode, p.stdout, p.stderr[-3000:])
    return p.stdout


def test_close_racing_reads(teardown_file):
    """close() while 4 threads read: each reader ends with ClosedError (its
    answers before it all right), in 25 rounds; no crash."""
    _child("close", teardown_file, 25)


@pytest.mark.parametrize("mode", ["truncate0", "truncate-half"])
def test_truncated_while_threads_read(teardown_file, tmp_path, mode):
    """The file truncated (to 0, to half: whole pages) while 4 threads read
    it, every page read once before: each reader ends with CorruptError; no
    SIGBUS."""
    path = str(tmp_path / "t.drydb")
    with open(teardown_file, "rb") as f, open(path, "wb") as g:
        g.write(f.read())
    _child(mode, path, 8)


# --- files with hostile catalogs ---------------------------------------------
# The builders refuse such names and counts; the catalog of a built file is
# rewritten (docs/FORMAT.md: catalog fields, footer, CRC-32C).

def _crc32c(data):
    c = 0xFFFFFFFF
    for x in data:
        c ^= x
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    return c ^ 0xFFFFFFFF


def _uvarint(b, i):
    v = s = 0
    while True:
        x = b[i]
        i += 1
        v |= (x & 0x7F) << s
        s += 7
        if x < 0x80:
            return v, i


def _put_uvarint(v):
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def _rewrite_first_table(path, name=None, rows=None):
    """Give the catalog's first table another name (same length) or row count."""
    with open(path, "rb") as f:
        data = f.read()
    foot = bytearray(data[-64:])
    catoff, catlen = struct.unpack_from("<QQ", foot, 0)
    cat = bytearray(data[catoff:catoff + catlen])
    i = 24  # created, build id
    nmeta, i = _uvarint(cat, i)
    for _ in range(2 * nmeta):
        n, i = _uvarint(cat, i)
        i += n
    _ntables, i = _uvarint(cat, i)
    n, i = _uvarint(cat, i)
    if name is not None:
        assert len(name) == n
        cat[i:i + n] = name
    i += n
    n, i = _uvarint(cat, i)  # encoding
    i += n
    _, j = _uvarint(cat, i)  # the tree's row count
    if rows is not None:
        cat[i:j] = _put_uvarint(rows)
    struct.pack_into("<QQI", foot, 0, catoff, len(cat), _crc32c(cat))
    struct.pack_into("<Q", foot, 32, catoff + len(cat) + 64)  # the file's length
    struct.pack_into("<I", foot, 52, _crc32c(foot[:52]))
    with open(path, "wb") as f:
        f.write(data[:catoff] + bytes(cat) + bytes(foot))


def _small(path, name="ab"):
    with drydb.Builder(path) as b:
        b.table(name, key="int64").add_many((i, b"v%d" % i) for i in range(10))


def test_table_name_not_utf8(tmp_path):
    """Bytes that are not UTF-8 come back as lone surrogates
    (surrogateescape); that name opens the table."""
    path = str(tmp_path / "name.drydb")
    _small(path)
    _rewrite_first_table(path, name=b"a\xff")
    with drydb.open(path) as db:
        assert db.tables == ["a\udcff"]
        t = db["a\udcff"]
        assert t.name == "a\udcff" and t[3] == b"v3"
        assert "a\udcff" in db and list(db) == ["a\udcff"]
        with pytest.raises(drydb.NoTableError):
            db["a\ufffd"]


def test_len_beyond_sys_maxsize(tmp_path):
    """A table claiming 2**64 - 1 rows (more than Python's len() can give):
    the file is refused at open as corrupt, since no region of a file can
    hold that many rows (the engine bounds every count by the file), so no
    len() or count() ever sees the claim."""
    path = str(tmp_path / "rows.drydb")
    _small(path)
    _rewrite_first_table(path, rows=2**64 - 1)
    with pytest.raises(drydb.CorruptError, match="cannot fit"):
        drydb.open(path)
