#!/usr/bin/env python3
"""bench/shapes.py - the key shapes of drydb's benchmarks, defined once.

    python3 bench/shapes.py ROWS DATADIR [dense,sparse,str16,uuid7]

writes DATADIR/rows-<shape>-<ROWS>.bin for each shape (default: all); every
driver (bench/c, bench/go, bench/python, bench/csharp) reads these files
instead of generating rows itself, so all languages measure the same rows.
A file already there for the same row count is kept (files are replaced
whole, never written in place; bench/run calls this once per row count
before the drivers).

Shapes (why each is here: README.md's bench section and docs/BENCHMARKS.md):

  dense   int64 keys 0..N-1, 13-byte values "value-%07d" (the original shape).
  sparse  int64 keys from 1000 upward with gaps drawn uniformly from
          1..2000, values of 8..40 bytes.
  str16   16-byte ASCII strings, a mix of three kinds of id users have:
          1/2 hex of a 64-bit hash ("9f86d081884c7d65": random, no shared
          prefix), 1/4 "user:%011d" (a namespace and zero-padded numbers:
          ten or more shared leading bytes), 1/4 "ord-YYYYMMDD-nnn" (a date
          prefix shared by runs of keys, a counter within the day); values
          of 13..36 bytes. A format tuned to one of these patterns alone
          (all-random or all-prefixed) is measured on the others too.
  uuid7   UUIDv7 (RFC 9562): 48-bit Unix ms timestamps that increase by 0..3
          ms per key (so several keys share a millisecond), version 7,
          variant 10, 74 random bits; values of 8..40 bytes.

Values other than dense's: the row's number in decimal, ':', then letters
from a 32-letter alphabet, cut to the drawn length (text-like: zstd has
something to compress, as in real tables). Randomness: random.Random with a
fixed seed per shape (Mersenne Twister; getrandbits is stable across
CPython versions).

File format (little-endian; one reader per language: bench/c/driver.c,
bench/go/main.go, bench/csharp/Bench.cs, read_rows below):

  0   8   magic "DRYBENCH"
  8   4   version (1)
  12  4   klen: key width in bytes (8 or 16; every key of a shape has it)
  16  8   n: rows
  24  16  shape name, NUL-padded ASCII
  40  4   key kind: 0 int64 (8 bytes big-endian, sign bit flipped),
          1 string (UTF-8), 2 uuid (16 bytes, RFC order)
  44  4   reserved (0)
  48  klen    a key that is NOT in the table (for the "absent" check)
  ..  n*klen  the keys, sorted ascending as bytes, distinct
  ..  n       value lengths, one byte each (1..255)
  ..  sum     the values, back to back
"""
import bisect
import os
import random
import struct
import sys

MAGIC = b"DRYBENCH"
VERSION = 1
HEADER = struct.Struct("<8sIIQ16sII")
KIND_INT64, KIND_STRING, KIND_UUID = 0, 1, 2
SIGN = 1 << 63
ALPHABET = b"abcdefghijklmnopqrstuvwxyzABCDEF"
LETTERS = bytes(ALPHABET[b & 31] for b in range(256))  # random byte -> letter


def int_key(k):
    """int64 -> 8 bytes big-endian with the sign bit flipped (sorts as bytes)."""
    return struct.pack(">Q", (k ^ SIGN) & 0xFFFFFFFFFFFFFFFF)


def text_value(rng, i, lo, hi):
    """Row number, ':', then letters; length drawn uniformly from lo..hi."""
    n = rng.randint(lo, hi)
    head = b"%d:" % i
    tail = rng.randbytes(max(0, n - len(head))).translate(LETTERS)
    return (head + tail)[:n]


def gen_dense(n):
    keys = [int_key(i) for i in range(n)]
    vals = [b"value-%07d" % i for i in range(n)]
    return KIND_INT64, keys, vals, int_key(n)


def gen_sparse(n):
    rng = random.Random(0x5A1)
    k, ints = 1000, []
    for _ in range(n):
        ints.append(k)
        k += rng.randint(1, 2000)
    vals = [text_value(rng, i, 8, 40) for i in range(n)]
    # a hole between two keys in the middle (gaps of 1 leave none: search)
    i = n // 2
    while ints[i + 1] - ints[i] < 2:
        i += 1
    return KIND_INT64, [int_key(x) for x in ints], vals, int_key(ints[i] + 1)


