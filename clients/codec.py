"""The client side of the wire payload format: canonical MessagePack, view
hashes and deltas (docs/protocol.md sections 3 to 5).

This is deliberately a second implementation of the protocol page, written
from the page and not from the host's code (games/engine/views.py), so that
tests/unit/test_protocol_codec.py can show the page is precise enough for an
SDK in another language to agree with the host byte for byte. The encoder
therefore writes the MessagePack bytes itself instead of trusting a library
to choose the canonical forms; decoding accepts any valid MessagePack, as the
page requires, and uses the msgpack library.
"""

from __future__ import annotations

import hashlib
import struct
from typing import Any

import msgpack

View = dict[str, Any]
Delta = list[list[Any]]

_UINT64_MAX = (1 << 64) - 1
_INT64_MIN = -(1 << 63)


class CanonicalEncodingError(TypeError):
    """A value the canonical encoding has no form for: a float, a map key that
    is not a string, an integer outside the 64-bit range, or an object that is
    not MessagePack data at all."""


class DeltaError(ValueError):
    """A delta that cannot apply to the view it was given: the client's view
    and the host's have diverged, and only a snapshot can repair that."""


def encode(value: Any) -> bytes:
    """The canonical MessagePack bytes of `value` (docs/protocol.md section 3):
    map keys are strings in ascending order of their UTF-8 bytes, every integer
    and length takes its smallest form, and floats are refused."""
    out = bytearray()
    _write(out, value)
    return bytes(out)


def encode_action(action: dict[str, Any]) -> bytes:
    """The bytes of a Commit's `action`: a map with a string `type`, canonical.

    Checked here so that a caller's mistake is a clear local error instead of
    a MALFORMED rejection from the host."""
    if not isinstance(action, dict):
        raise CanonicalEncodingError(f"an action is a map, got {type(action).__name__}")
    if not isinstance(action.get("type"), str):
        raise CanonicalEncodingError(f"an action needs a string 'type', got {action!r}")
    return encode(action)


def decode(data: bytes) -> Any:
    """Any valid MessagePack (key order does not matter when decoding).
    Raises ValueError for bytes that are not exactly one MessagePack value."""
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


def view_hash(view: View) -> str:
    """Lowercase hex SHA-256 of the view's canonical bytes (section 4)."""
    return hashlib.sha256(encode(view)).hexdigest()


def apply_delta(view: View, delta: Delta) -> View:
    """The view after `delta` (section 5). `view` is left untouched: every map
    on a changed path is copied, the rest is shared with the old view.

    Raises DeltaError when an operation does not fit the view, which means the
    views have diverged."""
    if not isinstance(delta, list):
        raise DeltaError(f"a delta is an array of operations, got {type(delta).__name__}")
    result = dict(view)
    for index, op in enumerate(delta):
        if not isinstance(op, list) or len(op) not in (1, 2):
            raise DeltaError(f"operation {index} is not [path] or [path, value]: {op!r}")
        path = op[0]
        if not isinstance(path, list) or not path:
            raise DeltaError(f"operation {index} needs a non-empty path, got {path!r}")
        target = result
        for depth, key in enumerate(path[:-1]):
            child = target.get(key) if isinstance(key, str) else None
            if not isinstance(child, dict):
                raise DeltaError(f"operation {index}: {path[: depth + 1]!r} names no map in the view")
            child = dict(child)
            target[key] = child
            target = child
        last = path[-1]
        if not isinstance(last, str):
            raise DeltaError(f"operation {index}: map keys are strings, got {last!r}")
        if len(op) == 2:
            target[last] = op[1]
        elif last in target:
            del target[last]
        else:
            raise DeltaError(f"operation {index} deletes {path!r}, which the view does not have")
    return result


# -- the encoder ------------------------------------------------------------------
#
# Written for speed as well as clarity: a client hashes its whole view on every
# delta, so this runs once per move per seat. Exact types take the short paths
# in `_write`; subclasses (IntEnum, OrderedDict, ...) encode as their base type.


def _write(out: bytearray, value: Any) -> None:
    kind = type(value)
    if kind is str:
        out += _str_bytes(value)
    elif kind is int:
        if 0 <= value <= 0x7F:
            out.append(value)
        else:
            _write_int(out, value)
    elif kind is dict:
        _write_map(out, value)
    elif kind is list or kind is tuple:
        _write_array(out, value)
    elif value is None:
        out.append(0xC0)
    elif kind is bool:
        out.append(0xC3 if value else 0xC2)
    else:
        _write_other(out, value)


