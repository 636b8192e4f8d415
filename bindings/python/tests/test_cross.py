"""Cross-language: the shared vector databases (built by Go and by C) read
through Python, and a Python-built database read by a C program."""

import json
import os
import shutil
import subprocess

import pytest

import drydb
from drydb.keys import KeyCodec

from conftest import HERE, ROOT, VECTORS

EXPECTED = os.path.join(VECTORS, "expected.json")


def _expected():
    if not os.path.exists(EXPECTED):
        pytest.skip("tests/vectors/expected.json not present (make vectors)")
    with open(EXPECTED) as f:
        return json.load(f)


def _link_library(d):
    """libdrydb.so and libdrydb.so.0 (the SONAME) in d, pointing at the tested library."""
    lib = os.path.abspath(os.environ["DRYDB_LIBRARY"])
    for name in ("libdrydb.so", "libdrydb.so.0"):
        os.symlink(lib, str(d / name))


def _h(x):
    return None if x is None else bytes.fromhex(x)


@pytest.mark.parametrize("which", ["go_built", "c_built"])
def test_vector_database(which):
    exp = _expected()[which]
    path = os.path.join(VECTORS, exp["file"])
    if not os.path.exists(path):
        pytest.skip("%s not present (make vectors)" % exp["file"])
    with drydb.open(path, verify=True) as db:
        for k, v in exp["meta"].items():
            assert db.meta(k) == _h(v)
        assert db.tables == [t["name"] for t in exp["tables"]]
        for te in exp["tables"]:
            raw = db.table(te["name"], codec=None, raw_keys=True)
            typed = db.table(te["name"], codec=None)
            kc = KeyCodec(te["key_kind"], te["parts"] or ())
            assert typed._key.kind == te["key_kind"] and list(typed._key.parts) == (te["parts"] or [])
            assert len(raw) == te["rows"]
            assert {None: 0, "zstd": 1, "s2": 2}[raw.compression] == te["compression"]
            want = [(_h(k), _h(v)) for k, v in te["entries"]]
            assert list(raw.items()) == want
            assert list(raw.items()) == list(raw.range())
            assert list(reversed(list(raw.keys()))) == list(raw.range(values=False, reverse=True))
            # typed decoding agrees with the raw bytes, and round-trips
            typed_rows = list(typed.items())
            assert [kc.encode(k) for k, _ in typed_rows] == [k for k, _ in want]
            assert raw.get_many([k for k, _ in want]) == [v for _, v in want]
            for k, v in want[:: max(1, len(want) // 50)]:
                assert raw[k] == v and typed[kc.decode(k)] == v
            for m in te.get("missing") or []:
                try:
                    assert raw.get(_h(m)) is None
                except drydb.BadKeyError:  # e.g. a 9-byte int64 key
                    pass
            for c in te.get("counts") or []:
                lo, hi = _h(c["lo"]), _h(c["hi"])
                inc = (c["lo_kind"] != 2, c["hi_kind"] != 2)
                assert raw.count(lo, hi, inclusive=inc) == c["count"], c
                assert len(list(raw.range(lo, hi, inclusive=inc, values=False))) == c["count"], c
            for ie in te.get("indexes") or []:
                ix = typed.index(ie["name"])
                assert ix.unique == bool(ie["unique"]) and len(ix) == len(ie["entries"])
                ikc = ix._key
                got = [(ikc.encode(ik), kc.encode(pk)) for ik, pk, _ in ix.range(with_index_key=True)]
                assert got == [(_h(a), _h(b)) for a, b in ie["entries"]]
                values = dict(want)
                for ik, pk, v in ix.range(with_index_key=True):
                    assert v == values[kc.encode(pk)]


def test_c_reads_python_built(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    exe = str(tmp_path / "read_python_built")
    _link_library(tmp_path)
    subprocess.run([cc, "-std=c99", "-O1", "-I", os.path.join(ROOT, "include"),
                    os.path.join(HERE, "c", "read_python_built.c"), "-o", exe,
                    "-L", str(tmp_path), "-ldrydb", "-Wl,-rpath," + str(tmp_path)],
                   check=True)
    path = str(tmp_path / "py.drydb")
    with drydb.Builder(path) as b:
        t = b.table("nums", key="int64", codec="json")
        t.index("parity", key="int64", func=lambda k, v: k % 2)
        t.add_many((k, "v%d" % k) for k in reversed(range(1000)))
        p = b.table("pairs", key=("string", "int64"), compression="zstd")
        p.add_many(((s, n), ("%s%d" % (s, n)).encode()) for s in "cba" for n in range(-5, 5))
    out = subprocess.run([exe, path], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, LD_LIBRARY_PATH=str(tmp_path)))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_c_builder_file_fresh(tmp_path):
    """tests/c/make_vectors.c compiled and run now, then read through Python."""
    cc = shutil.which("cc") or shutil.which("gcc")
    src = os.path.join(ROOT, "tests", "c", "make_vectors.c")
    if cc is None or not os.path.exists(src):
        pytest.skip("no C compiler or tests/c/make_vectors.c")
    _link_library(tmp_path)
    exe = str(tmp_path / "make_vectors")
    subprocess.run([cc, "-std=c99", "-I", os.path.join(ROOT, "include"), src, "-o", exe,
                    "-L", str(tmp_path), "-ldrydb", "-Wl,-rpath," + str(tmp_path)], check=True)
    path = str(tmp_path / "c.drydb")
    subprocess.run([exe, path], check=True, capture_output=True, timeout=120)
    with drydb.open(path, verify=True) as db:
        assert db.meta("source") == b"make_vectors.c"
        ints = db["ints"]
        keys = list(ints.keys())
        assert keys == sorted(keys) and len(keys) == len(set(keys)) > 0
        for k in keys[::7]:
            assert ints[k] == b"i=%d" % k
        sign = ints.index("sign")
        assert [pk for pk, _ in sign.get_all(-1)] == [k for k in keys if k < 0]
        assert sign.count(0, 0, inclusive=(True, True)) == (1 if 0 in keys else 0)
        words = db["words"]
        for w in list(words.keys())[::13]:
            assert words[w] == w.encode() * 3
        pairs = db["pairs"]
        for (s, n), v in pairs.items():
            assert v == ("%s:%d" % (s, n)).encode()
