"""Key encodings: Python values to the byte strings drydb compares with memcmp.

Pure Python, byte for byte the layouts of ``include/drydb.h`` and
``engine/keyenc``:

=========  ====================================================================
kind       encoding
=========  ====================================================================
bytes      the bytes
string     UTF-8
int64      8 bytes big-endian with the sign bit flipped
uint64     8 bytes big-endian
float64    IEEE bits big-endian; positive: sign bit flipped, negative: all bits
           flipped (-0.0 is stored as 0.0; NaN is refused)
uuid       the 16 bytes of ``uuid.UUID.bytes`` (RFC 4122 order)
ulid       the 16-byte binary ULID
composite  the parts in order; fixed-width parts as above, bytes and string
           parts escaped (0x00 -> 0x00 0xFF) and terminated by 0x00 0x01
=========  ====================================================================
"""

from __future__ import annotations

import struct
import uuid
from typing import Any, Callable, Dict, List, Sequence, Tuple, Union

__all__ = [
    "KEY_BYTES", "KEY_STRING", "KEY_INT64", "KEY_UINT64", "KEY_FLOAT64", "KEY_UUID",
    "KEY_ULID", "KEY_COMPOSITE", "ULID", "KeyCodec", "key_kind", "encode_int64",
    "decode_int64", "encode_uint64", "decode_uint64", "encode_float64", "decode_float64",
    "encode_composite", "decode_composite",
]

KEY_BYTES = 0
KEY_STRING = 1
KEY_INT64 = 2
KEY_UINT64 = 3
KEY_FLOAT64 = 4
KEY_UUID = 5
KEY_ULID = 6
KEY_COMPOSITE = 7

KIND_NAMES = {KEY_BYTES: "bytes", KEY_STRING: "string", KEY_INT64: "int64",
              KEY_UINT64: "uint64", KEY_FLOAT64: "float64", KEY_UUID: "uuid",
              KEY_ULID: "ulid", KEY_COMPOSITE: "composite"}

_Q = struct.Struct(">Q")
_d = struct.Struct(">d")
_pack_q = _Q.pack
_unpack_q = _Q.unpack
_SIGN = 1 << 63
_MASK = (1 << 64) - 1
_MAX_PARTS = 16

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_CROCKFORD_DEC = {c: i for i, c in enumerate(_CROCKFORD)}
_CROCKFORD_DEC.update({c.lower(): i for c, i in list(_CROCKFORD_DEC.items())})
for _a, _b in (("I", "1"), ("L", "1"), ("O", "0")):
    _CROCKFORD_DEC[_a] = _CROCKFORD_DEC[_a.lower()] = _CROCKFORD_DEC[_b]


