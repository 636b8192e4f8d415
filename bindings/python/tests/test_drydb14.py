"""DryDB 1.4 files (the C# DryDB's format) open with drydb.open like native ones: every fixture of
tests/drydb14/fixtures (written by the Rust crate drydb 0.1.0+drydb1.4) reads back as its
.expected.json. Keys come in drydb's encodings: a 1.4 i64 key is an int, a uuidv7 key a
uuid.UUID (the fixture's values are the RFC 4122 text of their keys), ascii keys str when every
key of the table is UTF-8 and bytes otherwise."""

import glob
import json
import os
import struct
import uuid

import pytest

import drydb

from conftest import ROOT

FIXTURES = os.environ.get("DRYDB14_FIXTURES", os.path.join(ROOT, "tests", "drydb14", "fixtures"))
PATHS = sorted(glob.glob(os.path.join(FIXTURES, "*.drydb")))


def native(enc, h):
    """drydb's bytes for the 1.4 key given in hex."""
    b = bytes.fromhex(h)
    if enc == "i64":
        return struct.pack(">Q", struct.unpack("<Q", b)[0] ^ (1 << 63))
    if enc == "uuidv7":
        return uuid.UUID(bytes_le=b).bytes
    return b


def test_all_fixtures_present():
    assert len(PATHS) == 9, FIXTURES


@pytest.mark.parametrize("path", PATHS, ids=os.path.basename)
def test_fixture(path):
    with open(path[: -len(".drydb")] + ".expected.json") as f:
        exp = json.load(f)
    with drydb.open(path, verify=True) as db:
        assert db.meta("drydb.source").startswith(b"DryDB 1.4")
        assert db.tables == [t["name"] for t in exp["tables"]]
        for te in exp["tables"]:
            enc = te["primary_index"]["encoding"]
            raw = db.table(te["name"], codec=None, raw_keys=True)
            typed = db.table(te["name"], codec=None)
            rows = [(native(enc, k), bytes.fromhex(v)) for k, v in te["rows"]]
            assert len(raw) == te["count"] == len(rows)
            assert list(raw.items()) == rows
            assert list(raw.range(reverse=True)) == rows[::-1]
            assert raw.get_many([k for k, _ in rows]) == [v for _, v in rows]
            kc = typed._key
            typed_rows = list(typed.items())
            assert [kc.encode(k) for k, _ in typed_rows] == [k for k, _ in rows]
            if enc == "i64":
                assert [k for k, _ in typed_rows] == [struct.unpack("<q", bytes.fromhex(k))[0] for k, _ in te["rows"]]
            if enc == "uuidv7":
                assert all(str(k) == v.decode() for k, v in typed_rows)
            if enc == "ascii":
                assert typed.key_kind in ("string", "bytes")
            for i, (k, v) in enumerate(rows):
                assert raw[k] == v
                # bounds of every kind, both directions
                assert raw.count(k, None, inclusive=(False, True)) == len(rows) - i - 1
                assert raw.count(None, k, inclusive=(True, True)) == i + 1
                if i % 50 == 0:
                    hi = rows[min(len(rows) - 1, i + 7)][0]
                    want = [r for r in rows if k < r[0] <= hi]
                    assert list(raw.range(k, hi, inclusive=(False, True))) == want
                    assert list(raw.range(k, hi, inclusive=(False, True), reverse=True)) == want[::-1]
            for ie in te["indexes"]:
                ix = typed.index(ie["name"])
                assert ix.unique == ie["is_unique"] and len(ix) == ie["count"]
                ikc = ix._key
                want = [(native(ie["encoding"], e[0]), native(enc, e[3]), bytes.fromhex(e[2])) for e in ie["entries"]]
                got = [(ikc.encode(ik), kc.encode(pk), v) for ik, pk, v in ix.range(with_index_key=True)]
                assert got == want
                for ik in sorted({e[0] for e in want}):
                    mine = [e for e in want if e[0] == ik]
                    key = ikc.decode(ik)
                    assert ix.count(key, key, inclusive=(True, True)) == len(mine)
                    assert ix.count(key, None, inclusive=(False, True)) == len([e for e in want if e[0] > ik])
                    pk, v = ix.get(key)
                    assert (kc.encode(pk), v) == mine[0][1:]


def test_open_memory_and_other_versions():
    with open(os.path.join(FIXTURES, "tiny_p4096.drydb"), "rb") as f:
        data = bytearray(f.read())
    with drydb.open_memory(bytes(data)) as db:
        assert list(db.table("t", codec=None).items()) == [(-1, b""), (1, b"a"), (7, b"a"), (1 << 40, b"xyz")]
        assert db.table("t", codec=None).index("by_val").get_all("a") == [(1, b"a"), (7, b"a")]
    data[5] = 3  # DryDB 1.3: refused, not misread
    with pytest.raises(drydb.VersionError):
        drydb.open_memory(bytes(data))
