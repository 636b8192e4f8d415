"""Corruption from outside, read through Python.

The corpus (tests/corrupt/gen: a base file using every feature and ~380
damaged copies: bit flips on every page, zeroed pages, truncations, appended
garbage, overwritten runs) is generated at test time with `go run` (or taken
from $DRYDB_CORRUPT_DIR when set). Every variant is opened and every table
read in full (get, get_many, at, both scan directions, counts, index gets,
counts and scans): each answer must equal the base file's, or the call must
raise CorruptError (open may also raise VersionError, for a damaged version
field). A wrong answer, another error or a crash fails.

Then files changed under an open database: truncated to half, and rewritten
in place with other bytes (before and after the pages were first read).
"""

import json
import os
import random
import shutil
import subprocess
import sys

import pytest

import drydb

from conftest import ROOT


def _h(x):
    return None if x is None else bytes.fromhex(x)


@pytest.fixture(scope="session")
def corpus(tmp_path_factory):
    d = os.environ.get("DRYDB_CORRUPT_DIR")
    if not d or not os.path.exists(os.path.join(d, "manifest.json")):
        go = shutil.which("go")
        if go is None:
            pytest.skip("go toolchain not found: cannot generate tests/corrupt variants")
        d = str(tmp_path_factory.mktemp("corrupt"))
        subprocess.run([go, "run", "./tests/corrupt/gen", d], cwd=ROOT, check=True,
                       capture_output=True, timeout=300)
    with open(os.path.join(d, "manifest.json")) as f:
        manifest = json.load(f)
    with open(os.path.join(d, manifest["expected"])) as f:
        exp = json.load(f)
    return d, manifest, exp


class Reader:
    """Reads one open database against the expectations; counts the calls
    that failed with CorruptError. Any wrong answer raises AssertionError,
    any other exception propagates."""

    def __init__(self, exp, label, allowed=(drydb.CorruptError,)):
        self.exp = exp
        self.label = label
        self.allowed = allowed
        self.detected = 0
        self.calls = 0

    def call(self, fn, *args, **kw):
        """(True, result), or (False, None) when the call reports corruption."""
        self.calls += 1
        try:
            return True, fn(*args, **kw)
        except self.allowed:
            self.detected += 1
            return False, None

    def walk(self, it, want, what):
        """Consume an iterator that must yield `want` in order, unless it
        stops early with a corrupt error."""
        i = 0
        self.calls += 1
        try:
            for got in it:
                assert i < len(want), "%s: %s yields more than %d rows" % (self.label, what, len(want))
                assert got == want[i], "%s: %s row %d: %r != %r" % (self.label, what, i, got, want[i])
                i += 1
        except self.allowed:
            self.detected += 1
            return
        assert i == len(want), "%s: %s ended after %d of %d rows" % (self.label, what, i, len(want))

    def read(self, db):
        for te in self.exp["tables"]:
            self.table(db, te)

    def table(self, db, te):
        name = te["name"]
        w = "%s %s" % (self.label, name)
        ok, t = self.call(db.table, name, codec=None, raw_keys=True)
        if not ok:
            return
        assert len(t) == te["rows"], w + " rows"
        want = [(_h(k), _h(v)) for k, v in te["entries"]]
        values = dict(want)
        for i, (k, v) in enumerate(want):
            ok, got = self.call(t.get, k)
            assert not ok or got == v, "%s: get %s: %r != %r" % (w, k.hex(), got, v)
            if i % 7 == 0:
                ok, got = self.call(t.at, i)
                assert not ok or got == (k, v), "%s: at %d: %r" % (w, i, got)
        ok, got = self.call(t.get_many, [k for k, _ in want])
        assert not ok or got == [v for _, v in want], w + " get_many"
        for m in te["missing"]:
            ok, got = self.call(t.get, _h(m))
            assert not ok or got is None, "%s: missing key %s found: %r" % (w, m, got)
        self.walk(t.items(), want, w + " forward scan")
        self.walk(t.range(reverse=True), want[::-1], w + " reverse scan")
        for c in te["counts"]:
            lo, hi = _h(c["lo"]), _h(c["hi"])
            inc = (c["lo_kind"] != 2, c["hi_kind"] != 2)
            ok, got = self.call(t.count, lo, hi, inclusive=inc)
            assert not ok or got == c["count"], "%s: count %r: %r" % (w, c, got)
        for ie in te["indexes"]:
            ok, ix = self.call(t.index, ie["name"])
            if not ok:
                continue
            iw = "%s.%s" % (w, ie["name"])
            assert len(ix) == len(ie["entries"]), iw + " entries"
            entries = [(_h(a), _h(b)) for a, b in ie["entries"]]
            dec = ix._key.decode
            groups = {}
            for ik, pk in entries:
                groups.setdefault(ik, []).append(pk)
            for ik, pks in groups.items():
                key = dec(ik)
                ok, got = self.call(ix.get, key)
                assert not ok or got == (pks[0], values[pks[0]]), "%s: get %r: %r" % (iw, key, got)
                ok, got = self.call(ix.count, key, key, inclusive=(True, True))
                assert not ok or got == len(pks), "%s: count %r: %r" % (iw, key, got)
            self.walk(((ix._key.encode(ik), pk, v) for ik, pk, v in ix.range(with_index_key=True)),
                      [(ik, pk, values[pk]) for ik, pk in entries], iw + " scan")
            self.walk(ix.range(reverse=True), [(pk, values[pk]) for _, pk in entries][::-1],
                      iw + " reverse scan")