class ULID:
    """A ULID: 48-bit millisecond timestamp and 80 random bits, 16 bytes.

    ``ULID("01ARZ3NDEKTSV4RRFFQ69G5FAV")`` parses the canonical 26-character
    Crockford base32 text, ``ULID(b"...16 bytes...")`` takes the binary form.
    Instances are immutable, hashable, ordered like their bytes, and
    ``str()`` gives the canonical text. Keys of ULID tables come back as
    ``ULID``; any object with a 16-byte ``.bytes`` attribute (the ``ulid``
    packages' classes) is accepted as input.
    """

    __slots__ = ("_b",)
    _b: bytes

    def __init__(self, value: Union[str, bytes, bytearray, memoryview, "ULID"]) -> None:
        if isinstance(value, ULID):
            b = value._b
        elif isinstance(value, str):
            b = _ulid_parse(value)
        elif isinstance(value, (bytes, bytearray, memoryview)):
            b = bytes(value)
            if len(b) != 16:
                raise ValueError("drydb: a binary ULID has 16 bytes, not %d" % len(b))
        else:
            raise TypeError("drydb: ULID() takes a str or 16 bytes, not %s" % type(value).__name__)
        object.__setattr__(self, "_b", b)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("ULID is immutable")

    @property
    def bytes(self) -> bytes:
        """The 16-byte binary form."""
        return self._b

    @property
    def timestamp_ms(self) -> int:
        """Milliseconds since 1970-01-01 UTC (the first 48 bits)."""
        return int.from_bytes(self._b[:6], "big")

    def __str__(self) -> str:
        n = int.from_bytes(self._b, "big")
        out = []
        for _ in range(26):
            out.append(_CROCKFORD[n & 31])
            n >>= 5
        return "".join(reversed(out))

    def __repr__(self) -> str:
        return "ULID(%r)" % str(self)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ULID):
            return self._b == other._b
        return NotImplemented

    def __lt__(self, other: "ULID") -> bool:
        if isinstance(other, ULID):
            return self._b < other._b
        return NotImplemented

    def __le__(self, other: "ULID") -> bool:
        if isinstance(other, ULID):
            return self._b <= other._b
        return NotImplemented

    def __gt__(self, other: "ULID") -> bool:
        if isinstance(other, ULID):
            return self._b > other._b
        return NotImplemented

    def __ge__(self, other: "ULID") -> bool:
        if isinstance(other, ULID):
            return self._b >= other._b
        return NotImplemented

    def __hash__(self) -> int:
        return hash((ULID, self._b))

    def __reduce__(self) -> Any:
        return (ULID, (self._b,))


def _ulid_parse(s: str) -> bytes:
    if len(s) != 26:
        raise ValueError("drydb: a ULID string has 26 characters, not %d: %r" % (len(s), s))
    n = 0
    for ch in s:
        try:
            n = (n << 5) | _CROCKFORD_DEC[ch]
        except KeyError:
            raise ValueError("drydb: invalid character %r in ULID %r" % (ch, s)) from None
    if n >> 128:
        raise ValueError("drydb: ULID %r overflows 128 bits" % s)
    return n.to_bytes(16, "big")


# --- scalar encoders -------------------------------------------------------

def _tname(k: Any) -> str:
    return type(k).__name__


def encode_int64(k: Any) -> bytes:
    """int64 key: big-endian with the sign bit flipped."""
    if type(k) is not int:
        if isinstance(k, bool) or not hasattr(k, "__index__"):
            raise TypeError("drydb: int64 key must be an int, not %s" % _tname(k))
        k = k.__index__()
    if not -_SIGN <= k < _SIGN:
        raise ValueError("drydb: int64 key out of range: %d" % k)
    return _pack_q(k + _SIGN)


def decode_int64(b: bytes) -> int:
    """Inverse of :func:`encode_int64`."""
    return _unpack_q(b)[0] - _SIGN


def encode_uint64(k: Any) -> bytes:
    """uint64 key: 8 bytes big-endian."""
    if type(k) is not int:
        if isinstance(k, bool) or not hasattr(k, "__index__"):
            raise TypeError("drydb: uint64 key must be an int, not %s" % _tname(k))
        k = k.__index__()
    if not 0 <= k <= _MASK:
        raise ValueError("drydb: uint64 key out of range: %d" % k)
    return _pack_q(k)


def decode_uint64(b: bytes) -> int:
    """Inverse of :func:`encode_uint64`."""
    return _unpack_q(b)[0]


def encode_float64(k: Any) -> bytes:
    """float64 key: order-preserving IEEE bits; ints are converted; NaN refused."""
    if type(k) is not float:
        if isinstance(k, bool) or not isinstance(k, (int, float)) and not hasattr(k, "__float__"):
            raise TypeError("drydb: float64 key must be a float or int, not %s" % _tname(k))
        k = float(k)
    if k != k:
        raise ValueError("drydb: NaN is not a valid float64 key")
    if k == 0.0:
        k = 0.0
    u = _unpack_q(_d.pack(k))[0]
    u = (~u & _MASK) if u & _SIGN else (u ^ _SIGN)
    return _pack_q(u)


