"""DrawPlugin, ported from the decklet card engine: one test per rule of the original."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tablehost.games.engine.draw import (
    CARD_DRAWN,
    DECK_RESHUFFLED,
    DRAW_CARD_ACTION,
    DRAW_VAR_RESHUFFLE_FROM,
    DRAW_VAR_RESHUFFLE_KEEP_TOP,
    DrawPlugin,
    create_draw_card_action,
    player_hand_zone_id,
)
from tablehost.games.engine.engine import Engine
from tablehost.games.engine.errors import RuleError
from tablehost.games.engine.plugin import Action, Event
from tablehost.games.engine.state import State, new_state
from tablehost.games.engine.views import view_hash

ENGINE = Engine([DrawPlugin])
PLAYERS = [{"id": "p1", "name": "Alice", "seat": 0, "status": "active", "data": {}}]


def table(deck: list[str], discard: list[str] | None = None, **variables: Any) -> State:
    """A state with a deck (cards[0] on top) and, if given, a discard pile."""
    state = new_state("g1", copy.deepcopy(PLAYERS), b"key-42")
    state["zones"]["deck"] = {"id": "deck", "type": "deck", "owner_id": None, "cards": list(deck)}
    if discard is not None:
        state["zones"]["discard"] = {"id": "discard", "type": "discard", "owner_id": None, "cards": list(discard)}
    state["variables"].update(variables)
    return state


def reshuffling(deck: list[str], discard: list[str], keep_top: bool | None = None) -> State:
    variables: dict[str, Any] = {DRAW_VAR_RESHUFFLE_FROM: "discard"}
    if keep_top is not None:
        variables[DRAW_VAR_RESHUFFLE_KEEP_TOP] = keep_top
    state = table(deck, discard)
    state["variables"].update(variables)
    return state


def cards(state: State, zone_id: str) -> list[str]:
    return state["zones"][zone_id]["cards"]


# --- exported names and values -----------------------------------------------------


def test_the_plugin_is_draw_cards_version_1_0_0() -> None:
    assert (DrawPlugin.id, DrawPlugin.name, DrawPlugin.version) == ("draw", "Draw Cards", "1.0.0")


def test_the_plugin_handles_draw_card_and_has_no_setup_or_triggers() -> None:
    assert [handler.type for handler in DrawPlugin.actions] == [DRAW_CARD_ACTION]
    assert DrawPlugin.setup is None
    assert DrawPlugin.triggers == ()


def test_the_reshuffle_variable_keys_are_the_seeds() -> None:
    assert DRAW_VAR_RESHUFFLE_FROM == "draw.reshuffleFrom"
    assert DRAW_VAR_RESHUFFLE_KEEP_TOP == "draw.reshuffleKeepTop"


def test_player_hand_zone_id_is_player_id_hand() -> None:
    assert player_hand_zone_id("p1") == "player:p1:hand"


def test_create_draw_card_action_names_the_player_count_and_zones() -> None:
    assert create_draw_card_action("p1", 1) == Action(DRAW_CARD_ACTION, "p1", {"count": 1})
    assert create_draw_card_action("p1", 3, "deck", "board") == Action(
        DRAW_CARD_ACTION, "p1", {"count": 3, "from_zone_id": "deck", "to_zone_id": "board"}
    )


# --- defaults ------------------------------------------------------------------------


def test_count_defaults_to_one() -> None:
    state, events = ENGINE.dispatch(table(["a", "b"]), Action(DRAW_CARD_ACTION, "p1", {}))
    assert cards(state, "player:p1:hand") == ["a"]
    assert events[-1].payload["count"] == 1


def test_a_null_count_also_takes_the_default() -> None:
    state, _ = ENGINE.dispatch(table(["a", "b"]), Action(DRAW_CARD_ACTION, "p1", {"count": None}))
    assert cards(state, "player:p1:hand") == ["a"]


def test_the_source_defaults_to_the_deck() -> None:
    state = table(["a"])
    state["zones"]["other"] = {"id": "other", "type": "pile", "owner_id": None, "cards": ["x"]}
    state, _ = ENGINE.dispatch(state, create_draw_card_action("p1", 1))
    assert cards(state, "player:p1:hand") == ["a"]
    assert cards(state, "other") == ["x"]


def test_the_destination_defaults_to_the_players_hand() -> None:
    state, _ = ENGINE.dispatch(table(["a", "b"]), create_draw_card_action("p1", 2))
    assert cards(state, player_hand_zone_id("p1")) == ["a", "b"]


def test_the_destination_defaults_to_hand_when_no_player_draws() -> None:
    state, _ = ENGINE.dispatch(table(["a", "b"]), create_draw_card_action(None, 1))
    assert cards(state, "hand") == ["a"]


def test_custom_source_and_destination_zones_are_honoured() -> None:
    state = table(["a"])
    state["zones"]["pile"] = {"id": "pile", "type": "pile", "owner_id": None, "cards": ["x", "y", "z"]}
    state, _ = ENGINE.dispatch(state, create_draw_card_action("p1", 2, "pile", "board"))
    assert cards(state, "board") == ["x", "y"]
    assert cards(state, "pile") == ["z"]
    assert cards(state, "deck") == ["a"]


# --- the destination zone ----------------------------------------------------------


def test_a_missing_hand_zone_is_created_with_type_hand_and_its_owner() -> None:
    state, _ = ENGINE.dispatch(table(["a"]), create_draw_card_action("p1", 1))
    assert state["zones"]["player:p1:hand"] == {
        "id": "player:p1:hand",
        "type": "hand",
        "owner_id": "p1",
        "cards": ["a"],
    }


def test_a_zone_created_for_a_system_draw_has_no_owner() -> None:
    state, _ = ENGINE.dispatch(table(["a"]), create_draw_card_action(None, 1, to_zone_id="board"))
    assert state["zones"]["board"] == {"id": "board", "type": "hand", "owner_id": None, "cards": ["a"]}


def test_an_existing_destination_keeps_its_cards_and_gets_new_ones_appended() -> None:
    state = table(["a", "b"])
    state["zones"]["player:p1:hand"] = {"id": "player:p1:hand", "type": "hand", "owner_id": "p1", "cards": ["z"]}
    state, _ = ENGINE.dispatch(state, create_draw_card_action("p1", 2))
    assert cards(state, "player:p1:hand") == ["z", "a", "b"]


# --- which cards move ----------------------------------------------------------------


def test_draw_moves_cards_from_the_top_of_the_deck() -> None:
    state, _ = ENGINE.dispatch(table(["top", "second", "third", "bottom"]), create_draw_card_action("p1", 2))
    assert cards(state, "player:p1:hand") == ["top", "second"]
    assert cards(state, "deck") == ["third", "bottom"]


# --- CARD_DRAWN ------------------------------------------------------------------------


def test_card_drawn_carries_player_id_card_ids_and_count_and_names_the_player() -> None:
    _, events = ENGINE.dispatch(table(["a", "b", "c"]), create_draw_card_action("p1", 2))
    assert events == [Event(CARD_DRAWN, {"player_id": "p1", "card_ids": ["a", "b"], "count": 2}, "p1")]


def test_a_system_draw_has_no_player_id_in_its_card_drawn_event() -> None:
    _, events = ENGINE.dispatch(table(["a", "b"]), create_draw_card_action(None, 1))
    assert events == [Event(CARD_DRAWN, {"card_ids": ["a"], "count": 1})]
    assert events[0].player_id is None


# --- reshuffling the discard pile into the deck -------------------------------------


def test_an_empty_deck_reshuffles_the_discard_pile_but_keeps_its_top_card() -> None:
    state, events = ENGINE.dispatch(reshuffling([], ["d1", "d2", "d3", "top"]), create_draw_card_action("p1", 1))
    assert cards(state, "discard") == ["top"]
    drawn = cards(state, "player:p1:hand")
    assert sorted(drawn + cards(state, "deck")) == ["d1", "d2", "d3"]
    assert events[0] == Event(DECK_RESHUFFLED, {"from_zone_id": "deck", "count": 2})


def test_keep_top_true_is_the_same_as_the_default() -> None:
    implicit, _ = ENGINE.dispatch(reshuffling([], ["d1", "d2", "top"]), create_draw_card_action("p1", 1))
    explicit, _ = ENGINE.dispatch(
        reshuffling([], ["d1", "d2", "top"], keep_top=True), create_draw_card_action("p1", 1)
    )
    assert implicit["zones"] == explicit["zones"]
    assert implicit["rng"] == explicit["rng"]
    assert implicit["rng"]["streams"] == {"draw.reshuffle": 1}


def test_keep_top_false_reshuffles_the_whole_discard_pile() -> None:
    state, events = ENGINE.dispatch(
        reshuffling([], ["d1", "d2", "top"], keep_top=False), create_draw_card_action("p1", 1)
    )
    assert cards(state, "discard") == []
    assert sorted(cards(state, "player:p1:hand") + cards(state, "deck")) == ["d1", "d2", "top"]
    assert events[0] == Event(DECK_RESHUFFLED, {"from_zone_id": "deck", "count": 2})


def test_the_reshuffle_happens_only_when_the_deck_runs_out_mid_draw() -> None:
    state, events = ENGINE.dispatch(reshuffling(["a"], ["d1", "d2", "d3", "top"]), create_draw_card_action("p1", 3))
    hand = cards(state, "player:p1:hand")
    assert hand[0] == "a"
    assert sorted(hand[1:] + cards(state, "deck")) == ["d1", "d2", "d3"]
    assert events == [
        Event(DECK_RESHUFFLED, {"from_zone_id": "deck", "count": 1}),
        Event(CARD_DRAWN, {"player_id": "p1", "card_ids": hand, "count": 3}, "p1"),
    ]


def test_deck_reshuffled_counts_the_cards_left_in_the_source_after_the_draw_and_comes_first() -> None:
    discard = ["d1", "d2", "d3", "d4", "d5", "top"]
    _, events = ENGINE.dispatch(reshuffling([], discard), create_draw_card_action("p1", 2))
    assert [event.type for event in events] == [DECK_RESHUFFLED, CARD_DRAWN]
    assert events[0].payload == {"from_zone_id": "deck", "count": 3}


def test_a_deck_that_does_not_run_out_is_not_reshuffled() -> None:
    state, events = ENGINE.dispatch(reshuffling(["a", "b"], ["d1", "d2"]), create_draw_card_action("p1", 2))
    assert [event.type for event in events] == [CARD_DRAWN]
    assert cards(state, "discard") == ["d1", "d2"]
    assert state["rng"]["streams"] == {}, "no stream opened"


def test_the_reshuffle_uses_the_games_prng_and_is_reproducible() -> None:
    start = reshuffling([], [f"d{n}" for n in range(20)] + ["top"])
    first, _ = ENGINE.dispatch(start, create_draw_card_action("p1", 20))
    again, _ = ENGINE.dispatch(start, create_draw_card_action("p1", 20))
    assert first == again
    assert first["rng"]["streams"] == {"draw.reshuffle": 1}
    assert cards(first, "player:p1:hand") != [f"d{n}" for n in range(20)], "the pile was shuffled"


# --- the seed's three error messages, word for word ---------------------------------


def assert_draw_fails(state: State, action: Action, message: str) -> None:
    before, before_hash = copy.deepcopy(state), view_hash(state)
    with pytest.raises(RuleError) as refusal:
        ENGINE.dispatch(state, action)
    assert str(refusal.value) == message
    assert refusal.value.message == message
    assert state == before
    assert view_hash(state) == before_hash


def test_a_missing_source_zone_fails_with_the_seeds_message() -> None:
    assert_draw_fails(
        table(["a"]),
        create_draw_card_action("p1", 1, from_zone_id="nowhere"),
        "Cannot draw: source zone nowhere not found",
    )


def test_running_out_without_reshuffle_fails_with_the_seeds_message() -> None:
    assert_draw_fails(
        table(["a"], ["d1", "d2"]),
        create_draw_card_action("p1", 3),
        "Cannot draw 3 cards: zone deck ran out after drawing 1",
    )


def test_running_out_with_an_empty_discard_pile_fails_with_the_seeds_message() -> None:
    assert_draw_fails(
        reshuffling(["a"], []),
        create_draw_card_action("p1", 3),
        "Cannot draw 3 cards: zone deck ran out after drawing 1 (discard pile also empty)",
    )


def test_a_discard_pile_holding_only_its_kept_top_card_counts_as_empty() -> None:
    assert_draw_fails(
        reshuffling(["a"], ["top"]),
        create_draw_card_action("p1", 3),
        "Cannot draw 3 cards: zone deck ran out after drawing 1 (discard pile also empty)",
    )


def test_a_failed_draw_creates_no_hand_zone() -> None:
    state = table([])
    with pytest.raises(RuleError):
        ENGINE.dispatch(state, create_draw_card_action("p1", 1))
    assert "player:p1:hand" not in state["zones"]
