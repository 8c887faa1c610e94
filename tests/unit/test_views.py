"""Canonical encoding, view hash and deltas (docs/protocol.md sections 3-5)."""

from __future__ import annotations

import copy
import hashlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablehost.games.engine.views import apply_delta, canonical_bytes, decode, delta_bytes, diff, encode_view, view_hash

# --- canonical encoding --------------------------------------------------------------


def test_the_protocol_docs_example_encodes_to_the_documented_bytes() -> None:
    assert canonical_bytes({"b": 1, "a": [True, None]}) == bytes.fromhex("82 a1 61 92 c3 c0 a1 62 01")


def test_the_view_hash_is_lowercase_hex_sha256_of_the_canonical_bytes() -> None:
    expected = hashlib.sha256(bytes.fromhex("82a16192c3c0a16201")).hexdigest()
    assert view_hash({"b": 1, "a": [True, None]}) == expected
    assert expected == expected.lower() and len(expected) == 64


def test_map_keys_are_sorted_whatever_order_they_were_inserted_in() -> None:
    assert canonical_bytes({"a": 1, "b": 2}) == canonical_bytes({"b": 2, "a": 1})
    assert view_hash({"x": {"d": 1, "c": 2}}) == view_hash({"x": {"c": 2, "d": 1}})


def test_keys_are_sorted_by_their_utf8_bytes() -> None:
    # "B" (0x42) < "a" (0x61) < "z" (0x7a) < "é" (0xc3 0xa9)
    encoded = canonical_bytes({"é": 0, "z": 0, "a": 0, "B": 0})
    assert encoded == bytes.fromhex("84" "a142 00" "a161 00" "a17a 00" "a2c3a9 00")


def test_a_shorter_key_sorts_before_a_longer_key_with_the_same_prefix() -> None:
    assert canonical_bytes({"ab": 1, "a": 2}) == bytes.fromhex("82 a161 02 a26162 01")


def test_nested_maps_inside_arrays_are_sorted_too() -> None:
    assert canonical_bytes([{"b": 1, "a": 2}]) == bytes.fromhex("91 82 a161 02 a162 01")


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        (0, "00"),
        (127, "7f"),
        (128, "cc80"),
        (255, "ccff"),
        (256, "cd0100"),
        (65535, "cdffff"),
        (65536, "ce00010000"),
        (2**32 - 1, "ceffffffff"),
        (2**32, "cf0000000100000000"),
        (2**64 - 1, "cfffffffffffffffff"),
        (-1, "ff"),
        (-32, "e0"),
        (-33, "d0df"),
        (-128, "d080"),
        (-129, "d1ff7f"),
        (-32768, "d18000"),
        (-32769, "d2ffff7fff"),
        (-(2**31), "d280000000"),
        (-(2**31) - 1, "d3ffffffff7fffffff"),
    ],
)
def test_integers_take_their_smallest_encoding(value: int, encoded: str) -> None:
    assert canonical_bytes(value) == bytes.fromhex(encoded)


def test_strings_are_str_bytes_are_bin_and_tuples_are_arrays() -> None:
    assert canonical_bytes("3C") == bytes.fromhex("a2 33 43")
    assert canonical_bytes(b"\x01") == bytes.fromhex("c4 01 01")
    assert canonical_bytes(("a", 1)) == canonical_bytes(["a", 1]) == bytes.fromhex("92 a161 01")
    assert canonical_bytes(None) == b"\xc0"
    assert canonical_bytes([True, False]) == bytes.fromhex("92 c3 c2")


@pytest.mark.parametrize("value", [1.0, {"a": 0.5}, {"a": [1, 2.5]}, [{"x": float("nan")}]])
def test_floats_are_refused_anywhere(value: Any) -> None:
    with pytest.raises(TypeError, match="float"):
        canonical_bytes(value)


@pytest.mark.parametrize("value", [{1: "a"}, {b"a": 1}, {"a": {None: 1}}, [{("t",): 1}], {True: 1}])
def test_keys_that_are_not_strings_are_refused(value: Any) -> None:
    with pytest.raises(TypeError, match="str keys"):
        canonical_bytes(value)


def test_decoding_gives_back_the_value() -> None:
    value = {"b": [1, -200, "x", None, {"c": True}], "a": b"\x00"}
    assert decode(canonical_bytes(value)) == value


def test_canonical_encoding_does_not_modify_its_input() -> None:
    value = {"b": {"d": 1, "c": 2}, "a": [3]}
    before = copy.deepcopy(value)
    canonical_bytes(value)
    assert value == before
    assert list(value) == ["b", "a"]


# --- deltas ----------------------------------------------------------------------------

OLD = {
    "game": "bigtwo",
    "to_act": 1,
    "hand": ["3C", "4D"],
    "last_play": {"seat": 0, "kind": "single", "cards": ["3D"]},
    "first_play": False,
    "result": None,
}


def test_an_unchanged_view_gives_the_empty_delta() -> None:
    assert diff(OLD, copy.deepcopy(OLD)) == []


def test_changing_one_nested_key_gives_one_operation_with_its_full_path() -> None:
    new = copy.deepcopy(OLD)
    new["last_play"]["seat"] = 2
    assert diff(OLD, new) == [[["last_play", "seat"], 2]]


