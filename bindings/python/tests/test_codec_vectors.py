"""The shared value-codec vectors (tests/vectors/codecs.json; C# reads the
same files in CodecTests): files built by the Python binding and by the CLI
decode, by the codec each table recorded, to the rows the golden file holds."""
import importlib.util
import json
import math
import os

import pytest

import drydb
from conftest import VECTORS

with open(os.path.join(VECTORS, "codecs.json"), encoding="ascii") as _f:
    GOLDEN = json.load(_f)


def _generator():
    """tests/vectors/gen/codecs.py, which wrote the vectors: its user codec and
    its form of decoded values are the ones to compare with."""
    path = os.path.join(VECTORS, "gen", "codecs.py")
    spec = importlib.util.spec_from_file_location("codec_vectors_gen", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


GEN = _generator()


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
    drydb.register_codec(GEN.CUSTOM, GEN.UpperText)
    with drydb.open(os.path.join(VECTORS, doc["file"])) as db:
        assert sorted(db.tables) == sorted(doc["tables"])
        for name, want in doc["tables"].items():
            t = db.table(name)
            recorded = getattr(t.codec, "name", None) if t.codec is not None else None
            assert (recorded or "") in (want["codec"], "raw" if want["codec"] == "" else want["codec"]), name
            got = [[k, GEN.as_json(v)] for k, v in t.range(None, None)]
            assert len(got) == len(want["rows"]), name
            for g, w in zip(got, want["rows"]):
                assert same(g, w), (name, g, w)