def _write_other(out: bytearray, value: Any) -> None:
    # bool before int: a bool is an int to Python but a boolean to MessagePack.
    if isinstance(value, bool):
        out.append(0xC3 if value else 0xC2)
    elif isinstance(value, int):
        _write_int(out, int(value))
    elif isinstance(value, str):
        out += _str_bytes(str(value))
    elif isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
        _write_header(out, len(data), None, 0, b"\xc4", b"\xc5", b"\xc6", "byte string")
        out += data
    elif isinstance(value, (list, tuple)):
        _write_array(out, value)
    elif isinstance(value, dict):
        _write_map(out, value)
    elif isinstance(value, float):
        raise CanonicalEncodingError(f"the canonical encoding has no floats, got {value!r}")
    else:
        raise CanonicalEncodingError(f"{type(value).__name__} is not MessagePack data: {value!r}")


def _write_int(out: bytearray, value: int) -> None:
    if value >= 0:
        if value <= 0x7F:
            out.append(value)
        elif value <= 0xFF:
            out += b"\xcc" + struct.pack(">B", value)
        elif value <= 0xFFFF:
            out += b"\xcd" + struct.pack(">H", value)
        elif value <= 0xFFFFFFFF:
            out += b"\xce" + struct.pack(">I", value)
        elif value <= _UINT64_MAX:
            out += b"\xcf" + struct.pack(">Q", value)
        else:
            raise CanonicalEncodingError(f"{value} does not fit in 64 bits")
    elif value >= -32:
        out.append(value & 0xFF)
    elif value >= -0x80:
        out += b"\xd0" + struct.pack(">b", value)
    elif value >= -0x8000:
        out += b"\xd1" + struct.pack(">h", value)
    elif value >= -0x80000000:
        out += b"\xd2" + struct.pack(">i", value)
    elif value >= _INT64_MIN:
        out += b"\xd3" + struct.pack(">q", value)
    else:
        raise CanonicalEncodingError(f"{value} does not fit in 64 bits")


# Encoded short strings: views repeat the same keys, card codes and kinds on
# every hash. Bounded, so odd strings from a host cannot grow it forever.
_STR_CACHE: dict[str, bytes] = {}
_STR_CACHE_LIMIT = 4096
_STR_CACHE_MAX_BYTES = 32


def _str_bytes(value: str) -> bytes:
    """A string's whole encoding: the smallest str header, then its UTF-8."""
    cached = _STR_CACHE.get(value)
    if cached is not None:
        return cached
    try:
        data = value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise CanonicalEncodingError(f"string {value!r} is not valid Unicode: {error}") from None
    header = bytearray()
    _write_header(header, len(data), 0xA0, 31, b"\xd9", b"\xda", b"\xdb", "string")
    encoded = bytes(header) + data
    if len(data) <= _STR_CACHE_MAX_BYTES and len(_STR_CACHE) < _STR_CACHE_LIMIT:
        _STR_CACHE[value] = encoded
    return encoded


def _write_array(out: bytearray, value: list[Any] | tuple[Any, ...]) -> None:
    _write_header(out, len(value), 0x90, 15, None, b"\xdc", b"\xdd", "array")
    for item in value:
        _write(out, item)


def _write_map(out: bytearray, value: dict[Any, Any]) -> None:
    keys = list(value)
    for key in keys:
        if not isinstance(key, str):
            raise CanonicalEncodingError(f"canonical map keys are strings, got {key!r}")
    # The page orders keys by their UTF-8 bytes. For valid Unicode that is the
    # code point order Python compares strings by (UTF-8 preserves it), so the
    # strings themselves sort correctly; a UTF-16 language must not do this.
    keys.sort()
    _write_header(out, len(keys), 0x80, 15, None, b"\xde", b"\xdf", "map")
    for key in keys:
        out += _str_bytes(key)
        _write(out, value[key])


def _write_header(
    out: bytearray,
    length: int,
    fix_base: int | None,
    fix_max: int,
    marker8: bytes | None,
    marker16: bytes,
    marker32: bytes,
    what: str,
) -> None:
    """The smallest length prefix of a str, bin, array or map: the fix form
    when the type has one and the length fits, else 8, 16 or 32 bits."""
    if fix_base is not None and length <= fix_max:
        out.append(fix_base | length)
    elif marker8 is not None and length <= 0xFF:
        out += marker8 + struct.pack(">B", length)
    elif length <= 0xFFFF:
        out += marker16 + struct.pack(">H", length)
    elif length <= 0xFFFFFFFF:
        out += marker32 + struct.pack(">I", length)
    else:
        raise CanonicalEncodingError(f"a {what} of {length} elements is too long for MessagePack")
