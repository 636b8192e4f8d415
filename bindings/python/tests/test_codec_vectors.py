"""The shared value-codec vectors (tests/vectors/codecs.json; C# reads the
same files in CodecTests): files built by the Python binding and by the CLI
decode, by the codec each table recorded, to the rows the golden file holds."""
import json
import math
import os

import pytest

import drydb
from conftest import VECTORS

with open(os.path.join(VECTORS, "codecs.json"), encoding="ascii") as _f:
    GOLDEN = json.load(_f)


class UpperText:
    """The user codec the vectors record ('upper-text'): text stored upper-cased."""
    name = "upper-text"

    def encode(self, s):
        return s.upper().encode("utf-8")

    def decode(self, b):
        return b.decode("utf-8").lower()


def as_json(v):
    """A decoded value in the golden file's form (bytes as {"$bytes": hex})."""
    if isinstance(v, bytes):
        return {"$bytes": v.hex()}
    if isinstance(v, list):
        return [as_json(x) for x in v]
    if isinstance(v, dict):
        return {k: as_json(x) for k, x in v.items()}
    return v


def same(a, b):
    """Equality that also holds for NaN, and tells 1 from 1.0 and True from 1."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


@pytest.mark.parametrize("which", ["python_built", "cli_built"])
def test_codec_vectors_decode_to_the_golden_rows(which):
    doc = GOLDEN[which]
    if any(t["codec"] == "msgpack" for t in doc["tables"].values()):
        pytest.importorskip("msgpack")
    drydb.register_codec(UpperText.name, UpperText)
    with drydb.open(os.path.join(VECTORS, doc["file"])) as db:
        assert sorted(db.tables) == sorted(doc["tables"])
        for name, want in doc["tables"].items():
            t = db.table(name)
            recorded = getattr(t.codec, "name", None) if t.codec is not None else None
            assert (recorded or "") in (want["codec"], "raw" if want["codec"] == "" else want["codec"]), name
            got = [[k, as_json(v)] for k, v in t.range(None, None)]
            assert len(got) == len(want["rows"]), name
            for g, w in zip(got, want["rows"]):
                assert same(g, w), (name, g, w)
