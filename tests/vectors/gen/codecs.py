#!/usr/bin/env python3
"""Writes the value-codec vectors: tests/vectors/codecs_py.drydb (built by the
Python binding), tests/vectors/codecs_cli.drydb (built by the CLI) and
tests/vectors/codecs.json (every row as the Python binding decodes it, by the
codec each file records).

The bindings that apply codecs by default (C# today) check that they decode
each row to the same value. codecs.json is written with json.dump's defaults
(ASCII escapes, spaces), a different text from the values' compact UTF-8 JSON;
a bytes value (msgpack's bin type) is written {"$bytes": "<hex>"}.

Run by `make vectors`; by hand, from the repository root after `make lib` and building the CLI
(go build -o build/drydb ./cmd/drydb), with the msgpack package installed:
  PYTHONPATH=bindings/python DRYDB_LIBRARY=build/libdrydb.so python3 tests/vectors/gen/codecs.py
"""
import json
import os
import subprocess
import sys
import tempfile

import drydb

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.dirname(HERE)
CLI = os.environ.get("DRYDB_CLI", os.path.join(OUT, "..", "..", "build", "drydb"))

# Values that exercise every JSON and msgpack form a decoder meets: each
# integer width and sign at its boundaries, float64 edge cases, fix/8/16-bit
# string, array and map lengths, escapes, non-ASCII text, nesting.
VALUES = [
    None, True, False,
    0, 1, -1, 127, 128, -32, -33, 255, 256, 65535, 65536,
    2**31 - 1, 2**31, 2**32, -2**31, -2**31 - 1, 2**63 - 1, -2**63, 2**64 - 1,
    0.5, -1.25, 1.0, 1e300, 5e-324, 3.141592653589793, float("inf"), float("-inf"), float("nan"),
    "", "a", "h\u00e9llo \u2603 \U0001F600", "x" * 40, "y" * 300,
    "quote\" backslash\\ slash/ newline\n tab\t nul\u0000 bell\u0007",
    [], [1, "two", [3.5, None]], list(range(20)),
    {}, {"a": 1, "b": [True, False], "c": {"d": "e"}}, {"k%d" % i: i for i in range(20)},
    {"name": "widget", "price": 9.5, "tags": ["x", "y"], "qty": 3},
]

# msgpack only: the bin type (bytes), 8- and 16-bit lengths.
MSGPACK_ONLY = [b"\x00\x01\xff", bytes(range(256)) + b"tail"]

# A user codec, recorded by name: readers must be told how to decode it.
CUSTOM = "upper-text"


class UpperText:
    name = CUSTOM

    def encode(self, s):
        return s.upper().encode("utf-8")

    def decode(self, b):
        return b.decode("utf-8").lower()


def as_json(v):
    if isinstance(v, bytes):
        return {"$bytes": v.hex()}
    if isinstance(v, list):
        return [as_json(x) for x in v]
    if isinstance(v, dict):
        return {k: as_json(x) for k, x in v.items()}
    return v


def dump(path):
    """Every table's recorded codec and its rows as the Python binding decodes
    them by default (the user codec registered, as a reader would)."""
    from drydb._db import _recorded_codec
    tables = {}
    with drydb.open(path) as db:
        for name in db.tables:
            t = db.table(name)
            tables[name] = {"codec": _recorded_codec(t._h),
                            "rows": [[k, as_json(v)] for k, v in t.range(None, None)]}
    return {"file": os.path.basename(path), "tables": tables}


def build_python(path):
    drydb.register_codec(CUSTOM, UpperText)
    with drydb.Builder(path) as b:
        t = b.table("json_vals", key="int64", codec="json")
        for i, v in enumerate(VALUES):
            t.add(i, v)
        t = b.table("msgpack_vals", key="int64", codec="msgpack")
        for i, v in enumerate(VALUES + MSGPACK_ONLY):
            t.add(i, v)
        t = b.table("custom", key="int64", codec=CUSTOM)
        t.add(1, "shouted text")
        t = b.table("raw_vals", key="int64")
        t.add(1, b"\x00raw\xff")


def build_cli(path):
    rows = [{"id": 1, "name": "a\u00e9", "n": 5, "f": 2.5, "ok": True, "tags": ["x"], "none": None},
            {"id": 2, "name": "b", "n": -7, "f": 1e-3, "ok": False, "tags": [], "none": None},
            {"id": 3, "name": "c \u2603", "n": 2**40, "f": 0.0, "ok": True, "tags": ["y", "z"], "none": None}]
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "rows.jsonl")
        with open(src, "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        if os.path.exists(path):
            os.remove(path)
        subprocess.run([CLI, "build", path, "--key", "id", "-e", "int64", "json_rows=" + src,
                        "--key", "id", "-e", "int64", "--value-format", "msgpack", "msgpack_rows=" + src],
                       check=True)


def main():
    py = os.path.join(OUT, "codecs_py.drydb")
    cli = os.path.join(OUT, "codecs_cli.drydb")
    if os.path.exists(py):
        os.remove(py)
    build_python(py)
    build_cli(cli)
    doc = {"_comment": "written by tests/vectors/gen/codecs.py: every row as the Python binding "
                       "decodes it by the recorded codec ('custom' records the user codec "
                       "'upper-text': UTF-8 text, read back lower-cased)",
           "python_built": dump(py), "cli_built": dump(cli)}
    with open(os.path.join(OUT, "codecs.json"), "w", encoding="ascii") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