def decode_float64(b: bytes) -> float:
    """Inverse of :func:`encode_float64`."""
    u = _unpack_q(b)[0]
    u = (u ^ _SIGN) if u & _SIGN else (~u & _MASK)
    return _d.unpack(_pack_q(u))[0]


def encode_bytes(k: Any) -> bytes:
    """bytes key: the bytes (bytearray and memoryview are copied)."""
    if type(k) is bytes:
        return k
    if isinstance(k, (bytes, bytearray, memoryview)):
        return bytes(k)
    raise TypeError("drydb: bytes key must be bytes-like, not %s" % _tname(k))


def encode_string(k: Any) -> bytes:
    """string key: UTF-8."""
    if type(k) is str or isinstance(k, str):
        try:
            return k.encode("utf-8")
        except UnicodeEncodeError as e:
            raise ValueError("drydb: string key is not valid UTF-8 text: %s" % e) from None
    raise TypeError("drydb: string key must be a str, not %s" % _tname(k))


def decode_string(b: bytes) -> str:
    """Inverse of :func:`encode_string`."""
    return b.decode("utf-8")


def encode_uuid(k: Any) -> bytes:
    """uuid key: ``uuid.UUID.bytes`` (16-byte bytes are taken as they are)."""
    if type(k) is bytes and len(k) == 16:
        return k  # the commonest case first: bytes are immutable, no copy
    if isinstance(k, uuid.UUID):
        return k.bytes
    if isinstance(k, (bytes, bytearray)) and len(k) == 16:
        return bytes(k)
    if isinstance(k, (bytes, bytearray)):
        raise ValueError("drydb: a binary uuid key has 16 bytes, not %d" % len(k))
    raise TypeError("drydb: uuid key must be a uuid.UUID, not %s" % _tname(k))


def _uuid_from_bytes() -> Callable[[bytes], uuid.UUID]:
    """uuid.UUID(bytes=b) at half its cost: the object made as UUID.__init__
    makes it (its two slots set), without its argument parsing. Used only
    if it builds, on this Python, a UUID equal to the one UUID(bytes=)
    builds."""
    new, U, unknown, from_bytes = object.__new__, uuid.UUID, uuid.SafeUUID.unknown, int.from_bytes
    # the two slots' descriptors, set directly (object.__setattr__ would
    # look each one up by name)
    try:
        set_int, set_safe = U.__dict__["int"].__set__, U.__dict__["is_safe"].__set__
    except (KeyError, AttributeError):  # a UUID without these slots
        return lambda b: uuid.UUID(bytes=b)

    def fast(b: bytes) -> uuid.UUID:
        if len(b) != 16:
            return U(bytes=b)  # its ValueError: a key of another length
        u = new(U)
        set_int(u, from_bytes(b, "big"))
        set_safe(u, unknown)
        return u

    try:
        probe = bytes(range(1, 17))
        ok = fast(probe) == uuid.UUID(bytes=probe) and str(fast(probe)) == str(uuid.UUID(bytes=probe))
    except Exception:  # noqa: BLE001 - a Python whose UUID is built otherwise
        ok = False
    return fast if ok else lambda b: uuid.UUID(bytes=b)


decode_uuid = _uuid_from_bytes()
decode_uuid.__doc__ = "Inverse of :func:`encode_uuid`."


def encode_ulid(k: Any) -> bytes:
    """ulid key: the 16-byte binary form (ULID, str, 16 bytes or ``.bytes``)."""
    if isinstance(k, ULID):
        return k._b
    if isinstance(k, str):
        return _ulid_parse(k)
    if isinstance(k, (bytes, bytearray)):
        if len(k) != 16:
            raise ValueError("drydb: a binary ULID key has 16 bytes, not %d" % len(k))
        return bytes(k)
    b = getattr(k, "bytes", None)
    if isinstance(b, bytes) and len(b) == 16:
        return b
    raise TypeError("drydb: ulid key must be a drydb.ULID, str or 16 bytes, not %s" % _tname(k))


