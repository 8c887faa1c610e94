"""Join data passes one door, `GameRules.accepted_join`: its shape is checked
before any game code sees it, and whatever a player sends, every game
answers with the data it keeps or InvalidJoin, never another exception
(one such error once stopped a whole batch of joins at the lobby)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablehost.games.engine.joins import InvalidJoin, JoinShape, Text, TextList, check_shape
from tablehost.games.engine.rules import GameRules
from tablehost.games.registry import BUILT_IN
from tests.testgames.trio import RULES as TRIO

GAMES = [*BUILT_IN, TRIO]
SHAPES = (JoinShape({"deck": Text(8)}), JoinShape({"class": Text(8), "cards": TextList(3, 8)},
                                                    optional=frozenset({"class"})))

# What msgpack can carry: the shapes players can send (keys of any kind, nesting, floats).
scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=False) \
    | st.text(max_size=70) | st.binary(max_size=20)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=5)
                      | st.dictionaries(st.text(max_size=10) | st.binary(max_size=5) | st.integers(), inner, max_size=4),
                      max_leaves=20)
join_data = st.dictionaries(st.sampled_from(["deck", "class", "cards", "league", "mark"]) | st.text(max_size=8)
                            | st.binary(max_size=4), values, max_size=4) | values


@pytest.mark.parametrize("rules", GAMES, ids=lambda rules: rules.name)
@given(data=join_data)
def test_any_join_data_is_kept_or_refused_with_invalid_join_never_another_error(rules: GameRules, data) -> None:
    try:
        kept = rules.accepted_join(data)
    except InvalidJoin as refusal:
        assert str(refusal), "a refusal says why"
        return
    assert type(kept) is dict and all(type(key) is str for key in kept)
    assert rules.accepted_join(kept) == kept, "kept data passes again (a replay checks it again)"


def test_mixed_string_and_bytes_keys_are_refused_before_the_game_sees_them() -> None:
    """The request that once wedged seating: a map with str and bytes keys."""
    for rules in GAMES:
        with pytest.raises(InvalidJoin, match="keys are strings"):
            rules.accepted_join({"deck": "mage-basic", b"deck": "x"})


def test_a_game_without_shapes_takes_only_an_empty_map() -> None:
    assert check_shape({}, ()) == {}
    with pytest.raises(InvalidJoin, match="takes no join data"):
        check_shape({"deck": "x"}, ())


@pytest.mark.parametrize(("data", "reason"), [
    ([], "join data is a map, not a list"),
    ({"deck": "toolongname"}, "deck is at most 8 characters, not 11"),
    ({"cards": ["a", "b", "c", "d"]}, "cards has at most 3 items, not 4"),
    ({"cards": ["a", 1]}, "each of cards is a string, not int"),
    ({"class": "x"}, "none of what this game takes"),
    ({"deck": "x", "cards": []}, "none of what this game takes"),
])
def test_a_shape_refuses_what_it_does_not_describe_and_says_what_it_takes(data, reason: str) -> None:
    with pytest.raises(InvalidJoin, match=reason):
        check_shape(data, SHAPES)


def test_a_shape_keeps_optional_fields_optional() -> None:
    assert check_shape({"cards": ["a"]}, SHAPES) == {"cards": ["a"]}
    assert check_shape({"cards": ["a"], "class": "m"}, SHAPES) == {"cards": ["a"], "class": "m"}


def test_an_error_of_the_games_own_check_is_a_refusal_with_its_cause() -> None:
    class Careless(GameRules):
        name = "careless"
        join_shapes = (JoinShape({"n": Text(4)}),)

        def check_join(self, join):
            return {"n": int(join["n"])}  # ValueError on "x": the game's bug

    with pytest.raises(InvalidJoin, match="careless could not read this join data") as refused:
        Careless().accepted_join({"n": "x"})
    assert isinstance(refused.value.__cause__, ValueError)
