"""The rules engine: plugins composed, actions dispatched
atomically, state as plain data that round-trips through msgpack, replays deterministic.
"""

from __future__ import annotations

import copy

import msgpack
import pytest

from tablehost.games.bigtwo.game import RULES
from tablehost.games.engine.draw import DrawPlugin, create_draw_card_action
from tablehost.games.engine.engine import Context, Engine
from tablehost.games.engine.errors import Reason, RuleError
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import Match
from tablehost.games.engine.plugin import Action, ActionHandler, Event, Plugin
from tablehost.games.engine.state import State, add_zone, create_zone, move_card, player_hand_zone_id
from tablehost.games.engine.views import canonical_bytes, view_hash

PLAYERS = [
    {"id": f"p{seat}", "name": f"P{seat}", "seat": seat, "status": "active", "data": {}} for seat in range(2)
]


def _setup_deck(ctx: Context) -> None:
    deck = create_zone("deck", "deck")
    deck["cards"] = [f"c{n}" for n in range(10)]
    add_zone(ctx.state, deck)
    add_zone(ctx.state, create_zone("discard", "discard"))
    ctx.emit("SET_UP", {"cards": 10})


def _discard_then_refuse(action: Action, ctx: Context) -> None:
    """Changes the working state, then refuses: the change must not survive."""
    state = ctx.state
    move_card(state, state["zones"]["deck"]["cards"][0], "deck", "discard")
    state["variables"]["touched"] = True
    ctx.random("test.refused").next_u64()
    raise RuleError(Reason.ILLEGAL_MOVE, "refused after mutating")


def _discard_top(action: Action, ctx: Context) -> None:
    state = ctx.state
    card = state["zones"]["deck"]["cards"][0]
    move_card(state, card, "deck", "discard")
    ctx.emit("DISCARDED", {"card": card}, action.player_id)


def _shuffle_deck(action: Action, ctx: Context) -> None:
    ctx.random("test.shuffle").shuffle(ctx.state["zones"]["deck"]["cards"])


TEST_PLUGIN = Plugin(
    id="test",
    name="Test",
    version="0.0.1",
    actions=(
        ActionHandler("REFUSE", _discard_then_refuse),
        ActionHandler("DISCARD", _discard_top),
        ActionHandler("SHUFFLE", _shuffle_deck),
    ),
    setup=_setup_deck,
)


@pytest.fixture
def engine() -> Engine:
    return Engine([DrawPlugin, TEST_PLUGIN])


@pytest.fixture
def state(engine: Engine) -> State:
    state, _ = engine.create_game("g1", PLAYERS, random_key=b"key-42")
    return state


def assert_refused_without_change(engine: Engine, state: State, action: Action, reason: Reason) -> None:
    before_hash = view_hash(state)
    before = copy.deepcopy(state)
    with pytest.raises(RuleError) as refusal:
        engine.dispatch(state, action)
    assert refusal.value.reason is reason
    assert view_hash(state) == before_hash
    assert state == before


# --- state layout ---------------------------------------------------------


def test_a_new_game_has_zones_players_variables_position_and_rng(state: State) -> None:
    assert set(state) == {"game_id", "zones", "players", "variables", "position", "rng"}
    assert state["game_id"] == "g1"
    assert state["zones"]["deck"]["cards"][0] == "c0"
    assert state["players"] == [{**player, "skills": []} for player in PLAYERS], "no skill held yet"
    assert state["position"] == {"round": 0, "turn": 0, "phase": "", "current": 0, "skips": []}
    assert state["rng"] == {"key": b"key-42".hex(), "streams": {}}


def test_setup_events_are_returned_by_create_game(engine: Engine) -> None:
    _, events = engine.create_game("g1", PLAYERS, random_key=b"key-1")
    assert events == [Event("SET_UP", {"cards": 10})]


def test_initial_variables_are_in_the_state_before_setup_runs(engine: Engine) -> None:
    state, _ = engine.create_game("g1", PLAYERS, random_key=b"key-1", initial_variables={"house_rule": "x"})
    assert state["variables"] == {"house_rule": "x"}


def test_create_game_does_not_keep_references_to_the_callers_players(engine: Engine) -> None:
    players = copy.deepcopy(PLAYERS)
    state, _ = engine.create_game("g1", players, random_key=b"key-1")
    state["players"][0]["data"]["x"] = 1
    assert players == PLAYERS


def test_player_hand_zone_ids_follow_the_seed_convention() -> None:
    assert player_hand_zone_id("p1") == "player:p1:hand"


# --- dispatch ----------------------------------------------------------------------


def test_an_accepted_action_returns_a_new_state_and_its_events(engine: Engine, state: State) -> None:
    before = copy.deepcopy(state)
    after, events = engine.dispatch(state, Action("DISCARD", "p0"))
    assert after["zones"]["discard"]["cards"] == ["c0"]
    assert events == [Event("DISCARDED", {"card": "c0"}, "p0")]
    assert state == before, "dispatch works on a copy, never on the caller's state"


def test_a_rejected_action_leaves_the_state_byte_identical(engine: Engine, state: State) -> None:
    assert_refused_without_change(engine, state, Action("REFUSE", "p0"), Reason.ILLEGAL_MOVE)


def test_a_rejected_action_does_not_advance_the_prng(engine: Engine, state: State) -> None:
    with pytest.raises(RuleError):
        engine.dispatch(state, Action("REFUSE", "p0"))
    assert state["rng"]["streams"] == {}


