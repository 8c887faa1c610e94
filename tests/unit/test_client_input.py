"""Client bytes checked before anything compares, remembers or logs them:
an action's shape (a map with str keys, bounded depth and size, no floats),
and short printable prefixes of client text for logs and messages."""

from __future__ import annotations

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablehost.actors.client_input import (
    MAX_ACTION_DEPTH,
    MAX_ACTION_NODES,
    BadInput,
    brief,
    brief_value,
    clip,
    decode_action,
)
from tablehost.games.engine.views import canonical_bytes


def nested(depth: int) -> object:
    value: object = 0
    for _ in range(depth):
        value = [value]
    return value


def test_a_plain_action_decodes_to_its_map() -> None:
    action = {"type": "play", "cards": ["3C", "3D"], "seat": 1}
    assert decode_action(msgpack.packb(action)) == action


def test_a_thousand_deep_value_is_refused_without_recursing() -> None:
    with pytest.raises(BadInput, match=f"nested at most {MAX_ACTION_DEPTH} levels"):
        decode_action(msgpack.packb({"type": "pass", "seat": nested(1000)}))


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"type": "pass", "x": 1.5}, "no float values"),
        ({"type": "pass", 1: "a"}, "not msgpack within bounds"),  # msgpack's strict_map_key refuses it
        ({"type": "pass", b"k": "a"}, "map keys are strings, not bytes"),
        ([1, 2], "a msgpack map, not list"),
        ("pass", "a msgpack map, not str"),
        ({"type": "pass", "cards": list(range(MAX_ACTION_NODES))}, "at most 1024 values"),
        ({"type": "x" * 5000}, "not msgpack within bounds"),
    ],
)
def test_actions_of_the_wrong_shape_are_refused_with_the_reason(value: object, message: str) -> None:
    with pytest.raises(BadInput, match=message):
        decode_action(msgpack.packb(value, strict_types=False))


def test_extension_types_and_bad_utf8_are_refused() -> None:
    with pytest.raises(BadInput, match="not msgpack"):
        decode_action(msgpack.packb({"type": msgpack.ExtType(5, b"abc")}))
    with pytest.raises(BadInput, match="not msgpack"):
        decode_action(b"\x81\xa4type\xa2\xff\xfe")  # {"type": <invalid UTF-8>}


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=256))
def test_any_bytes_give_a_canonical_map_or_a_refusal(data: bytes) -> None:
    try:
        action = decode_action(data)
    except BadInput as error:
        assert str(error)
        return
    assert isinstance(action, dict)
    canonical_bytes(action)  # every accepted action has a canonical encoding


def test_brief_shows_a_short_printable_prefix_and_the_full_length() -> None:
    assert brief("move-1") == "'move-1'"
    long = brief("x" * 60_000)
    assert long.startswith("'" + "x" * 32 + "'") and "60000 characters" in long and len(long) < 70
    assert brief("\x1b[2Jevil\n") == repr("\x1b[2Jevil\n")  # escapes, never raw control characters
    assert brief(b"\xff\xfeab") == ascii("\\xff\\xfeab")


def test_brief_value_and_clip_bound_any_value() -> None:
    shown = brief_value({"seat": nested(1000)})
    assert len(shown) <= 64 and shown.isascii()
    assert clip("y" * 1000, 20) == "y" * 17 + "..." and clip("short", 20) == "short"
