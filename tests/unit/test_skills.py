"""Skills players gain and lose during a game, kept in the state by name.

A game declares each skill once, in a plugin; granting or revoking one changes only a
list of names in the player's record. So a refused action leaves no skill behind, and a
checkpoint (the state through msgpack) or a replay of the accepted actions has every
skill gained. Skills' handlers run with the plugins' triggers, in seat order from the
current player, the game's own rules last.
"""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablehost.games.engine import timings
from tablehost.games.engine.draw import DrawPlugin
from tablehost.games.engine.engine import Context, Engine
from tablehost.games.engine.errors import Reason, RuleError
from tablehost.games.engine.flow import Phase, begin_turn, draw_phase
from tablehost.games.engine.plugin import Action, ActionHandler, Plugin, Skill, Trigger
from tablehost.games.engine.skills import UnknownSkillError, grant_skill, held_skills, revoke_skill
from tablehost.games.engine.state import State, add_zone, copy_state, create_zone, player_hand_zone_id
from tablehost.games.engine.views import canonical_bytes

PLAYERS = [
    {"id": f"p{seat}", "name": f"P{seat}", "seat": seat, "status": "active", "data": {}} for seat in range(4)
]
PHASES = (Phase("prepare"), Phase("draw", body=draw_phase), Phase("play", interactive=True))


# --- the skills of the test game --------------------------------------------------


def _one_more_card(ctx: Context, seat: int, data: timings.DrawNCardsData) -> None:
    """Haste: its holder draws one more card in the draw phase."""
    if data.player_id == ctx.state["players"][seat]["id"]:
        data.count += 1


def _witness(ctx: Context, seat: int, data: Any) -> None:
    """Witness: notes, in the state, each seat holding it as it sees a draw."""
    ctx.state["variables"].setdefault("witnessed", []).append(f"witness@{seat}")


def _no_drawing(ctx: Context, seat: int, data: Any) -> bool:
    """Drought: every draw phase draws nothing while a seat holds it."""
    return True


def _learn_haste(ctx: Context, seat: int, data: Any) -> None:
    """Apprentice: its holder learns Haste the first time it sees a draw."""
    grant_skill(ctx, seat, "haste")


def _rule_witness(ctx: Context, data: Any) -> None:
    ctx.state["variables"].setdefault("witnessed", []).append("rule")


def _seat_2_trigger(ctx: Context, data: Any) -> None:
    ctx.state["variables"].setdefault("witnessed", []).append("trigger@2")


def _setup(ctx: Context) -> None:
    deck = create_zone("deck", "deck")
    deck["cards"] = [f"c{n:02d}" for n in range(60)]
    add_zone(ctx.state, deck)


def _turn(action: Action, ctx: Context) -> None:
    begin_turn(ctx, action.payload["seat"], PHASES)


def _grant(action: Action, ctx: Context) -> None:
    grant_skill(ctx, action.payload["seat"], action.payload["skill"])


def _revoke(action: Action, ctx: Context) -> None:
    revoke_skill(ctx, action.payload["seat"], action.payload["skill"])


def _grant_then_refuse(action: Action, ctx: Context) -> None:
    """A general chosen, then refused (already taken): its skill was granted first."""
    grant_skill(ctx, action.payload["seat"], action.payload["skill"])
    raise RuleError(Reason.ILLEGAL_MOVE, "that general is taken")


GENERALS = Plugin(
    id="generals",
    name="Generals",
    version="0",
    actions=(
        ActionHandler("TURN", _turn),
        ActionHandler("GRANT", _grant),
        ActionHandler("REVOKE", _revoke),
        ActionHandler("GRANT_THEN_REFUSE", _grant_then_refuse),
    ),
    setup=_setup,
    triggers=(
        Trigger(timings.DRAW_N_CARDS, _rule_witness),
        Trigger(timings.DRAW_N_CARDS, _seat_2_trigger, seat=2),
    ),
    skills=(
        Skill("haste", triggers=((timings.DRAW_N_CARDS, _one_more_card),)),
        Skill("witness", triggers=((timings.DRAW_N_CARDS, _witness),)),
        Skill("drought", triggers=((timings.DRAW_N_CARDS, _no_drawing),)),
        Skill("apprentice", triggers=((timings.DRAW_N_CARDS, _learn_haste),)),
    ),
)


def _engine() -> Engine:
    return Engine([DrawPlugin, GENERALS])


def _start(engine: Engine) -> State:
    state, _ = engine.create_game("g", PLAYERS, random_key=b"key-5")
    return state


def _act(engine: Engine, state: State, action_type: str, **payload: Any) -> State:
    state, _ = engine.dispatch(state, Action(action_type, None, payload))
    return state