def test_an_unknown_action_is_refused_as_unknown_action(engine: Engine, state: State) -> None:
    assert_refused_without_change(engine, state, Action("FLY", "p0"), Reason.UNKNOWN_ACTION)


def test_a_failing_draw_leaves_no_zone_behind(engine: Engine, state: State) -> None:
    assert_refused_without_change(
        engine, state, create_draw_card_action("p0", 11), Reason.ILLEGAL_MOVE
    )


def test_two_plugins_may_not_handle_the_same_action() -> None:
    twin = Plugin(id="twin", name="Twin", version="1", actions=(ActionHandler("DISCARD", _discard_top),))
    with pytest.raises(ValueError, match="DISCARD"):
        Engine([TEST_PLUGIN, twin])


def test_each_shuffle_draws_from_a_stream_of_its_own_recorded_in_the_state(engine: Engine, state: State) -> None:
    first, _ = engine.dispatch(state, Action("SHUFFLE"))
    again, _ = engine.dispatch(state, Action("SHUFFLE"))
    assert first == again, "same state and action, same shuffle"
    assert first["rng"]["streams"] == {"test.shuffle": 1}
    second, _ = engine.dispatch(first, Action("SHUFFLE"))
    assert second["rng"]["streams"] == {"test.shuffle": 2}
    assert second["zones"]["deck"]["cards"] != first["zones"]["deck"]["cards"]


def test_streams_of_one_purpose_and_of_two_purposes_are_all_different(engine: Engine, state: State) -> None:
    ctx = Context(engine, copy.deepcopy(state), 0)
    streams = [ctx.random(purpose) for purpose in ("a", "a", "b", "c")]
    draws = [[stream.next_u64() for _ in range(4)] for stream in streams]
    assert len({tuple(numbers) for numbers in draws}) == 4
    assert ctx.state["rng"]["streams"] == {"a": 2, "b": 1, "c": 1}
    replayed = Context(engine, copy.deepcopy(state), 0)
    again = replayed.random("a")
    assert [again.next_u64() for _ in range(4)] == draws[0], "the same stream again from the same state"


# --- plain data (checkpoints are msgpack) ------------------------------------


def test_state_round_trips_through_msgpack_exactly_after_setup(state: State) -> None:
    assert msgpack.unpackb(msgpack.packb(state)) == state


def test_big_two_state_round_trips_through_msgpack_after_setup_and_after_moves() -> None:
    match = Match(RULES, TableSeed.numbered(7), ["a", "b", "c", "d"], {}, 1_000)
    assert msgpack.unpackb(msgpack.packb(match.state)) == match.state
    for step in range(8):
        seat = RULES.to_act(match.state)
        assert seat is not None
        match.act(seat, RULES.legal_actions(match.state, seat)[-1], 1_000 + step)
        assert msgpack.unpackb(msgpack.packb(match.state)) == match.state
    assert canonical_bytes(msgpack.unpackb(msgpack.packb(match.state))) == match.state_bytes()


# --- the Big Two table refuses without change too ---------------------------------


@pytest.mark.parametrize(
    ("seat_offset", "action", "reason"),
    [
        (1, {"type": "pass"}, Reason.NOT_YOUR_TURN),
        (0, {"type": "pass"}, Reason.ILLEGAL_MOVE),  # the first play may not be a pass
        (0, {"type": "fold"}, Reason.UNKNOWN_ACTION),
        (0, {"type": "play", "cards": "3C"}, Reason.MALFORMED),
        (0, ["play", "3C"], Reason.MALFORMED),
        (0, {"type": "play", "cards": ["2S", "2S"]}, Reason.ILLEGAL_MOVE),
    ],
)
def test_a_refused_big_two_command_changes_nothing(seat_offset: int, action: object, reason: Reason) -> None:
    match = Match(RULES, TableSeed.numbered(3), ["a", "b", "c", "d"], {}, 0)
    seat = (RULES.to_act(match.state) + seat_offset) % 4
    before_hash, before = match.state_hash(), copy.deepcopy(match.state)
    with pytest.raises(RuleError) as refusal:
        match.act(seat, action, 5)
    assert refusal.value.reason is reason
    assert match.state_hash() == before_hash
    assert match.state == before
    assert match.commands == []


# --- determinism -------------------------------------------------------------


def test_the_same_seed_and_commands_give_the_same_events_and_final_hash() -> None:
    def play(seed: int) -> Match:
        match = Match(RULES, TableSeed.numbered(seed), ["a", "b", "c", "d"], {}, 0, keep_events=True)
        for step in range(20):
            seat = RULES.to_act(match.state)
            match.act(seat, RULES.legal_actions(match.state, seat)[0], step)
        return match

    first, second = play(11), play(11)
    assert first.events and first.events == second.events
    assert first.state_hash() == second.state_hash()
    assert play(12).state_hash() != first.state_hash()


def test_a_match_keeps_no_history_of_events_unless_asked() -> None:
    """A table never reads a game's events: each move returns its own, and
    the match keeps none, so a long game's memory does not grow with them."""
    match = Match(RULES, TableSeed.numbered(3), ["a", "b", "c", "d"], {}, 0)
    returned = []
    for step in range(8):
        seat = RULES.to_act(match.state)
        returned += match.act(seat, RULES.legal_actions(match.state, seat)[0], step)
    assert returned and match.events == []
