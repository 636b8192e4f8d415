"""get and [] as builtin functions of the library (drydb__py_fn, _fast._builtins):
every answer and every error equal to the Python closure's they fall back to,
on every key kind; closed, forked and collected tables. And the uuid.UUID keys
the library makes for scans (drydb__py_init_uuid): equal in every way to
uuid.UUID(bytes=)'s."""

import enum
import gc
import os
import pickle
import subprocess
import sys
import uuid
import weakref

import pytest

import drydb
from drydb import _lib

BUILTIN = type(len)


class Color(enum.IntEnum):
    RED = 3


class Str(str):
    pass


@pytest.fixture(scope="module")
def path(tmp_path_factory):
    p = str(tmp_path_factory.mktemp("builtin") / "kinds.drydb")
    u = [uuid.UUID(int=i * 7919) for i in range(50)]
    with drydb.Builder(p, page_size=512) as b:
        b.table("s", key="string").add_many(("k%03d" % i, b"s%d" % i) for i in range(300))
        b.table("b", key="bytes").add_many((b"k%03d" % i, b"b%d" % i) for i in range(300))
        b.table("i", key="int64").add_many((i, b"i%d" % i) for i in range(-150, 150))
        b.table("u", key="uint64").add_many((i, b"u%d" % i) for i in range(0, 600, 2))
        b.table("id", key="uuid").add_many(sorted((x, x.bytes[:4]) for x in u))
        b.table("j", key="string", codec="json").add_many(("k%03d" % i, {"n": i}) for i in range(100))
        b.table("e", key="string").add_many([("", b"empty key"), ("\u00e9t\u00e9", b"")])
        b.table("f", key="float64").add_many((i / 2, b"f") for i in range(10))
        # every byte value in every position, the ends of the unsigned 128-bit
        # range, more rows than a batch
        w = {uuid.UUID(int=0), uuid.UUID(int=2 ** 128 - 1), uuid.UUID(int=2 ** 127), uuid.UUID(int=2 ** 64 - 1)}
        w |= {uuid.UUID(bytes=bytes((i * 37 + j * 11) % 256 for j in range(16))) for i in range(700)}
        b.table("ids", key="uuid").add_many((x, b"%d" % x.int) for x in sorted(w))
    return p, u


class SubUUID(uuid.UUID):
    pass


def _odd_uuid(i):
    """A UUID whose int slot holds what UUID() never puts there (the builtin
    must leave it to the closure, whatever that makes of it)."""
    x = uuid.UUID(int=0)
    object.__setattr__(x, "int", i)
    return x


def _outcome(f, *args, **kw):
    try:
        r = f(*args, **kw)
    except Exception as e:  # noqa: BLE001
        return ("raised", type(e), str(e))
    return ("ok", bytes(r) if isinstance(r, memoryview) else r)


def _keys(name, u):
    common = [None, True, False, 1.5, b"", "", [], object, 2 ** 64, -(2 ** 63) - 1, "\udc80", Str("k001"),
              bytearray(b"k001"), memoryview(b"k001"), Color.RED, -1, 0, 3, 2 ** 63, 2 ** 63 - 1, -(2 ** 63)]
    own = {
        "s": ["k000", "k299", "k300", "k", "k0010", "\u00e9"],
        "b": [b"k000", b"k299", b"k300", b"k" * 5000],
        "i": [-150, 149, 150, -151, 2 ** 31, -(2 ** 31) - 1],
        "u": [0, 598, 599, 2 ** 32],
        "id": [u[0], u[7].bytes, u[7].bytes[:15], uuid.UUID(int=1), uuid.UUID(int=1).bytes, SubUUID(int=u[3].int),
               _odd_uuid(-1), _odd_uuid(2 ** 128), _odd_uuid(2 ** 200), _odd_uuid("x"), _odd_uuid(u[5].int)],
        "j": ["k000", "k099", "k100"],
        "e": ["", "\u00e9t\u00e9", "\u00e9"],
        "f": [0.5, 1, 2.25],
    }[name]
    return own + common


NAMES = ("s", "b", "i", "u", "id", "j", "e", "f")