def decode_ulid(b: bytes) -> ULID:
    """Inverse of :func:`encode_ulid`."""
    return ULID(b)


_ENC = {KEY_BYTES: encode_bytes, KEY_STRING: encode_string, KEY_INT64: encode_int64,
        KEY_UINT64: encode_uint64, KEY_FLOAT64: encode_float64, KEY_UUID: encode_uuid,
        KEY_ULID: encode_ulid}
_DEC: Dict[int, Callable[[bytes], Any]] = {KEY_BYTES: bytes, KEY_STRING: decode_string, KEY_INT64: decode_int64,
        KEY_UINT64: decode_uint64, KEY_FLOAT64: decode_float64, KEY_UUID: decode_uuid,
        KEY_ULID: decode_ulid}
_WIDTH = {KEY_INT64: 8, KEY_UINT64: 8, KEY_FLOAT64: 8, KEY_UUID: 16, KEY_ULID: 16}


# --- composite ---------------------------------------------------------------

def _escape(b: bytes) -> bytes:
    return b.replace(b"\x00", b"\x00\xff") + b"\x00\x01"


def encode_composite(parts: Sequence[int], value: Any, prefix: bool = False) -> bytes:
    """Encode a tuple for a composite key of the given part kinds.

    With ``prefix=True`` the tuple may have fewer elements than there are
    parts (a tuple prefix, which encodes to a byte prefix of the full keys).
    """
    if not isinstance(value, tuple):
        raise TypeError("drydb: composite key must be a tuple, not %s" % _tname(value))
    n = len(value)
    if n != len(parts) and not (prefix and n <= len(parts)):
        raise ValueError("drydb: composite key needs %d parts, got %d: %r" % (len(parts), n, value))
    out = []
    for kind, v in zip(parts, value):
        if kind == KEY_STRING:
            out.append(_escape(encode_string(v)))
        elif kind == KEY_BYTES:
            out.append(_escape(encode_bytes(v)))
        else:
            out.append(_ENC[kind](v))
    return b"".join(out)


def decode_composite(parts: Sequence[int], b: bytes) -> tuple:
    """Inverse of :func:`encode_composite` for a complete key."""
    out: List[Any] = []
    pos = 0
    for kind in parts:
        if kind in (KEY_STRING, KEY_BYTES):
            chunks = []
            while True:
                z = b.index(b"\x00", pos)
                chunks.append(b[pos:z])
                t = b[z + 1]
                pos = z + 2
                if t == 0x01:
                    break
                if t != 0xFF:
                    raise ValueError("drydb: bad escape in composite key %r" % b)
                chunks.append(b"\x00")
            raw = b"".join(chunks)
            out.append(raw.decode("utf-8") if kind == KEY_STRING else raw)
        else:
            w = _WIDTH[kind]
            out.append(_DEC[kind](b[pos:pos + w]))
            pos += w
    if pos != len(b):
        raise ValueError("drydb: %d trailing bytes in composite key %r" % (len(b) - pos, b))
    return tuple(out)


# --- key kind specifications ---------------------------------------------------

_SPEC_NAMES = {
    "bytes": KEY_BYTES, "string": KEY_STRING, "str": KEY_STRING, "int64": KEY_INT64,
    "int": KEY_INT64, "uint64": KEY_UINT64, "float64": KEY_FLOAT64, "float": KEY_FLOAT64,
    "uuid": KEY_UUID, "ulid": KEY_ULID,
}
_SPEC_TYPES = {bytes: KEY_BYTES, str: KEY_STRING, int: KEY_INT64, float: KEY_FLOAT64,
               uuid.UUID: KEY_UUID, ULID: KEY_ULID}

KeySpec = Union[str, int, type, Tuple[Any, ...], None]


