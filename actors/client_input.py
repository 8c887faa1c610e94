"""What a client sends, checked before anything compares, remembers or logs
it: an action's bytes become a plain map of bounded size and depth (or a
clear refusal), and client-supplied text is shown only as a short, printable
prefix.

A client's bytes reach Python objects that the rules, the logs and the
rejection messages then walk: a value nested a thousand levels deep makes
repr() and comparisons recurse past the interpreter's limit, a float or a
non-str key cannot be encoded canonically, and a 60 KB string copied into
every log line and answer multiplies whatever a flood costs. Every check
here is iterative, so no input can make it recurse."""

from __future__ import annotations

import reprlib
from typing import Any

import msgpack

# Deeper than any game's action needs (Big Two's is two levels), far below
# anything that strains a recursive walk.
MAX_ACTION_DEPTH = 8
# Map entries, list items and scalars in one action, all counted.
MAX_ACTION_NODES = 1024
# One string (a card code, an action type) or byte string in an action.
MAX_ACTION_TEXT = 1024
# What of a client's text a log line or a message shows.
SHOWN_CHARACTERS = 32

_SCALARS = (str, bytes, int, bool, type(None))


class BadInput(ValueError):
    """Client bytes of the wrong shape; the message says what is wrong,
    never echoing more than a short prefix of them."""


def decode_action(data: bytes) -> dict[str, Any]:
    """An action's msgpack bytes as a map with str keys, at most
    MAX_ACTION_DEPTH deep and MAX_ACTION_NODES in all, with no floats or
    extension types; raises BadInput otherwise."""
    try:
        value = msgpack.unpackb(
            data, raw=False, strict_map_key=True, use_list=True,
            max_str_len=MAX_ACTION_TEXT, max_bin_len=MAX_ACTION_TEXT,
            max_array_len=MAX_ACTION_NODES, max_map_len=MAX_ACTION_NODES, max_ext_len=0,
        )
    except Exception as error:  # msgpack raises several unrelated types (and RecursionError) for bad bytes
        raise BadInput(f"action bytes are not msgpack within bounds ({type(error).__name__})") from None
    if not isinstance(value, dict):
        raise BadInput(f"an action is a msgpack map, not {type(value).__name__}")
    check_plain(value)
    return value


def check_plain(value: Any, max_depth: int = MAX_ACTION_DEPTH, max_nodes: int = MAX_ACTION_NODES) -> None:
    """Raise BadInput unless `value` is plain data the canonical encoding
    takes: maps with str keys, lists, str, bytes, int, bool and None, no
    deeper than `max_depth` and with at most `max_nodes` values in all.
    Walked with an explicit stack, never by recursion."""
    pending: list[tuple[Any, int]] = [(value, 1)]
    nodes = 0
    while pending:
        item, depth = pending.pop()
        nodes += 1
        if nodes > max_nodes:
            raise BadInput(f"an action holds at most {max_nodes} values")
        kind = type(item)
        if kind is dict:
            if depth > max_depth:
                raise BadInput(f"an action is nested at most {max_depth} levels deep")
            for key, child in item.items():
                if type(key) is not str:
                    raise BadInput(f"an action's map keys are strings, not {type(key).__name__}")
                pending.append((child, depth + 1))
        elif kind is list:
            if depth > max_depth:
                raise BadInput(f"an action is nested at most {max_depth} levels deep")
            pending.extend((child, depth + 1) for child in item)
        elif kind not in _SCALARS:
            raise BadInput(f"an action holds no {kind.__name__} values (maps, lists, strings, bytes, "
                           "integers, booleans and null only)")


def brief(text: str | bytes, limit: int = SHOWN_CHARACTERS) -> str:
    """A short, printable, quoted prefix of client-supplied text or bytes
    for a log line or a message, with its full length when it was cut: no
    control characters reach a log, and a long value costs `limit` characters."""
    if isinstance(text, bytes):
        shown = text[:limit].decode("utf-8", "backslashreplace")
        unit = "bytes"
    else:
        shown = text[:limit]
        unit = "characters"
    quoted = ascii(shown)
    return quoted if len(text) <= limit else f"{quoted}... ({len(text)} {unit})"


_SHORT_REPR = reprlib.Repr()
_SHORT_REPR.maxlevel = 2
_SHORT_REPR.maxstring = SHOWN_CHARACTERS
_SHORT_REPR.maxother = SHOWN_CHARACTERS
_SHORT_REPR.maxlist = _SHORT_REPR.maxdict = _SHORT_REPR.maxtuple = 4


def brief_value(value: Any) -> str:
    """A short repr of a client-supplied value of any shape (reprlib stops
    at two levels, so depth cannot make it recurse), in ASCII."""
    return ascii(_SHORT_REPR.repr(value))[1:-1][: SHOWN_CHARACTERS * 2]


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, marked when it was cut: a host
    message that quotes a client's value stays bounded."""
    return text if len(text) <= limit else text[: limit - 3] + "..."
