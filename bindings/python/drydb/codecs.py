"""Value codecs: turn Python objects into value bytes and back.

A codec is any object with ``name``, ``encode(obj) -> bytes`` and
``decode(bytes) -> obj``. Built in: ``"json"`` (always), ``"msgpack"``
(when the ``msgpack`` package is installed) and ``"raw"`` (bytes as they
are); :func:`register_codec` adds a name. Every builder (Python, C, Go, C#,
the CLI) records the codec name of a table in the file's metadata (key
``drydb.codec.<table>``; see docs/API.md), and ``Database.table`` uses it by
default, so a table built with ``codec="json"`` reads back as Python objects
without saying so again.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, Optional, Protocol, Union

__all__ = ["Codec", "JsonCodec", "MsgpackCodec", "get_codec", "register_codec"]


class Codec(Protocol):
    """What a value codec provides."""

    name: str

    def encode(self, obj: Any) -> bytes:
        """Python object to value bytes."""
        ...

    def decode(self, data: bytes) -> Any:
        """Value bytes to Python object."""
        ...


class JsonCodec:
    """UTF-8 JSON, compact separators, non-ASCII kept as is."""

    name = "json"

    def __init__(self) -> None:
        self._enc = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
        self._dec = json.loads

    def encode(self, obj: Any) -> bytes:
        """``json.dumps`` to UTF-8 bytes."""
        return self._enc(obj).encode("utf-8")

    def decode(self, data: bytes) -> Any:
        """``json.loads``."""
        return self._dec(data)


class MsgpackCodec:
    """MessagePack through the ``msgpack`` package (bin type for bytes, str
    for text), the format of the C# DryDB's MessagePack plugin."""

    name = "msgpack"

    def __init__(self) -> None:
        try:
            import msgpack  # type: ignore[import-not-found]
        except ImportError:
            raise ImportError("drydb: the msgpack codec needs the msgpack package "
                              "(pip install msgpack)") from None
        self._packb = msgpack.packb
        self._unpackb = msgpack.unpackb

    def encode(self, obj: Any) -> bytes:
        """``msgpack.packb(obj, use_bin_type=True)``."""
        return self._packb(obj, use_bin_type=True)

    def decode(self, data: bytes) -> Any:
        """``msgpack.unpackb(data, raw=False)``."""
        return self._unpackb(data, raw=False)


_BUILTIN: Dict[str, Callable[[], Any]] = {"json": JsonCodec, "msgpack": MsgpackCodec}
_RAW = ("", "raw", "bytes", "none")


def register_codec(name: str, factory: Callable[[], Any]) -> None:
    """Make ``name`` a codec: ``factory()`` returns the codec object (with
    ``encode`` and ``decode``). Files whose tables record ``name`` then
    decode with it by default, and builders may give ``codec=name``."""
    if not isinstance(name, str) or not name or name in _RAW or len(name.encode("utf-8")) > 64 \
            or "\n" in name or "\x00" in name:
        raise ValueError("drydb: a codec name is 1 to 64 bytes of UTF-8 on one line, not 'raw': %r"
                         % (name,))
    if not callable(factory):
        raise TypeError("drydb: register_codec() takes a name and a factory function")
    _BUILTIN[name] = factory


def get_codec(spec: Union[None, str, Codec]) -> Optional[Codec]:
    """A codec from its name (``"json"``, ``"msgpack"``), a codec object, or
    None (values stay bytes). Unknown names give ``ValueError``."""
    if spec is None:
        return None
    if isinstance(spec, str):
        if spec in _RAW:
            return None
        try:
            make = _BUILTIN[spec]
        except KeyError:
            raise ValueError("drydb: unknown codec %r (built in: json, msgpack, raw; others: "
                             "drydb.register_codec)" % spec) from None
        c = make()
        if not isinstance(getattr(c, "name", None), str):
            c.name = spec
        return c  # type: ignore[no-any-return]
    if callable(getattr(spec, "encode", None)) and callable(getattr(spec, "decode", None)):
        return spec  # type: ignore[return-value]
    raise TypeError("drydb: a codec is 'json', 'msgpack' or an object with encode() and "
                    "decode(), not %r" % (spec,))