def gen_str16(n):
    rng = random.Random(0x516)
    seen, user, day, seq = set(), 0, 0, 0
    while len(seen) < n:
        r = rng.getrandbits(2)
        if r < 2:
            k = b"%016x" % rng.getrandbits(64)
        elif r == 2:
            user += rng.randint(1, 50)
            k = b"user:%011d" % user
        else:
            seq += 1
            if seq > rng.randint(200, 900):  # a new day every few hundred orders
                day, seq = day + 1, 1
            y, d = divmod(day, 360)
            k = b"ord-%04d%02d%02d-%03d" % (2020 + y, d // 30 + 1, d % 30 + 1, seq)
        assert len(k) == 16
        seen.add(k)
    keys = sorted(seen)
    vals = [text_value(rng, i, 13, 36) for i in range(n)]
    # '~' occurs in no key: the middle key with its last byte replaced is absent
    return KIND_STRING, keys, vals, keys[n // 2][:15] + b"~"


def gen_uuid7(n):
    rng = random.Random(0x0007)
    ms, seen = 1704067200000, set()  # 2024-01-01T00:00:00Z
    while len(seen) < n:
        ms += rng.randint(0, 3)
        rand_a, rand_b = rng.getrandbits(12), rng.getrandbits(62)
        u = (ms << 80) | (0x7 << 76) | (rand_a << 64) | (0b10 << 62) | rand_b
        seen.add(u.to_bytes(16, "big"))
    keys = sorted(seen)
    vals = [text_value(rng, i, 8, 40) for i in range(n)]
    miss = bytearray(keys[n // 2])
    while True:
        miss[15] ^= 1
        j = bisect.bisect_left(keys, bytes(miss))
        if j == n or keys[j] != bytes(miss):
            break
        miss[14] = (miss[14] + 1) & 0xFF
    return KIND_UUID, keys, vals, bytes(miss)


SHAPES = {"dense": gen_dense, "sparse": gen_sparse, "str16": gen_str16, "uuid7": gen_uuid7}


def path_of(datadir, shape, n):
    return os.path.join(datadir, "rows-%s-%d.bin" % (shape, n))


def write_rows(path, shape, kind, keys, vals, miss):
    klen = len(miss)
    assert all(len(k) == klen for k in keys) and all(1 <= len(v) <= 255 for v in vals)
    assert keys == sorted(keys) and len(set(keys)) == len(keys), "keys must be sorted and distinct"
    i = bisect.bisect_left(keys, miss)
    assert i == len(keys) or keys[i] != miss, "the absent key is present"
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(HEADER.pack(MAGIC, VERSION, klen, len(keys), shape.encode(), kind, 0))
        f.write(miss)
        f.write(b"".join(keys))
        f.write(bytes(len(v) for v in vals))
        f.write(b"".join(vals))
    os.replace(tmp, path)


class Rows:
    """One shape's rows as read from its file."""

    def __init__(self, shape, kind, klen, keys, vals, miss):
        self.shape, self.kind, self.klen = shape, kind, klen
        self.keys, self.vals, self.miss = keys, vals, miss

    def __len__(self):
        return len(self.keys)


def read_rows(path):
    with open(path, "rb") as f:
        data = f.read()
    magic, ver, klen, n, name, kind, _ = HEADER.unpack_from(data)
    if magic != MAGIC or ver != VERSION:
        raise ValueError("%s: not a bench rows file of version %d" % (path, VERSION))
    o = HEADER.size
    miss = data[o:o + klen]
    o += klen
    keys = [data[o + i * klen:o + (i + 1) * klen] for i in range(n)]
    o += n * klen
    vals = []
    p = o + n
    for ln in data[o:o + n]:
        vals.append(data[p:p + ln])
        p += ln
    if p != len(data):
        raise ValueError("%s: %d bytes, expected %d" % (path, len(data), p))
    return Rows(name.rstrip(b"\0").decode(), kind, klen, keys, vals, miss)


def ensure(datadir, shape, n):
    """Write the file unless an intact one is there; return its path."""
    path = path_of(datadir, shape, n)
    try:  # written whole or not at all (os.replace): the header is enough
        with open(path, "rb") as f:
            h = HEADER.unpack(f.read(HEADER.size))
        if h[0] == MAGIC and h[1] == VERSION and h[3] == n:
            return path
    except (OSError, struct.error):
        pass
    kind, keys, vals, miss = SHAPES[shape](n)
    write_rows(path, shape, kind, keys, vals, miss)
    return path


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: shapes.py ROWS DATADIR [%s]" % ",".join(SHAPES))
    n = int(sys.argv[1])
    if n < 9000:
        sys.exit("shapes.py: ROWS must be >= 9000 (the count shape reads rows 1000..8999)")
    names = sys.argv[3].split(",") if len(sys.argv) > 3 else list(SHAPES)
    os.makedirs(sys.argv[2], exist_ok=True)
    for s in names:
        if s not in SHAPES:
            sys.exit("shapes.py: unknown shape %r (have %s)" % (s, ", ".join(SHAPES)))
        print(ensure(sys.argv[2], s, n))


if __name__ == "__main__":
    main()