@pytest.mark.parametrize("batch", [None, 16], ids=["batch-default", "batch-16"])
def test_corrupt_variants(corpus, batch, monkeypatch):
    """batch: rows per drydb_cursor_next_batch call of the scans (16: batches
    end on many leaf boundaries, where a walk must still report damage in
    the next leaf)."""
    if batch is not None:
        monkeypatch.setattr(drydb._db, "_BATCH", batch)
    d, manifest, exp = corpus
    # the base file itself reads back in full, with no error
    with drydb.open(os.path.join(d, manifest["base"]), verify=True) as db:
        r = Reader(exp, "base", allowed=())
        r.read(db)
        assert r.calls > 1500
    tally = {"variants": 0, "open": 0, "read": 0, "harmless": 0, "wrong": 0}
    kinds = {}
    wrong = []
    for v in manifest["variants"]:
        label = "%s (%s at %d: %s)" % (v["file"], v["kind"], v["offset"], v["detail"])
        tally["variants"] += 1
        k = kinds.setdefault(v["kind"], {"open": 0, "read": 0, "harmless": 0})
        try:
            db = drydb.open(os.path.join(d, v["file"]))
        except (drydb.CorruptError, drydb.VersionError):
            tally["open"] += 1
            k["open"] += 1
            continue
        try:
            r = Reader(exp, label)
            r.read(db)
            # verify agrees: it finds the damage or there is none it can see
            try:
                db.verify()
            except drydb.CorruptError:
                r.detected += 1
        except Exception as e:  # a wrong answer or another error class
            wrong.append("%s: %s" % (type(e).__name__, e))  # e names the variant
            tally["wrong"] += 1
            continue
        finally:
            db.close()
        what = "read" if r.detected else "harmless"
        tally[what] += 1
        k[what] += 1
    line = ("python corrupt: %(variants)d variants: %(open)d detected at open, %(read)d detected "
            "at read, %(harmless)d harmless, %(wrong)d wrong (batch %%s)" % tally) % (batch or drydb._db._BATCH)
    print("\n" + line + "\n  by kind: " + ", ".join(
        "%s %d/%d/%d" % (n, c["open"], c["read"], c["harmless"]) for n, c in sorted(kinds.items())))
    sys.stderr.write(line + "\n")
    assert not wrong, "wrong answers or other errors:\n" + "\n".join(wrong)
    assert tally["variants"] >= 300
    assert tally["open"] + tally["read"] > tally["variants"] // 2


def _copy_base(corpus, tmp_path, name):
    d, manifest, exp = corpus
    path = str(tmp_path / name)
    shutil.copyfile(os.path.join(d, manifest["base"]), path)
    return path, exp


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
def test_truncated_while_open(corpus, tmp_path, warm):
    """os.truncate to half while open: every call gives the right answer or
    CorruptError (not SIGBUS), and the process lives on."""
    path, exp = _copy_base(corpus, tmp_path, "trunc.drydb")
    size = os.path.getsize(path)
    with drydb.open(path) as db:
        if warm:
            Reader(exp, "before truncation", allowed=()).read(db)
        os.truncate(path, size // 2)
        r = Reader(exp, "truncated while open")
        r.read(db)
        assert r.detected > 0, "reads past the new end must fail"
        with pytest.raises(drydb.CorruptError):
            db.verify()
    with pytest.raises(drydb.CorruptError):
        drydb.open(path)


def _rewrite(path, data):
    with open(path, "r+b") as f:  # same inode: the mapping sees the new bytes
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
@pytest.mark.parametrize("how", ["random", "shifted"])
def test_rewritten_while_open(corpus, tmp_path, warm, how):
    """The file rewritten in place (same inode, same size) while open: with
    random bytes, or with its own bytes shifted by one page (valid pages in
    the wrong places). Every call gives the right answer or CorruptError."""
    path, exp = _copy_base(corpus, tmp_path, "rewrite.drydb")
    with open(path, "rb") as f:
        old = f.read()
    if how == "random":
        new = random.Random(7).randbytes(len(old))
    else:
        ps = exp["page_size"]
        new = old[ps:] + old[:ps]
    with drydb.open(path) as db:
        if warm:
            Reader(exp, "before rewrite", allowed=()).read(db)
        _rewrite(path, new)
        r = Reader(exp, "rewritten while open (%s, %s)" % (how, "warm" if warm else "cold"))
        r.read(db)
        if not warm:
            assert r.detected > 0
        sys.stderr.write("rewritten while open (%s, %s): %d calls, %d corrupt errors\n"
                         % (how, "warm" if warm else "cold", r.calls, r.detected))
        try:
            db.verify()
        except drydb.CorruptError:
            pass
    with pytest.raises(drydb.CorruptError):
        drydb.open(path)
