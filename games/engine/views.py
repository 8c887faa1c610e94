"""Views, deltas and hashes. docs/protocol.md specifies
all three for implementers in other languages.

- Canonical encoding: msgpack with every map's keys (strings) sorted by their
  UTF-8 bytes, integers in their smallest encoding, no floats, str as msgpack
  str and bytes as bin.
- View hash: lowercase hex SHA-256 of the canonical encoding.
- Delta: a list of operations, each `[path, value]` (set the value at path)
  or `[path]` (delete the key at path), where path is a list of map keys.
  Maps are diffed key by key; any other changed value (a list, a scalar) is
  replaced whole. Applying the operations in order to the old view gives the
  new view exactly; an unchanged view has the empty delta.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import msgpack

View = dict[str, Any]
Delta = list[list[Any]]


def _sorted_tree(value: Any) -> Any:
    """The value with every map's keys in order. Python orders str by code
    point, which is the order of their UTF-8 bytes, so plain sorted() is the
    canonical order. Exact type checks keep this hot path (every view of
    every move) cheap; lists of scalars are passed through unchanged."""
    kind = type(value)
    if kind is dict:
        for key in value:
            if type(key) is not str:
                raise TypeError(f"canonical maps have str keys only, got {key!r}")
        ordered = {}
        for key in sorted(value):
            item = value[key]
            ordered[key] = item if type(item) in _PLAIN_SCALARS else _sorted_tree(item)
        return ordered
    if kind is list or kind is tuple:
        for item in value:
            if type(item) not in _PLAIN_SCALARS:
                return [item if type(item) in _PLAIN_SCALARS else _sorted_tree(item) for item in value]
        return value
    if kind is float or isinstance(value, float):
        raise TypeError(f"canonical encoding has no floats, got {value!r}")
    if kind in _PLAIN_SCALARS:
        return value
    if isinstance(value, dict):
        return _sorted_tree(dict(value))
    if isinstance(value, (list, tuple)):
        return [_sorted_tree(item) for item in value]
    return value


_PLAIN_SCALARS = frozenset({str, int, bool, type(None), bytes})


def canonical_bytes(value: Any) -> bytes:
    return _PACK(_sorted_tree(value))


def decode(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False)


def view_hash(view: View) -> str:
    return hashlib.sha256(canonical_bytes(view)).hexdigest()


def diff(old: View, new: View) -> Delta:
    """The operations that turn `old` into `new`, and nothing else."""
    ops: Delta = []
    _diff_maps(old, new, [], ops)
    return ops


def _diff_maps(old: dict[str, Any], new: dict[str, Any], path: list[str], ops: Delta) -> None:
    for key in old:
        if key not in new:
            ops.append([path + [key]])
    for key, value in new.items():
        if key not in old:
            ops.append([path + [key], value])
            continue
        previous = old[key]
        if isinstance(previous, dict) and isinstance(value, dict):
            _diff_maps(previous, value, path + [key], ops)
        elif not _same(previous, value):
            ops.append([path + [key], value])


def _same(a: Any, b: Any) -> bool:
    """Equal with equal types all the way down: Python's == calls 1 and True
    (and [1] and [True]) equal, but they encode to different bytes. The C
    comparison answers most cases (values that differ) before the walk."""
    if type(a) is not type(b) or a != b:
        return False
    kind = type(a)
    if kind is dict:
        return all(_same(a[key], b[key]) for key in a)
    if kind is list or kind is tuple:
        return all(map(_same, a, b))
    return True


@dataclass(frozen=True, slots=True)
class EncodedView:
    """A view with the canonical bytes of each top-level value, of the whole
    view and its hash, computed once. A host publishing a view every move
    encodes each value once and reuses the bytes three times: in the view's
    hash, to find what changed (equal bytes are equal values, types and
    all), and inside the delta."""

    view: View
    fields: dict[str, bytes]
    data: bytes
    hash: str


def encode_view(view: View, shared: dict[int, bytes] | None = None) -> EncodedView:
    """The same bytes as canonical_bytes(view): a map header, then each key
    and its value's canonical bytes in key order.

    `shared` remembers encoded values by object identity across views built
    together (a game's public fields, the same objects in every seat's
    view), so each is encoded once; it must not outlive those views."""
    fields = {}
    for key in view:
        if type(key) is not str:
            raise TypeError(f"canonical maps have str keys only, got {key!r}")
        value = view[key]
        if type(value) in _PLAIN_SCALARS:
            fields[key] = _PACK(value)
        elif shared is None:
            fields[key] = canonical_bytes(value)
        else:
            encoded = shared.get(id(value))
            if encoded is None:
                encoded = shared[id(value)] = canonical_bytes(value)
            fields[key] = encoded
    parts = [_map_header(len(fields))]
    for key in sorted(fields):
        parts.append(_PACK(key))
        parts.append(fields[key])
    data = b"".join(parts)
    return EncodedView(view, fields, data, hashlib.sha256(data).hexdigest())


def delta_bytes(old: EncodedView, new: EncodedView) -> bytes:
    """canonical_bytes(diff(old.view, new.view)), reusing the encoded values:
    a top-level value whose bytes did not change is not looked at again."""
    ops: list[bytes] = []
    for key in old.fields:
        if key not in new.fields:
            ops.append(canonical_bytes([[key]]))
    for key, encoded in new.fields.items():
        before = old.fields.get(key)
        if before == encoded:
            continue
        if before is not None and type(old.view[key]) is dict and type(new.view[key]) is dict:
            nested: Delta = []
            _diff_maps(old.view[key], new.view[key], [key], nested)
            ops.extend(canonical_bytes(op) for op in nested)
        else:
            ops.append(_SET_OP_HEADER + _PACK([key]) + encoded)
    return _array_header(len(ops)) + b"".join(ops)


# One packer for every encoding: msgpack.packb builds a Packer per call, and
# its methods run in C under the GIL, so sharing it is safe.
_PACKER = msgpack.Packer(use_bin_type=True)
_PACK = _PACKER.pack
_map_header = _PACKER.pack_map_header
_array_header = _PACKER.pack_array_header
_SET_OP_HEADER = _array_header(2)  # an operation [path, value]


def apply_delta(view: View, delta: Delta) -> View:
    """A new view; `view` is not modified (maps on each path are copied).
    As strict as the protocol asks of clients: a path runs through maps
    only, by string keys, and deletes only what is there (ValueError)."""
    result = dict(view)
    for op in delta:
        if len(op) not in (1, 2):
            raise ValueError(f"a delta operation has one or two elements, got {len(op)}")
        path = op[0]
        if not path or not all(isinstance(key, str) for key in path):
            raise ValueError(f"a delta operation needs a non-empty path of string keys, got {path!r}")
        target = result
        for depth, key in enumerate(path[:-1]):
            child = target.get(key)
            if not isinstance(child, dict):
                raise ValueError(f"{path[: depth + 1]!r} names no map in the view")
            child = dict(child)
            target[key] = child
            target = child
        if len(op) == 2:
            target[path[-1]] = op[1]
        elif path[-1] in target:
            del target[path[-1]]
        else:
            raise ValueError(f"the delta deletes {path!r}, which the view does not have")
    return result


def offered_actions(view: View) -> list[dict[str, Any]]:
    """What a game's bot may answer `view` with: its request's legal actions,
    or the request's default alone when the choice is too large to list.
    ValueError when the view asks nothing. (The tools' own bots have their
    copy in tablehost.clients.bots: clients never import the rules.)"""
    request = view.get("request")
    request = request if isinstance(request, dict) else {}
    actions = request.get("legal_actions")
    if actions:
        return list(actions)
    if request.get("default") is not None:
        return [request["default"]]
    raise ValueError(f"the view of seat {view.get('seat')} lists no legal actions")