def _hand_size(state: State, seat: int) -> int:
    zone = state["zones"].get(player_hand_zone_id(f"p{seat}"))
    return 0 if zone is None else len(zone["cards"])


def _drawn_in_a_turn(engine: Engine, state: State, seat: int) -> int:
    """How many cards `seat` draws if its turn begins now."""
    return _hand_size(_act(engine, state, "TURN", seat=seat), seat) - _hand_size(state, seat)


# --- granting and revoking ----------------------------------------------------------


def test_a_new_game_records_no_skills_for_anyone() -> None:
    state = _start(_engine())
    assert [player["skills"] for player in state["players"]] == [[], [], [], []]


def test_a_skill_granted_mid_game_changes_a_later_draw_for_its_holder_only() -> None:
    engine = _engine()
    state = _start(engine)
    assert _drawn_in_a_turn(engine, state, 1) == 2
    state = _act(engine, state, "GRANT", seat=1, skill="haste")
    assert state["players"][1]["skills"] == ["haste"], "the state records the skill by name"
    assert _drawn_in_a_turn(engine, state, 1) == 3
    assert _drawn_in_a_turn(engine, state, 0) == 2


def test_a_skill_is_held_once_so_granting_it_again_changes_nothing() -> None:
    engine = _engine()
    state = _act(engine, _start(engine), "GRANT", seat=1, skill="haste")
    again = _act(engine, state, "GRANT", seat=1, skill="haste")
    assert canonical_bytes(again) == canonical_bytes(state)
    assert _drawn_in_a_turn(engine, again, 1) == 3


def test_revoking_a_skill_stops_its_handlers() -> None:
    engine = _engine()
    state = _act(engine, _start(engine), "GRANT", seat=1, skill="haste")
    state = _act(engine, state, "REVOKE", seat=1, skill="haste")
    assert held_skills(state, 1) == ()
    assert _drawn_in_a_turn(engine, state, 1) == 2


def test_grant_and_revoke_say_whether_they_changed_anything() -> None:
    engine = _engine()
    ctx = Context(engine, _start(engine), 0)
    assert grant_skill(ctx, 0, "haste") is True
    assert grant_skill(ctx, 0, "haste") is False
    assert revoke_skill(ctx, 0, "haste") is True
    assert revoke_skill(ctx, 0, "haste") is False


def test_a_skill_no_plugin_declares_is_refused_by_name() -> None:
    engine = _engine()
    state = _start(engine)
    before = canonical_bytes(state)
    with pytest.raises(UnknownSkillError, match="'flight'"):
        _act(engine, state, "GRANT", seat=1, skill="flight")
    with pytest.raises(UnknownSkillError, match="'flight'"):
        _act(engine, state, "REVOKE", seat=1, skill="flight")
    assert canonical_bytes(state) == before


def test_a_skill_for_a_seat_not_at_the_table_is_refused() -> None:
    engine = _engine()
    with pytest.raises(ValueError, match="no seat 4"):
        _act(engine, _start(engine), "GRANT", seat=4, skill="haste")


def test_two_plugins_may_not_declare_the_same_skill() -> None:
    twin = Plugin(id="twin", name="Twin", version="1", skills=(Skill("haste"),))
    with pytest.raises(ValueError, match="haste"):
        Engine([GENERALS, twin])


def test_a_skill_given_with_the_players_is_held_from_setup() -> None:
    engine = _engine()
    players = [dict(player) for player in PLAYERS]
    players[2]["skills"] = ["haste"]
    state, _ = engine.create_game("g", players, random_key=b"key-5")
    assert held_skills(state, 2) == ("haste",)
    assert _drawn_in_a_turn(engine, state, 2) == 3


# --- what a refused action, a checkpoint and a replay keep ---------------------------


def test_a_refused_action_that_granted_a_skill_leaves_the_state_byte_identical() -> None:
    engine = _engine()
    state = _start(engine)
    before = canonical_bytes(state)
    with pytest.raises(RuleError):
        _act(engine, state, "GRANT_THEN_REFUSE", seat=1, skill="haste")
    assert canonical_bytes(state) == before
    assert _drawn_in_a_turn(engine, state, 1) == 2, "the skill granted before the refusal never fires"


def test_a_checkpoint_keeps_every_skill_gained_and_they_fire_after_a_restore() -> None:
    engine = _engine()
    state = _act(engine, _start(engine), "GRANT", seat=1, skill="haste")
    checkpoint = msgpack.packb(state, use_bin_type=True)
    restored = msgpack.unpackb(checkpoint, raw=False)
    assert restored == state
    assert _drawn_in_a_turn(_engine(), restored, 1) == 3, "a fresh engine, as a restarted host builds"
    assert _drawn_in_a_turn(engine, copy_state(state), 1) == 3


