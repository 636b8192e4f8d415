"""Test setup: find or build libdrydb, make the package importable.

DRYDB_LIBRARY wins; else build/libdrydb.so of the repository; else the
library is built with `go build -buildmode=c-shared` into a temporary
directory (once per session).
"""

import os
import shutil
import subprocess
import sys
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.dirname(HERE)
ROOT = os.path.dirname(os.path.dirname(PKG))
VECTORS = os.path.join(ROOT, "tests", "vectors")

# DRYDB_TEST_INSTALLED=1 (scripts/test-wheel): test the installed package
# and the library inside it, not the source tree.
INSTALLED = bool(os.environ.get("DRYDB_TEST_INSTALLED"))
if not INSTALLED and PKG not in sys.path:
    sys.path.insert(0, PKG)


def _library() -> str:
    env = os.environ.get("DRYDB_LIBRARY")
    if env:
        return env
    if INSTALLED:
        # The library the installed package carries, found without loading
        # it: loading now, before pytest's faulthandler takes SIGBUS, would
        # put faulthandler in front of the library's truncation handler.
        import importlib.util
        pkg = importlib.util.find_spec("drydb").submodule_search_locations[0]
        return os.path.join(pkg, "libdrydb.so")
    built = os.path.join(ROOT, "build", "libdrydb.so")
    if os.path.exists(built):
        return built
    go = shutil.which("go")
    if go is None:
        pytest.exit("libdrydb.so not found: set DRYDB_LIBRARY or run `make lib` (no go toolchain)", 2)
    out = os.path.join(tempfile.mkdtemp(prefix="drydb-pytest-"), "libdrydb.so")
    subprocess.run([go, "build", "-buildmode=c-shared", "-o", out, "./capi"], cwd=ROOT, check=True)
    return out


os.environ["DRYDB_LIBRARY"] = os.path.abspath(_library())
# Children started with spawn import drydb from the source tree too.
if not INSTALLED:
    os.environ["PYTHONPATH"] = PKG + os.pathsep + os.environ.get("PYTHONPATH", "")

import drydb  # noqa: E402


def build_sample(path):
    """The sample database the API tests use.

    items: int64 -500..498 step 2 (500 rows), json values {"n": k, "cat": "c<k%3>"},
           index by_cat (string, non-unique, by func), index by_n (int64, unique, explicit)
    words: string "w000".."w299", zstd, value = key*3 (bytes)
    pairs: composite (string, int64), s2, ("a".."e", 0..19) -> b"<s>:<n>"
    blobs: bytes keys incl. empty and NUL-containing, values incl. empty and 100 KiB
    """
    with drydb.Builder(path, meta={"source": "pytest"}) as b:
        t = b.table("items", key="int64", codec="json")
        t.index("by_cat", key="string", func=lambda k, v: v["cat"])
        by_n = t.index("by_n", key="int64", unique=True)
        t.add_many((k, {"n": k, "cat": "c%d" % (k % 3)}) for k in range(-500, 500, 2))
        by_n.add_many((-k, k) for k in range(-500, 500, 2))
        w = b.table("words", key="string", compression="zstd")
        w.add_many(("w%03d" % i, ("w%03d" % i).encode() * 3) for i in range(300))
        p = b.table("pairs", key=("string", "int64"), compression="s2")
        for s in "abcde":
            for n in range(20):
                p.add((s, n), ("%s:%d" % (s, n)).encode())
        bl = b.table("blobs", key="bytes")
        bl.add(b"", b"empty key")
        bl.add(b"a\x00b", b"")
        bl.add(b"big", b"x" * 100000)
        bl.add(b"\xff" * 3, b"last")


@pytest.fixture(scope="session")
def sample_path(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("sample") / "sample.drydb")
    build_sample(path)
    return path


@pytest.fixture
def db(sample_path):
    d = drydb.open(sample_path)
    yield d
    d.close()