def test_builtins_are_made_here():
    """On this CPython the builtins are on (else this file tests nothing new)."""
    if sys.implementation.name != "cpython" or os.environ.get("DRYDB_PY_BUILTIN") == "0":
        pytest.skip("CPython with builtins on only")
    _lib.load()
    assert _lib.FN


@pytest.mark.parametrize("name", NAMES)
def test_same_answers_as_the_closure(path, name):
    p, u = path
    with drydb.open(p) as db:
        t = db[name]
        if name == "f":  # float keys have no fast type: the closure itself
            assert not isinstance(t.get, BUILTIN)
            return
        assert isinstance(t.get, BUILTIN) == _lib.FN
        if not _lib.FN:
            pytest.skip("builtins off")
        get, getitem = t.get, t._getitem
        cget, cgetitem = get.__self__[1], getitem.__self__[1]
        for k in _keys(name, u):
            for args, kw in (((k,), {}), ((k, "dflt"), {}), ((k, None, False), {}), ((k, None, True), {}),
                             ((k,), {"view": True}), ((k,), {"default": 9}), ((k, None, 0), {})):
                assert _outcome(get, *args, **kw) == _outcome(cget, *args, **kw), (name, k, args, kw)
            assert _outcome(getitem, k) == _outcome(cgetitem, k), (name, k)
            assert _outcome(lambda: t[k]) == _outcome(cgetitem, k), (name, k)
        assert _outcome(get) == _outcome(cget)
        assert _outcome(get, 1, 2, 3, 4) == _outcome(cget, 1, 2, 3, 4)
        assert _outcome(getitem, 1, 2) == _outcome(cgetitem, 1, 2)


def test_values_and_defaults_keep_their_references(path):
    p, _ = path
    with drydb.open(p) as db:
        s, i, j = db["s"], db["i"], db["j"]
        dflt = object()
        before = sys.getrefcount(dflt)
        for _ in range(1000):
            assert s.get("nope", dflt) is dflt
            assert i.get(10 ** 6, dflt) is dflt
        assert sys.getrefcount(dflt) == before
        assert s.get("k005") == b"s5" and s["k006"] == b"s6"
        assert j.get("k007") == {"n": 7} and j["k008"] == {"n": 8}
        assert s.get("k005", view=True) == b"s5"


def test_closed_and_collected(path):
    p, _ = path
    db = drydb.open(p)
    t = db["s"]
    get, getitem = t.get, t._getitem
    assert get("k001") == b"s1"
    db.close()
    for call in (lambda: get("k001"), lambda: getitem("k001"), lambda: t["k001"]):
        with pytest.raises(drydb.ClosedError):
            call()
    # the builtins hold the closures, which hold the table: one cycle the
    # garbage collector sees through (self is a tuple)
    db = drydb.open(p)
    ref = weakref.ref(db["i"])
    db.close()
    del db, get, getitem, t
    gc.collect()
    assert ref() is None


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_forked_child(path):
    p, _ = path
    with drydb.open(p) as db:
        get = db["s"].get
        assert get("k001") == b"s1"
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                get("k001")
            except drydb.ForkError:
                code = 0
            except BaseException:  # noqa: BLE001
                code = 3
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        assert get("k001") == b"s1"