def test_replaying_the_accepted_actions_rebuilds_every_skill() -> None:
    engine = _engine()
    actions = [
        Action("GRANT", None, {"seat": 1, "skill": "haste"}),
        Action("GRANT", None, {"seat": 3, "skill": "witness"}),
        Action("REVOKE", None, {"seat": 1, "skill": "haste"}),
        Action("GRANT", None, {"seat": 1, "skill": "witness"}),
        Action("TURN", None, {"seat": 1}),
    ]
    live = _start(engine)
    for action in actions:
        live, _ = engine.dispatch(live, action)
    replayed = _start(_engine())
    for action in actions:
        replayed, _ = _engine().dispatch(replayed, action)
    assert canonical_bytes(replayed) == canonical_bytes(live)
    assert live["variables"]["witnessed"] == ["witness@1", "trigger@2", "witness@3", "rule"]


def test_a_state_naming_a_skill_the_engine_does_not_declare_is_refused() -> None:
    engine = _engine()
    state = _start(engine)
    state["players"][0]["skills"] = ["vanished"]  # a checkpoint from another version of the game
    with pytest.raises(UnknownSkillError, match="'vanished'"):
        _act(engine, state, "TURN", seat=0)


# --- the order skills run in ----------------------------------------------------------


@pytest.mark.parametrize(
    ("current", "order"),
    [
        (1, ["witness@1", "trigger@2", "witness@2", "rule"]),
        (2, ["trigger@2", "witness@2", "witness@1", "rule"]),
        (3, ["witness@1", "trigger@2", "witness@2", "rule"]),
    ],
)
def test_skills_run_in_seat_order_from_the_current_player_after_that_seats_triggers_and_before_the_rules(
    current: int, order: list[str]
) -> None:
    engine = _engine()
    state = _start(engine)
    state = _act(engine, state, "GRANT", seat=2, skill="witness")  # granted first: order is by seat
    state = _act(engine, state, "GRANT", seat=1, skill="witness")
    state = _act(engine, state, "TURN", seat=current)
    assert state["variables"]["witnessed"] == order


def test_one_seats_skills_run_in_the_order_they_were_granted() -> None:
    engine = _engine()
    state = _start(engine)

    def granted(*names: str) -> State:
        held = state
        for name in names:
            held = _act(engine, held, "GRANT", seat=0, skill=name)
        return held

    drought_first = granted("drought", "witness")
    assert _drawn_in_a_turn(engine, drought_first, 0) == 0
    after = _act(engine, drought_first, "TURN", seat=0)
    assert "witnessed" not in after["variables"], "drought stopped the event before witness saw it"
    witness_first = granted("witness", "drought")
    assert _act(engine, witness_first, "TURN", seat=0)["variables"]["witnessed"] == ["witness@0"]


def test_a_skill_granted_by_a_handler_counts_from_the_next_timing() -> None:
    engine = _engine()
    state = _act(engine, _start(engine), "GRANT", seat=0, skill="apprentice")
    assert _drawn_in_a_turn(engine, state, 0) == 2
    state = _act(engine, state, "TURN", seat=0)
    assert held_skills(state, 0) == ("apprentice", "haste")
    assert _drawn_in_a_turn(engine, state, 0) == 3


# --- a property over any sequence of grants, revokes and refusals ---------------------

SKILL_ACTIONS = st.lists(
    st.tuples(
        st.sampled_from(["GRANT", "REVOKE", "GRANT_THEN_REFUSE"]),
        st.integers(0, 3),
        st.sampled_from(["haste", "witness"]),
    ),
    max_size=12,
)


@settings(max_examples=60, deadline=None)
@given(commands=SKILL_ACTIONS)
def test_the_skills_held_are_those_of_the_accepted_actions_and_survive_checkpoint_and_replay(
    commands: list[tuple[str, int, str]]
) -> None:
    engine = _engine()
    state = _start(engine)
    held: list[set[str]] = [set() for _ in PLAYERS]
    accepted: list[Action] = []
    for action_type, seat, skill in commands:
        action = Action(action_type, None, {"seat": seat, "skill": skill})
        try:
            state, _ = engine.dispatch(state, action)
        except RuleError:
            continue
        accepted.append(action)
        if action_type == "GRANT":
            held[seat].add(skill)
        else:
            held[seat].discard(skill)
    assert [set(held_skills(state, seat)) for seat in range(4)] == held
    replayed = _start(engine)
    for action in accepted:
        replayed, _ = engine.dispatch(replayed, action)
    assert canonical_bytes(replayed) == canonical_bytes(state)
    restored = copy_state(state)
    for seat in range(4):
        assert _drawn_in_a_turn(engine, restored, seat) == 2 + ("haste" in held[seat])
