"""The shared range cases (tests/vectors/ranges.json, the same file every
language runs): every case through range() and count(), on tables built here,
on a Table and on an Index whose keys are the same. "default" is the plain
two-argument call, which is half-open [lo, hi)."""

import json
import os

import pytest

import drydb
from conftest import VECTORS

with open(os.path.join(VECTORS, "ranges.json"), encoding="utf-8") as _f:
    SPEC = json.load(_f)
INCL = {"[]": (True, True), "[)": (True, False), "(]": (False, True), "()": (False, False)}


def _key(k):
    return tuple(k) if isinstance(k, list) else k


def _kind(spec):
    return tuple(spec) if isinstance(spec, list) else spec


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    p = str(tmp_path_factory.mktemp("ranges") / "ranges.drydb")
    with drydb.Builder(p, page_size=512) as b:
        for t in SPEC["tables"]:
            tb = b.table(t["name"], key=_kind(t["key"]))
            # an index keyed like the table: the same cases run on it
            tb.index("same", key=_kind(t["key"]), unique=True, func=lambda k, v: k)
            tb.add_many((_key(k), ("v:" + json.dumps(k, separators=(",", ":"),
                                                     ensure_ascii=False)).encode()) for k in t["rows"])
    with drydb.open(p) as d:
        yield d


def _call(obj, c):
    lo, hi = _key(c["lo"]), _key(c["hi"])
    if c["bounds"] == "default":
        return list(obj.range(lo, hi, reverse=c["reverse"])), obj.count(lo, hi)
    incl = INCL[c["bounds"]]
    return (list(obj.range(lo, hi, inclusive=incl, reverse=c["reverse"])),
            obj.count(lo, hi, inclusive=incl))


@pytest.mark.parametrize("i", range(len(SPEC["cases"])))
def test_shared_case(db, i):
    c = SPEC["cases"][i]
    want = [_key(k) for k in c["keys"]]
    t = db[c["table"]]
    rows, n = _call(t, c)
    assert [k for k, _ in rows] == want
    assert [v for _, v in rows] == [
        ("v:" + json.dumps(k, separators=(",", ":"), ensure_ascii=False)).encode() for k in c["keys"]]
    assert n == c["count"]
    rows, n = _call(t.index("same"), c)  # index key == primary key
    assert [pk for pk, _ in rows] == want
    assert n == c["count"]