def test_a_delta_carries_only_the_changed_keys() -> None:
    new = copy.deepcopy(OLD)
    new["to_act"] = 2
    new["hand"] = ["4D"]
    delta = diff(OLD, new)
    assert sorted(op[0][0] for op in delta) == ["hand", "to_act"]


def test_a_changed_list_is_replaced_whole() -> None:
    new = copy.deepcopy(OLD)
    new["hand"].append("5H")
    assert diff(OLD, new) == [[["hand"], ["3C", "4D", "5H"]]]


def test_an_added_key_is_set_and_a_removed_key_is_deleted() -> None:
    new = copy.deepcopy(OLD)
    del new["result"]
    new["legal_actions"] = [{"type": "pass"}]
    delta = diff(OLD, new)
    assert [["result"]] in delta
    assert [["legal_actions"], [{"type": "pass"}]] in delta
    assert len(delta) == 2


def test_a_map_replaced_by_null_and_back_is_set_whole() -> None:
    cleared = dict(OLD, last_play=None)
    assert diff(OLD, cleared) == [[["last_play"], None]]
    assert diff(cleared, OLD) == [[["last_play"], OLD["last_play"]]]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (1, True),
        (0, False),
        (True, 1),
        ([1], [True]),
        ([0, 1], [False, 1]),
        ({"n": [1]}, {"n": [True]}),
        ([{"x": 1}], [{"x": True}]),
        ("1", 1),
        ([], ()),
    ],
)
def test_a_change_of_type_is_caught_even_where_python_calls_the_values_equal(before: Any, after: Any) -> None:
    old, new = {"k": before}, {"k": after}
    delta = diff(old, new)
    assert len(delta) == 1
    assert view_hash(apply_delta(old, delta)) == view_hash(new)


def test_applying_the_delta_gives_the_new_view_exactly() -> None:
    new = {
        "game": "bigtwo",
        "to_act": None,
        "hand": [],
        "last_play": {"seat": 3, "kind": "pair", "cards": ["2D", "2S"], "extra": {"deep": 1}},
        "result": {"winner": 3, "scores": [-1, -2, -3, 6]},
        "legal_actions": [],
    }
    delta = diff(OLD, new)
    applied = apply_delta(OLD, delta)
    assert applied == new
    assert canonical_bytes(applied) == canonical_bytes(new)


def test_a_delta_survives_the_wire() -> None:
    new = copy.deepcopy(OLD)
    new["last_play"] = {"seat": 1, "kind": "single", "cards": ["2S"]}
    del new["first_play"]
    wire_delta = decode(canonical_bytes(diff(OLD, new)))
    assert view_hash(apply_delta(OLD, wire_delta)) == view_hash(new)


def test_applying_a_delta_leaves_the_old_view_untouched() -> None:
    old = copy.deepcopy(OLD)
    new = copy.deepcopy(OLD)
    new["last_play"]["cards"] = ["2S"]
    new["to_act"] = 3
    apply_delta(old, diff(old, new))
    assert old == OLD


def test_deltas_chain_over_several_views() -> None:
    views = [
        {"a": 1, "m": {"x": 1}},
        {"a": 2, "m": {"x": 1, "y": [1]}},
        {"m": {"y": [True]}},
        {"m": {}, "b": None},
    ]
    held = views[0]
    for previous, current in zip(views, views[1:]):
        held = apply_delta(held, diff(previous, current))
        assert view_hash(held) == view_hash(current)


def test_an_operation_needs_a_path() -> None:
    with pytest.raises(ValueError):
        apply_delta({"a": 1}, [[[], 1]])


def test_an_operation_has_one_or_two_elements() -> None:
    with pytest.raises(ValueError):
        apply_delta({"a": 1}, [[["a"], 1, 2]])


# --- the encoded view a room publishes from ------------------------------------------

_scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=8) | st.binary(max_size=8)
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=12,
)
_views = st.dictionaries(st.text(max_size=6), _values, max_size=18)


@settings(max_examples=400, deadline=None)
@given(_views)
def test_an_encoded_view_has_the_canonical_bytes_and_hash_of_the_view(view: dict) -> None:
    encoded = encode_view(view)
    assert encoded.data == canonical_bytes(view)
    assert encoded.hash == view_hash(view)


@settings(max_examples=400, deadline=None)
@given(_views, _views)
def test_a_delta_from_encoded_views_has_the_bytes_of_the_canonical_delta(old: dict, new: dict) -> None:
    assert delta_bytes(encode_view(old), encode_view(new)) == canonical_bytes(diff(old, new))


def test_an_encoded_view_of_sixteen_keys_or_more_takes_the_larger_map_header() -> None:
    view = {f"k{i:02d}": i for i in range(20)}
    assert encode_view(view).data == canonical_bytes(view) and encode_view(view).data[0] == 0xDE


@pytest.mark.parametrize("delta", [
    [[["hand", "0"], "X"]],        # a path through a list, not a map
    [[[1], "X"]],                  # a key that is not a string
    [[["missing"]]],               # deleting what is not there
    [[["a"], 1, 2]],               # neither [path] nor [path, value]
])
def test_a_delta_that_does_not_fit_the_view_is_refused(delta) -> None:
    view = {"hand": ["3C", "4D"], "a": 0}
    with pytest.raises(ValueError):
        apply_delta(view, delta)
    assert view == {"hand": ["3C", "4D"], "a": 0}