def _scalar_kind(spec: Any) -> int:
    if isinstance(spec, bool):
        raise TypeError("drydb: bad key kind %r" % (spec,))
    if isinstance(spec, int):
        if spec in KIND_NAMES and spec != KEY_COMPOSITE:
            return spec
        raise ValueError("drydb: unknown key kind %d" % spec)
    if isinstance(spec, str):
        try:
            return _SPEC_NAMES[spec.lower()]
        except KeyError:
            raise ValueError("drydb: unknown key kind %r (expected one of %s)"
                             % (spec, ", ".join(sorted(_SPEC_NAMES)))) from None
    if isinstance(spec, type) and spec in _SPEC_TYPES:
        return _SPEC_TYPES[spec]
    raise TypeError("drydb: a key kind is a name ('int64', 'string', ...), a type (int, str, "
                    "bytes, float, uuid.UUID, drydb.ULID) or a tuple of them, not %r" % (spec,))


def key_kind(spec: KeySpec) -> Tuple[int, Tuple[int, ...]]:
    """Parse a key kind specification into (kind, parts).

    ``spec`` is a name (``"int64"``, ``"uint64"``, ``"float64"``, ``"string"``,
    ``"bytes"``, ``"uuid"``, ``"ulid"``; ``"int"``, ``"str"``, ``"float"`` too),
    a ``KEY_*`` constant, a Python type (``int`` is int64, ``str``, ``bytes``,
    ``float``, ``uuid.UUID``, ``drydb.ULID``), or a tuple of those for a
    composite key. ``None`` means bytes.
    """
    if spec is None:
        return KEY_BYTES, ()
    if isinstance(spec, (tuple, list)):
        if not 1 <= len(spec) <= _MAX_PARTS:
            raise ValueError("drydb: a composite key has 1 to %d parts, not %d" % (_MAX_PARTS, len(spec)))
        return KEY_COMPOSITE, tuple(_scalar_kind(s) for s in spec)
    return _scalar_kind(spec), ()


class KeyCodec:
    """Encoder and decoder of one key kind (a table's keys or an index's keys).

    ``encode(k)`` gives the bytes for a key, ``decode(b)`` the Python key,
    ``encode_bound(k)`` accepts partial tuples for composite keys (range
    bounds and prefixes). With ``raw=True`` keys are the encoded bytes
    themselves, whatever the kind.
    """

    __slots__ = ("kind", "parts", "encode", "decode", "encode_bound", "width", "raw")
    encode: Callable[[Any], bytes]
    encode_bound: Callable[[Any], bytes]
    decode: Callable[[bytes], Any]

    def __init__(self, kind: int, parts: Sequence[int] = (), raw: bool = False) -> None:
        self.kind = kind
        self.parts = tuple(parts)
        self.raw = raw
        self.width = 0 if raw else _WIDTH.get(kind, 0)
        if raw:
            self.encode = self.encode_bound = encode_bytes
            self.decode = bytes
        elif kind == KEY_COMPOSITE:
            p = self.parts
            self.encode = lambda k: encode_composite(p, k)
            self.encode_bound = lambda k: encode_composite(p, k, prefix=True)
            self.decode = lambda b: decode_composite(p, b)
        else:
            self.encode = self.encode_bound = _ENC[kind]
            self.decode = _DEC[kind]

    def describe(self) -> str:
        """The kind as text: ``int64``, ``composite(string, int64)``."""
        if self.kind == KEY_COMPOSITE:
            return "composite(%s)" % ", ".join(KIND_NAMES[p] for p in self.parts)
        return KIND_NAMES[self.kind]

    def encode_prefix(self, p: Any) -> bytes:
        """Encode a prefix for ``prefix()``: a str/bytes prefix for string/bytes
        keys, a tuple prefix for composite keys, a full key otherwise."""
        if self.raw or self.kind in (KEY_BYTES, KEY_STRING):
            return self.encode(p)
        if self.kind == KEY_COMPOSITE:
            return encode_composite(self.parts, p if isinstance(p, tuple) else (p,), prefix=True)
        return self.encode(p)
