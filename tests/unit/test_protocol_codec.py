"""The client's codec (clients/codec.py) against docs/protocol.md and against
the host's own implementation (games/engine/views.py): two implementations
of one page must agree on every byte, or the page is not precise enough."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablehost.clients import codec
from tablehost.games.bigtwo.game import RULES as BIGTWO
from tablehost.games.engine import views
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import Match

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.integers(min_value=-40, max_value=300)  # the fixint edges, more often
    | st.text(max_size=40)
    | st.binary(max_size=40)
)
values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=6) | st.dictionaries(st.text(max_size=8), children, max_size=6),
    max_leaves=30,
)
view_maps = st.dictionaries(st.text(max_size=8), values, max_size=8)


@settings(max_examples=300)
@given(view_maps)
def test_client_and_host_write_the_same_bytes_and_hash(view: dict[str, Any]) -> None:
    assert codec.encode(view) == views.canonical_bytes(view)
    assert codec.view_hash(view) == views.view_hash(view)


@settings(max_examples=150)
@given(view_maps)
def test_decoding_canonical_bytes_gives_the_value_back(view: dict[str, Any]) -> None:
    assert codec.decode(codec.encode(view)) == view


def _blend(old: dict[str, Any], other: dict[str, Any], drop: frozenset[str]) -> dict[str, Any]:
    """A successor of `old`, as a view changes between two seqs: some keys
    dropped, some replaced or added from `other`, maps on both sides blended
    recursively so the delta reaches into nested maps."""
    new = {key: value for key, value in old.items() if key not in drop}
    for key, value in other.items():
        if isinstance(new.get(key), dict) and isinstance(value, dict):
            new[key] = _blend(new[key], value, drop)
        else:
            new[key] = value
    return new


successive_views = st.builds(
    lambda old, other, drop: (old, _blend(old, other, drop)),
    view_maps,
    view_maps,
    st.frozensets(st.text(max_size=2), max_size=3),
)


@settings(max_examples=300)
@given(successive_views)
def test_applying_the_hosts_delta_to_a_changed_view_gives_the_new_view(pair: tuple[dict[str, Any], dict[str, Any]]) -> None:
    old, new = pair
    original = copy.deepcopy(old)
    applied = codec.apply_delta(old, codec.decode(views.canonical_bytes(views.diff(old, new))))
    assert applied == new
    assert codec.view_hash(applied) == views.view_hash(new)
    assert old == original, "apply_delta must not modify the view it is given"


@settings(max_examples=150)
@given(view_maps, view_maps)
def test_applying_the_hosts_delta_gives_the_new_view(old: dict[str, Any], new: dict[str, Any]) -> None:
    original = copy.deepcopy(old)
    wire_delta = codec.decode(views.canonical_bytes(views.diff(old, new)))
    applied = codec.apply_delta(old, wire_delta)
    assert applied == new
    assert codec.view_hash(applied) == views.view_hash(new)
    assert old == original, "apply_delta must not modify the view it is given"


@settings(max_examples=50)
@given(view_maps)
def test_an_unchanged_view_has_the_empty_delta(view: dict[str, Any]) -> None:
    assert codec.apply_delta(view, []) == view


def test_the_documented_example_encodes_byte_for_byte() -> None:
    view = {"b": 1, "a": [True, None]}
    assert codec.encode(view) == bytes.fromhex("82 a1 61 92 c3 c0 a1 62 01")


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        (0, "00"),
        (127, "7f"),
        (128, "cc 80"),
        (255, "cc ff"),
        (256, "cd 01 00"),
        (65535, "cd ff ff"),
        (65536, "ce 00 01 00 00"),
        (2**32 - 1, "ce ff ff ff ff"),
        (2**32, "cf 00 00 00 01 00 00 00 00"),
        (2**64 - 1, "cf ff ff ff ff ff ff ff ff"),
        (-1, "ff"),
        (-32, "e0"),
        (-33, "d0 df"),
        (-128, "d0 80"),
        (-129, "d1 ff 7f"),
        (-32768, "d1 80 00"),
        (-32769, "d2 ff ff 7f ff"),
        (-(2**31), "d2 80 00 00 00"),
        (-(2**31) - 1, "d3 ff ff ff ff 7f ff ff ff"),
        (-(2**63), "d3 80 00 00 00 00 00 00 00"),
    ],
)
def test_integers_take_their_smallest_encoding(value: int, encoded: str) -> None:
    assert codec.encode(value) == bytes.fromhex(encoded)
    assert codec.encode(value) == views.canonical_bytes(value)


@pytest.mark.parametrize(
    ("value", "prefix"),
    [
        ("x" * 31, "bf"),
        ("x" * 32, "d9 20"),
        ("x" * 256, "da 01 00"),
        (b"x" * 255, "c4 ff"),
        (b"x" * 256, "c5 01 00"),
        ([0] * 15, "9f"),
        ([0] * 16, "dc 00 10"),
        ({f"{i:02}": 0 for i in range(15)}, "8f"),
        ({f"{i:02}": 0 for i in range(16)}, "de 00 10"),
    ],
)
def test_lengths_take_their_smallest_header(value: Any, prefix: str) -> None:
    assert codec.encode(value).startswith(bytes.fromhex(prefix))
    assert codec.encode(value) == views.canonical_bytes(value)


def test_map_keys_are_ordered_by_their_utf8_bytes() -> None:
    encoded = codec.encode({"é": 1, "b": 2, "B": 3, "aa": 4, "a": 5})
    assert codec.decode(encoded) == {"é": 1, "b": 2, "B": 3, "aa": 4, "a": 5}
    keys_in_order = list(codec.decode(encoded))
    assert keys_in_order == ["B", "a", "aa", "b", "é"]


def test_a_tuple_encodes_like_a_list() -> None:
    assert codec.encode({"cards": ("3C", "3D")}) == codec.encode({"cards": ["3C", "3D"]})


@pytest.mark.parametrize("value", [1.5, [1, 0.0], {"a": {"b": float("nan")}}])
def test_floats_are_rejected(value: Any) -> None:
    with pytest.raises(codec.CanonicalEncodingError, match="no floats"):
        codec.encode(value)
    with pytest.raises(TypeError):
        views.canonical_bytes(value)


@pytest.mark.parametrize("value", [{1: "a"}, 2**64, -(2**63) - 1, object(), {"a": {1, 2}}])
def test_values_without_a_canonical_form_are_rejected(value: Any) -> None:
    with pytest.raises(codec.CanonicalEncodingError):
        codec.encode(value)


def test_decoding_accepts_any_valid_messagepack() -> None:
    # keys out of order and a uint16 holding 1: valid, though not canonical
    assert codec.decode(bytes.fromhex("82 a1 62 cd 00 01 a1 61 02")) == {"b": 1, "a": 2}


def test_decoding_refuses_truncated_bytes() -> None:
    with pytest.raises(ValueError):
        codec.decode(bytes.fromhex("82 a1 61"))


def test_an_action_is_a_map_with_a_string_type() -> None:
    assert codec.encode_action({"type": "pass"}) == bytes.fromhex("81 a4 74 79 70 65 a4 70 61 73 73")
    with pytest.raises(codec.CanonicalEncodingError, match="type"):
        codec.encode_action({"cards": ["3C"]})
    with pytest.raises(codec.CanonicalEncodingError, match="map"):
        codec.encode_action(["pass"])  # type: ignore[arg-type]


def test_a_delta_sets_and_deletes_nested_keys_without_touching_the_old_view() -> None:
    old = {"a": {"b": 1, "c": [1, 2]}, "d": 4}
    new = codec.apply_delta(old, [[["a", "b"], 2], [["d"]], [["e"], None]])
    assert new == {"a": {"b": 2, "c": [1, 2]}, "e": None}
    assert old == {"a": {"b": 1, "c": [1, 2]}, "d": 4}


@pytest.mark.parametrize(
    ("delta", "problem"),
    [
        ([[["missing"]]], "does not have"),
        ([[["a", "b", "c"], 1]], "names no map"),
        ([[["nowhere", "x"], 1]], "names no map"),
        ([[[], 1]], "non-empty path"),
        ([[["a"], 1, 2]], r"\[path\] or \[path, value\]"),
        ({"a": 1}, "array of operations"),
        ([[[1], 1]], "strings"),
    ],
)
def test_a_delta_that_does_not_fit_the_view_is_refused(delta: Any, problem: str) -> None:
    with pytest.raises(codec.DeltaError, match=problem):
        codec.apply_delta({"a": {"b": 1}}, delta)


def test_every_seat_follows_a_whole_big_two_game_from_the_wire_deltas() -> None:
    """What a client does for real: start from the first view, apply each
    published delta as bytes, and land on the host's hash every time."""
    match = Match(BIGTWO, TableSeed.numbered(2024), ["p0", "p1", "p2", "p3"], {}, 1_000)
    viewers: list[int | None] = [0, 1, 2, 3, None]
    host_views = {viewer: match.view(viewer) for viewer in viewers}
    client_views = {viewer: codec.decode(views.canonical_bytes(view)) for viewer, view in host_views.items()}
    now = 1_000
    while match.result is None:
        now += 10
        seat = BIGTWO.to_act(match.state)
        assert seat is not None
        match.act(seat, client_views[seat]["request"]["legal_actions"][0], now)
        for viewer in viewers:
            new_view = match.view(viewer)
            wire = views.canonical_bytes(views.diff(host_views[viewer], new_view))
            client_views[viewer] = codec.apply_delta(client_views[viewer], codec.decode(wire))
            assert codec.view_hash(client_views[viewer]) == views.view_hash(new_view)
            host_views[viewer] = new_view
    assert client_views[None]["result"] == match.result
