"""The binding's copies of include/drydb.h: status codes, key kinds, bound
kinds, compression kinds and the info structures' layouts, checked against
the header itself (its #defines, and the offsets its struct comments give,
which the C library asserts at build time), so that neither can change
without the other."""
import ctypes
import os
import re

import pytest

from drydb import _bounds, _db, _errors, _lib, builder, keys

HEADER = os.environ.get("DRYDB_HEADER") or os.path.join(
    os.path.dirname(__file__), "..", "..", "..", "include", "drydb.h")


@pytest.fixture(scope="module")
def header():
    if not os.path.exists(HEADER):
        pytest.skip("include/drydb.h not found (set DRYDB_HEADER)")
    with open(HEADER) as f:
        return f.read()


def defines(text):
    return {m.group(1): int(m.group(2), 0)
            for m in re.finditer(r"^#define (DRYDB_\w+)\s+(-?(?:0x[0-9a-fA-F]+|\d+))u?\b", text, re.M)}


def structs(text):
    """{name: (size, [(field, offset)])} from the header's offset comments."""
    out = {}
    for m in re.finditer(r"struct (drydb_\w+) \{\n(.*?)\n\};\s*/\* size (\d+) \*/", text, re.S):
        fields = [(f.group(1), int(f.group(2)))
                  for f in re.finditer(r"^\s+\w+\s+(\w+)(?:\[\w+\])?;\s*/\*\s*(\d+)", m.group(2), re.M)]
        out[m.group(1)] = (int(m.group(3)), fields)
    return out


def test_status_codes(header):
    d = defines(header)
    codes = {k[len("DRYDB_"):]: v for k, v in d.items()
             if k[len("DRYDB_"):].isalpha() and k[len("DRYDB_"):].isupper() and v < 100
             and k not in ("DRYDB_UNBOUNDED", "DRYDB_INCLUSIVE", "DRYDB_EXCLUSIVE", "DRYDB_REVERSE",
                           "DRYDB_H", "DRYDB_DICTIONARY", "DRYDB_HASH")}
    assert codes["OK"] == 0 and "INTERNAL" in codes
    for name, v in codes.items():
        assert getattr(_errors, name) == v, name


def test_kinds(header):
    d = defines(header)
    kinds = {k: v for k, v in d.items() if k.startswith("DRYDB_KEY_")}
    assert len(kinds) == 8
    py = {k: getattr(keys, k[len("DRYDB_"):]) for k in kinds if hasattr(keys, k[len("DRYDB_"):])}
    assert py, "the binding names no key kind"
    for k, v in py.items():
        assert v == kinds[k], k
    assert keys._MAX_PARTS == d["DRYDB_MAX_PARTS"]
    assert (_bounds.UNBOUNDED, _bounds.INCLUSIVE, _bounds.EXCLUSIVE) == (
        d["DRYDB_UNBOUNDED"], d["DRYDB_INCLUSIVE"], d["DRYDB_EXCLUSIVE"])
    # the fast paths' table of bound kinds says what bound_kinds says
    assert len(_bounds.KINDS) == 4
    for pair, kinds in _bounds.KINDS.items():
        assert kinds == _bounds.bound_kinds(0, 0, pair), pair
    assert builder._COMPRESSIONS["zstd"] == d["DRYDB_COMPRESS_ZSTD"]
    assert builder._COMPRESSIONS["s2"] == d["DRYDB_COMPRESS_S2"]
    assert builder._COMPRESSIONS[None] == d["DRYDB_COMPRESS_NONE"]
    assert _db._COMPRESSION_NAMES[d["DRYDB_COMPRESS_ZSTD"]] == "zstd"
    # table flags
    assert (builder._HASH, builder._NO_HASH, _db._TABLE_HASH) == (
        d["DRYDB_HASH"], d["DRYDB_NO_HASH"], d["DRYDB_HASH"])


@pytest.mark.parametrize("cname,pyname,sizename", [
    ("drydb_db_info", "DbInfo", "DRYDB_DB_INFO_SIZE"),
    ("drydb_table_info", "TableInfo", "DRYDB_TABLE_INFO_SIZE"),
    ("drydb_index_info", "IndexInfo", "DRYDB_INDEX_INFO_SIZE"),
    ("drydb_cache_stats", "CacheStats", "DRYDB_CACHE_STATS_SIZE"),
])
def test_struct_layouts(header, cname, pyname, sizename):
    size, fields = structs(header)[cname]
    cls = getattr(_lib, pyname)
    assert size == defines(header)[sizename] == ctypes.sizeof(cls)
    assert [f for f, _ in fields] == [f[0] for f in cls._fields_]
    for f, off in fields:
        assert getattr(cls, f).offset == off, (cname, f)
