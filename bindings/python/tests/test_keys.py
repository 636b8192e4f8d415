"""Key encodings in pure Python against the golden vectors and the library."""

import json
import math
import os
import uuid

import pytest

import drydb
from drydb import keys as K

from conftest import VECTORS

KEYS_JSON = os.path.join(VECTORS, "keys.json")


def _load():
    if not os.path.exists(KEYS_JSON):
        pytest.skip("tests/vectors/keys.json not present yet (written by engine/keyenc's golden test)")
    with open(KEYS_JSON) as f:
        return json.load(f)


def _scalar(kind, v):
    if kind == "int64":
        return int(v)
    if kind == "uint64":
        return int(v)
    if kind == "float64":
        return float(v)
    if kind == "uuid":
        return uuid.UUID(v)
    if kind == "ulid":
        return drydb.ULID(v)
    if kind == "bytes":
        return bytes.fromhex(v["hex"]) if isinstance(v, dict) else v.encode()
    return v


ENC = {"int64": K.encode_int64, "uint64": K.encode_uint64, "float64": K.encode_float64,
       "uuid": K.encode_uuid, "ulid": K.encode_ulid}
DEC = {"int64": K.decode_int64, "uint64": K.decode_uint64, "float64": K.decode_float64,
       "uuid": K.decode_uuid, "ulid": K.decode_ulid}


@pytest.mark.parametrize("kind", ["int64", "uint64", "float64", "uuid", "ulid"])
def test_scalar_vectors(kind):
    vec = _load().get(kind)
    if not vec:
        pytest.skip("no %s vectors" % kind)
    for case in vec:
        v = _scalar(kind, case["value"])
        assert ENC[kind](v).hex() == case["hex"], case
        back = DEC[kind](bytes.fromhex(case["hex"]))
        if kind == "float64" and v == 0:
            assert back == 0 and math.copysign(1, back) == 1  # -0 is stored as +0
        else:
            assert back == v


def test_composite_vectors():
    vec = _load().get("composite")
    if not vec:
        pytest.skip("no composite vectors")
    names = {"bytes": K.KEY_BYTES, "string": K.KEY_STRING, "int64": K.KEY_INT64,
             "uint64": K.KEY_UINT64, "float64": K.KEY_FLOAT64, "uuid": K.KEY_UUID,
             "ulid": K.KEY_ULID}
    for case in vec:
        parts = [names[p] for p in case["parts"]]
        vals = tuple(_scalar(p, v) for p, v in zip(case["parts"], case["values"]))
        full = len(vals) == len(parts)
        assert K.encode_composite(parts, vals, prefix=not full).hex() == case["hex"], case
        if full:
            assert K.decode_composite(parts, bytes.fromhex(case["hex"])) == vals


def test_order_preserved():
    ints = [-2**63, -2**40, -1, 0, 1, 255, 2**40, 2**63 - 1]
    assert sorted(ints, key=K.encode_int64) == ints
    fl = [-math.inf, -1e300, -2.5, -1.0, -5e-324, 0.0, 5e-324, 1.0, 2.5, 1e300, math.inf]
    assert sorted(fl, key=K.encode_float64) == fl
    tup = [("", 0), ("a", -1), ("a", 5), ("a\x00", 0), ("ab", 0), ("b", -9)]
    enc = lambda t: K.encode_composite([K.KEY_STRING, K.KEY_INT64], t)  # noqa: E731
    assert sorted(tup, key=enc) == tup
    assert enc(("a", 3)).startswith(K.encode_composite([K.KEY_STRING, K.KEY_INT64], ("a",), prefix=True))


def test_key_errors():
    with pytest.raises(TypeError):
        K.encode_int64("1")
    with pytest.raises(TypeError):
        K.encode_int64(True)
    with pytest.raises(ValueError):
        K.encode_int64(2**63)
    with pytest.raises(ValueError):
        K.encode_uint64(-1)
    with pytest.raises(ValueError):
        K.encode_float64(float("nan"))
    with pytest.raises(TypeError):
        K.encode_string(b"x")
    with pytest.raises(TypeError):
        K.encode_bytes("x")
    with pytest.raises(TypeError):
        K.encode_uuid("0190a6f1-7b2c-7def-8abc-0123456789ab")
    with pytest.raises(ValueError):
        K.encode_composite([K.KEY_STRING, K.KEY_INT64], ("a",))
    with pytest.raises(TypeError):
        K.encode_composite([K.KEY_STRING, K.KEY_INT64], ["a", 1])
    with pytest.raises(ValueError):
        drydb.ULID("too-short")
    with pytest.raises(ValueError):
        K.key_kind("int32")
    with pytest.raises(TypeError):
        K.key_kind(list)


def test_ulid():
    u = drydb.ULID("01ARZ3NDEKTSV4RRFFQ69G5FAV")
    assert str(u) == "01ARZ3NDEKTSV4RRFFQ69G5FAV"
    assert drydb.ULID(u.bytes) == u and hash(drydb.ULID(u.bytes)) == hash(u)
    assert u.timestamp_ms == 0x01563E3AB5D3
    assert drydb.ULID("01arz3ndektsv4rrffq69g5fav") == u
    with pytest.raises(AttributeError):
        u.x = 1  # type: ignore[attr-defined]


def test_library_agrees(tmp_path):
    """Every kind through the library: keys come back equal and in byte order."""
    p = str(tmp_path / "k.drydb")
    samples = {
        "int64": [-2**63, -1, 0, 7, 2**63 - 1],
        "uint64": [0, 1, 2**64 - 1],
        "float64": [-math.inf, -2.5, 0.0, 1.5, math.inf],
        "string": ["", "a", "é", "z\x00"],
        "bytes": [b"", b"\x00", b"\x00\x01", b"\xff"],
        "uuid": [uuid.UUID(int=0), uuid.UUID("0190a6f1-7b2c-7def-8abc-0123456789ab"), uuid.UUID(int=2**128 - 1)],
        "ulid": [drydb.ULID(bytes(16)), drydb.ULID("01ARZ3NDEKTSV4RRFFQ69G5FAV")],
        ("bytes", "float64", "uuid"): [(b"", -1.0, uuid.UUID(int=1)), (b"\x00", 0.0, uuid.UUID(int=0))],
    }
    with drydb.Builder(p) as b:
        for i, (kind, vals) in enumerate(samples.items()):
            t = b.table("t%d" % i, key=kind)
            for v in reversed(vals):
                t.add(v, b"v")
    with drydb.open(p) as db:
        for i, (kind, vals) in enumerate(samples.items()):
            got = list(db["t%d" % i].keys())
            assert got == sorted(vals, key=db["t%d" % i]._key.encode), kind
            for v in vals:
                assert v in db["t%d" % i]