def test_off_by_environment(path):
    """DRYDB_PY_BUILTIN=0 keeps the ctypes closures (and the same answers)."""
    p, _ = path
    code = ("import drydb, sys; db = drydb.open(sys.argv[1]); t = db['s']; "
            "assert not isinstance(t.get, type(len)); assert t.get('k001') == b's1'; "
            "assert t['k002'] == b's2'; assert t.get('x', 5) == 5; print('ok')")
    env = dict(os.environ, DRYDB_PY_BUILTIN="0")
    r = subprocess.run([sys.executable, "-c", code, p], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_uuid_keys_made_here():
    """On this CPython the library makes UUID keys (else the tests below
    check the Python decoder only)."""
    if sys.implementation.name != "cpython" or os.environ.get("DRYDB_PY_BUILTIN") == "0":
        pytest.skip("CPython with builtins on only")
    _lib.load()
    assert _lib.UUID


def _same_uuid(k, want):
    assert type(k) is uuid.UUID and k == want and k.int == want.int and k.bytes == want.bytes
    assert str(k) == str(want) and hash(k) == hash(want) and k.is_safe is uuid.SafeUUID.unknown
    assert k.version == want.version and k.variant == want.variant and k < uuid.UUID(int=2 ** 128 - 1) or k == want
    assert pickle.loads(pickle.dumps(k)) == want and weakref.ref(k)() is k
    with pytest.raises(TypeError):
        k.int = 5  # immutable, as any UUID


def test_uuid_scans(path):
    p, _ = path
    with drydb.open(p) as db:
        t = db["ids"]
        want = sorted(uuid.UUID(bytes=bytes((i * 37 + j * 11) % 256 for j in range(16))) for i in range(700))
        want = sorted(set(want) | {uuid.UUID(int=0), uuid.UUID(int=2 ** 128 - 1), uuid.UUID(int=2 ** 127),
                                   uuid.UUID(int=2 ** 64 - 1)})
        rows = list(t.items())
        assert len(rows) == len(want) > 256
        for (k, v), w in zip(rows, want):
            _same_uuid(k, w)
            assert v == b"%d" % w.int
        assert [k for k, _ in t.range(reverse=True)] == want[::-1]
        mid = want[len(want) // 2]
        assert [k for k, _ in t.range(mid, want[-3])] == want[len(want) // 2:-3]
        assert [k for k, _ in t.range(mid.bytes)][:5] == want[len(want) // 2:len(want) // 2 + 5]
        assert t[want[-1]] == b"%d" % (2 ** 128 - 1)


def test_uuid_references(path):
    """Each key holds one reference to SafeUUID.unknown and its own int,
    released with it; the garbage collector sees them."""
    p, _ = path
    unknown = uuid.SafeUUID.unknown
    with drydb.open(p) as db:
        t = db["ids"]
        list(t.keys())
        gc.collect()
        before = sys.getrefcount(unknown)
        keys = list(t.keys())
        assert sys.getrefcount(unknown) == before + len(keys)
        k = keys[3]
        assert gc.is_tracked(k) and any(r is k.int for r in gc.get_referents(k))
        made = uuid.UUID(bytes=k.bytes)
        assert sys.getrefcount(k.int) == sys.getrefcount(made.int)  # the slot's, the call's
        del keys, k, made
        gc.collect()
        assert sys.getrefcount(unknown) == before


@pytest.mark.parametrize("name", NAMES + ("ids",))
def test_scan_batches(path, name):
    """A scan's batch call (a builtin where get is one) gives what its
    ctypes fallback gives, for any arguments; once the table is closed,
    the fallback's ClosedError."""
    p, _ = path
    db = drydb.open(p)
    t = db[name]
    batch = t._paths.batch
    assert isinstance(batch, BUILTIN) == _lib.FN
    slow = batch.__self__[1] if isinstance(batch, BUILTIN) else batch
    mid = b"k1"  # a bound in the middle of the string and bytes tables, below the others' keys
    cases = [(b"", 0, b"", 0, 0, 16, 0), (b"", 0, b"", 0, 1, 5, 1), (b"", 0, b"", 0, 0, 256, 2),
             (mid, 1, b"\xff" * 8, 2, 0, 7, 0), (mid, 2, b"", 0, 1, 3, 0),
             # refused by the library or by the fallback's checks: the same either way
             (b"", 0, b"", 0, 0, 0, 0), (b"", 0, b"", 0, 0, 257, 0), (b"", 0, b"", 0, 0, 16, 3),
             (b"", 0, b"", 0, 0, -1, 0), ("", 0, b"", 0, 0, 16, 0), (b"", 0, b"", 0, 0, 2 ** 70, 0),
             (bytearray(), 0, b"", 0, 0, 16, 0), (b"", True, b"", 0, 0, 16, 0)]
    for args in cases:
        got, want = _outcome(batch, *args), _outcome(slow, *args)
        assert got == want, (name, args, got, want)
    assert _outcome(batch, b"", 0) == _outcome(slow, b"", 0)
    assert _outcome(batch, b"", 0, b"", 0, 0, 16, what=0) == _outcome(slow, b"", 0, b"", 0, 0, 16, what=0)
    rows = list(t.items())
    db.close()
    assert rows
    with pytest.raises(drydb.ClosedError):
        batch(b"", 0, b"", 0, 0, 16, 0)
