"""Trigger timings and the game flow (rounds, turns, phases, as Sanguosha counts them), on a tiny four-seat table.

Handlers edit the timing's data (how many cards are drawn), mark it skipped (a phase
skipped), or return True to stop it; they run in seat order from the current player,
with the game's own (seat-less) rules last. A phase or a turn may also be marked skipped
before it starts (skip_phase, skip_turn), a mark kept in the state until it is used.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablehost.games.engine import timings
from tablehost.games.engine.draw import DrawPlugin
from tablehost.games.engine.engine import Context, Engine
from tablehost.games.engine.flow import (
    Phase,
    begin_turn,
    deal_initial_cards,
    draw_phase,
    finish_phase,
    skip_phase,
    skip_turn,
)
from tablehost.games.engine.plugin import Action, ActionHandler, Plugin, Trigger
from tablehost.games.engine.state import State, add_zone, copy_state, create_zone, player_hand_zone_id

PLAYERS = [
    {"id": f"p{seat}", "name": f"P{seat}", "seat": seat, "status": "active", "data": {}} for seat in range(4)
]
ALL_TIMINGS = (
    timings.GAME_PREPARED,
    timings.DRAW_INITIAL_CARDS,
    timings.AFTER_DRAW_INITIAL_CARDS,
    timings.GAME_START,
    timings.TURN_START,
    timings.TURN_END,
    timings.PHASE_CHANGING,
    timings.PHASE_SKIPPING,
    timings.PHASE_SKIPPED,
    timings.PHASE_START,
    timings.PHASE_PROCEEDING,
    timings.PHASE_END,
    timings.DRAW_N_CARDS,
    timings.AFTER_DRAW_N_CARDS,
)
Log = list[tuple[Any, ...]]


def _hand(state: State, seat: int) -> list[str]:
    zone = state["zones"].get(player_hand_zone_id(f"p{seat}"))
    return [] if zone is None else zone["cards"]


class Table:
    """A tiny game: a 40-card deck, a turn of four phases (prepare, draw, play, finish),
    and every timing logged as (timing, seat, phase) in the order it fired."""

    def __init__(self, initial_cards: int = 0, first_seat: int = 0) -> None:
        self.log: Log = []
        self.phases = (
            Phase("prepare", body=self._body),
            Phase("draw", body=lambda ctx, seat: (self._body(ctx, seat), draw_phase(ctx, seat))),
            Phase("play", interactive=True),
            Phase("finish", body=self._body),
        )
        plugin = Plugin(
            id="table",
            name="Table",
            version="0",
            actions=(
                ActionHandler("TURN", self._turn),
                ActionHandler("END_PHASE", self._end_phase),
                ActionHandler("SKIP_PHASE", self._skip_phase),
                ActionHandler("SKIP_TURN", self._skip_turn),
            ),
            setup=lambda ctx: self._setup(ctx, initial_cards, first_seat),
        )
        self.engine = Engine([DrawPlugin, plugin])
        # The logging handlers are the game's own rules (seat None): they run after
        # every seat-owned handler, so they see the data as the seats left it.
        for timing in ALL_TIMINGS:
            self.engine.add_trigger(Trigger(timing, self._logger(timing)))

    def start(self) -> State:
        state, _ = self.engine.create_game("t", PLAYERS, random_key=b"key-1")
        return state

    def add(self, timing: str, handler: Callable[[Context, Any], bool | None], seat: int | None = None) -> None:
        self.engine.add_trigger(Trigger(timing, handler, seat))

    def turn(self, state: State, seat: int) -> State:
        state, _ = self.engine.dispatch(state, Action("TURN", f"p{seat}", {"seat": seat}))
        return state

    def end_phase(self, state: State, seat: int) -> State:
        state, _ = self.engine.dispatch(state, Action("END_PHASE", f"p{seat}", {"seat": seat}))
        return state

    def skip_phase(self, state: State, seat: int, phase: str) -> State:
        """What an Indulgence placed on `seat` does: mark its next `phase` skipped."""
        state, _ = self.engine.dispatch(state, Action("SKIP_PHASE", None, {"seat": seat, "phase": phase}))
        return state

    def skip_turn(self, state: State, seat: int) -> State:
        """What turning `seat`'s general face down does: mark its next turn skipped."""
        state, _ = self.engine.dispatch(state, Action("SKIP_TURN", None, {"seat": seat}))
        return state

    def fired(self, timing: str) -> list[tuple[Any, ...]]:
        return [entry for entry in self.log if entry[0] == timing]

    def bodies(self) -> list[str]:
        return [entry[2] for entry in self.log if entry[0] == "body"]

    def _setup(self, ctx: Context, initial_cards: int, first_seat: int) -> None:
        deck = create_zone("deck", "deck")
        deck["cards"] = [f"c{n:02d}" for n in range(40)]
        add_zone(ctx.state, deck)
        ctx.state["position"]["current"] = first_seat
        ctx.fire(timings.GAME_PREPARED, timings.GameData())
        if initial_cards:
            deal_initial_cards(ctx, initial_cards)

    def _turn(self, action: Action, ctx: Context) -> None:
        ctx.state["variables"]["rests_in"] = begin_turn(ctx, action.payload["seat"], self.phases)

    def _end_phase(self, action: Action, ctx: Context) -> None:
        ctx.state["variables"]["rests_in"] = finish_phase(ctx, action.payload["seat"], self.phases)

    def _skip_phase(self, action: Action, ctx: Context) -> None:
        skip_phase(ctx, action.payload["seat"], action.payload["phase"])

    def _skip_turn(self, action: Action, ctx: Context) -> None:
        skip_turn(ctx, action.payload["seat"])

    def _body(self, ctx: Context, seat: int) -> None:
        self.log.append(("body", seat, ctx.state["position"]["phase"]))

    def _logger(self, timing: str) -> Callable[[Context, Any], None]:
        def log(ctx: Context, data: Any) -> None:
            who = getattr(data, "seat", getattr(data, "player_id", None))
            self.log.append((timing, who, getattr(data, "phase", None)))

        return log


# --- draw counts changed by a handler ---------------------------------------------


def test_the_draw_phase_draws_two_cards_by_default() -> None:
    table = Table()
    state = table.end_phase(table.turn(table.start(), 1), 1)
    assert _hand(state, 1) == ["c00", "c01"]


def test_a_draw_n_cards_handler_changes_how_many_cards_are_drawn() -> None:
    table = Table()

    def draw_three(ctx: Context, data: timings.DrawNCardsData) -> None:
        if data.player_id == "p1":
            data.count = 3

    table.add(timings.DRAW_N_CARDS, draw_three, seat=1)
    state = table.turn(table.start(), 1)
    assert _hand(state, 1) == ["c00", "c01", "c02"]
    assert table.fired(timings.AFTER_DRAW_N_CARDS) == [(timings.AFTER_DRAW_N_CARDS, "p1", None)]


def test_a_draw_n_cards_handler_that_stops_the_event_prevents_the_draw() -> None:
    table = Table()
    table.add(timings.DRAW_N_CARDS, lambda ctx, data: True, seat=1)
    state = table.turn(table.start(), 1)
    assert _hand(state, 1) == []
    assert table.fired(timings.AFTER_DRAW_N_CARDS) == []


def test_a_draw_initial_cards_handler_changes_one_players_opening_hand() -> None:
    table = Table(initial_cards=4)

    def six_for_p2(ctx: Context, data: timings.DrawInitialData) -> None:
        if data.player_id == "p2":
            data.count = 6

    table.add(timings.DRAW_INITIAL_CARDS, six_for_p2, seat=2)
    state = table.start()
    assert [len(_hand(state, seat)) for seat in range(4)] == [4, 4, 6, 4]


def test_a_draw_initial_cards_handler_may_skip_a_players_opening_hand() -> None:
    table = Table(initial_cards=4)

    def skip_p3(ctx: Context, data: timings.DrawInitialData) -> None:
        data.skipped = data.player_id == "p3"

    table.add(timings.DRAW_INITIAL_CARDS, skip_p3)
    state = table.start()
    assert [len(_hand(state, seat)) for seat in range(4)] == [4, 4, 4, 0]


def test_initial_cards_are_dealt_from_the_current_player_and_announced_after_all_draws() -> None:
    table = Table(initial_cards=2, first_seat=2)
    state = table.start()
    assert _hand(state, 2) == ["c00", "c01"]
    assert _hand(state, 3) == ["c02", "c03"]
    assert _hand(state, 0) == ["c04", "c05"]
    assert [entry[0] for entry in table.log] == (
        [timings.GAME_PREPARED] + [timings.DRAW_INITIAL_CARDS] * 4 + [timings.AFTER_DRAW_INITIAL_CARDS] * 4
    )
    assert [entry[1] for entry in table.fired(timings.AFTER_DRAW_INITIAL_CARDS)] == ["p2", "p3", "p0", "p1"]


# --- phases skipped and stopped ---------------------------------------------------


def test_a_turn_walks_its_phases_with_every_timing_in_seed_order() -> None:
    table = Table()
    state = table.start()
    table.log.clear()
    state = table.turn(state, 0)
    assert state["variables"]["rests_in"] == "play"
    assert state["position"]["phase"] == "play"
    state = table.end_phase(state, 0)
    assert state["variables"]["rests_in"] is None
    assert state["position"]["phase"] == ""
    phase_timings = [(entry[0], entry[2]) for entry in table.log if entry[0] != timings.DRAW_N_CARDS]
    expected: list[tuple[str, str | None]] = [(timings.TURN_START, None)]
    for phase in ("prepare", "draw", "play", "finish"):
        expected += [
            (timings.PHASE_CHANGING, phase),
            (timings.PHASE_START, phase),
            (timings.PHASE_PROCEEDING, phase),
        ]
        if phase == "draw":
            expected += [("body", "draw"), (timings.AFTER_DRAW_N_CARDS, None)]
        elif phase != "play":
            expected.append(("body", phase))
        expected.append((timings.PHASE_END, phase))
    expected.append((timings.TURN_END, None))
    assert phase_timings == expected


def test_a_phase_changing_handler_skips_a_phase_and_its_body_does_not_run() -> None:
    table = Table()

    def skip_draw(ctx: Context, data: timings.PhaseData) -> None:
        if data.phase == "draw":
            data.skipped = True

    table.add(timings.PHASE_CHANGING, skip_draw, seat=0)
    state = table.turn(table.start(), 0)
    assert _hand(state, 0) == []
    assert "draw" not in table.bodies()
    assert table.fired(timings.PHASE_SKIPPING) == [(timings.PHASE_SKIPPING, 0, "draw")]
    assert table.fired(timings.PHASE_SKIPPED) == [(timings.PHASE_SKIPPED, 0, "draw")]
    assert all(entry[2] != "draw" for entry in table.fired(timings.PHASE_START))
    assert all(entry[2] != "draw" for entry in table.fired(timings.PHASE_END))
    assert state["variables"]["rests_in"] == "play", "the turn walks on past the skipped phase"


def test_skipping_the_interactive_phase_ends_the_turn_without_the_player() -> None:
    table = Table()

    def skip_play(ctx: Context, data: timings.PhaseData) -> None:
        data.skipped = data.skipped or data.phase == "play"

    table.add(timings.PHASE_CHANGING, skip_play)
    state = table.turn(table.start(), 0)
    assert state["variables"]["rests_in"] is None
    assert table.bodies() == ["prepare", "draw", "finish"]
    assert table.fired(timings.TURN_END) == [(timings.TURN_END, 0, None)]


def test_a_phase_start_handler_returning_true_stops_the_phase_but_its_end_still_fires() -> None:
    table = Table()
    table.add(timings.PHASE_START, lambda ctx, data: data.phase == "draw", seat=0)
    state = table.turn(table.start(), 0)
    assert _hand(state, 0) == []
    assert "draw" not in table.bodies()
    assert (timings.PHASE_PROCEEDING, 0, "draw") not in table.log
    assert (timings.PHASE_END, 0, "draw") in table.log
    assert table.fired(timings.PHASE_SKIPPING) == []
    # The logger (a seat-less rule) runs last, so a stopped event never reaches it.
    assert (timings.PHASE_START, 0, "draw") not in table.log
    assert state["variables"]["rests_in"] == "play"


def test_stopping_the_interactive_phase_at_its_start_moves_on_to_the_next_phase() -> None:
    table = Table()
    table.add(timings.PHASE_START, lambda ctx, data: data.phase == "play", seat=0)
    state = table.turn(table.start(), 0)
    assert state["variables"]["rests_in"] is None
    assert table.bodies() == ["prepare", "draw", "finish"]
    assert (timings.PHASE_END, 0, "play") in table.log


# --- turns skipped ------------------------------------------------------------------


@pytest.mark.parametrize("how", ["mark skipped", "return True"])
def test_a_turn_start_handler_skips_the_turn(how: str) -> None:
    table = Table()

    def skip_turn(ctx: Context, data: timings.TurnData) -> bool:
        if how == "return True":
            return True
        data.skipped = True
        return False

    table.add(timings.TURN_START, skip_turn, seat=3)
    state = table.turn(table.start(), 3)
    assert state["variables"]["rests_in"] is None
    assert table.bodies() == []
    assert table.fired(timings.PHASE_CHANGING) == []
    assert table.fired(timings.TURN_END) == [(timings.TURN_END, 3, None)]
    assert state["position"]["current"] == 3
    assert state["position"]["turn"] == 1
    assert state["position"]["phase"] == ""
    assert _hand(state, 3) == []


# --- phases and turns skipped before they start -----------------------------------
#
# An Indulgence resolved in the judge phase skips the coming play phase; a general
# turned face down skips its owner's next turn. Both leave a mark in the state that
# the seat's next entry into that phase (or turn) consumes.


def _record_skipped(table: Table, *timings_to_record: str) -> list[tuple[str, Any, bool]]:
    """(timing, phase or else seat, skipped) each time one of the timings reaches
    the game's rules, as the seats' handlers left its data."""
    seen: list[tuple[str, Any, bool]] = []

    def recorder(timing: str) -> Callable[[Context, Any], None]:
        def record(ctx: Context, data: Any) -> None:
            seen.append((timing, getattr(data, "phase", data.seat), data.skipped))

        return record

    for timing in timings_to_record:
        table.add(timing, recorder(timing))
    return seen


def test_a_phase_marked_before_the_turn_is_skipped_as_if_a_phase_changing_handler_had_skipped_it() -> None:
    table = Table()
    phase_log = _record_skipped(
        table, timings.PHASE_CHANGING, timings.PHASE_SKIPPING, timings.PHASE_SKIPPED, timings.PHASE_START
    )
    state = table.skip_phase(table.start(), 1, "draw")
    assert state["position"]["skips"] == [{"seat": 1, "phase": "draw"}]
    state = table.turn(state, 1)
    assert [entry for entry in phase_log if entry[1] == "draw"] == [
        (timings.PHASE_CHANGING, "draw", True),
        (timings.PHASE_SKIPPING, "draw", True),
        (timings.PHASE_SKIPPED, "draw", True),
    ], "handlers of PHASE_CHANGING see the phase already skipped; it never starts"
    assert (timings.PHASE_CHANGING, "prepare", False) in phase_log
    assert table.bodies() == ["prepare"]
    assert _hand(state, 1) == []
    assert state["variables"]["rests_in"] == "play", "the turn walks on to the next phase"
    assert state["position"]["skips"] == [], "the mark is consumed"


def test_a_phase_mark_skips_one_phase_once_and_only_for_its_seat() -> None:
    table = Table()
    state = table.skip_phase(table.start(), 1, "draw")
    state = table.end_phase(table.turn(state, 0), 0)
    assert _hand(state, 0) == ["c00", "c01"], "seat 0's draw phase is not seat 1's"
    state = table.end_phase(table.turn(state, 1), 1)
    assert _hand(state, 1) == []
    state = table.end_phase(table.turn(state, 1), 1)
    assert _hand(state, 1) == ["c02", "c03"], "the mark was used up by the first draw phase"
    assert table.fired(timings.PHASE_SKIPPED) == [(timings.PHASE_SKIPPED, 1, "draw")]


def test_each_mark_skips_one_entry_so_two_marks_skip_the_next_two() -> None:
    table = Table()
    state = table.skip_phase(table.skip_phase(table.start(), 2, "draw"), 2, "draw")
    for _ in range(3):
        state = table.end_phase(table.turn(state, 2), 2)
    assert _hand(state, 2) == ["c00", "c01"], "only the third draw phase draws"
    assert len(table.fired(timings.PHASE_SKIPPED)) == 2


def test_an_indulgence_resolved_earlier_in_the_turn_skips_that_turns_play_phase() -> None:
    table = Table()

    def judge(ctx: Context, data: timings.PhaseData) -> None:
        if data.phase == "prepare" and not ctx.state["variables"].get("judged"):
            ctx.state["variables"]["judged"] = True
            skip_phase(ctx, data.seat, "play")

    table.add(timings.PHASE_PROCEEDING, judge, seat=0)
    state = table.turn(table.start(), 0)
    assert state["variables"]["rests_in"] is None, "the player is never asked to play"
    assert table.bodies() == ["prepare", "draw", "finish"]
    assert table.fired(timings.PHASE_SKIPPED) == [(timings.PHASE_SKIPPED, 0, "play")]
    state = table.turn(state, 0)
    assert state["variables"]["rests_in"] == "play", "the next turn plays as usual"


def test_a_phase_changing_handler_may_cancel_a_marked_skip_which_is_still_consumed() -> None:
    table = Table()

    def nullify(ctx: Context, data: timings.PhaseData) -> None:
        data.skipped = False

    table.add(timings.PHASE_CHANGING, nullify, seat=1)
    state = table.turn(table.skip_phase(table.start(), 1, "draw"), 1)
    assert _hand(state, 1) == ["c00", "c01"]
    assert table.fired(timings.PHASE_SKIPPING) == []
    assert state["position"]["skips"] == []


def test_a_turn_marked_skipped_begins_and_ends_without_entering_a_phase() -> None:
    table = Table()
    turn_log = _record_skipped(table, timings.TURN_START)
    state = table.skip_turn(table.start(), 3)
    assert state["position"]["skips"] == [{"seat": 3, "phase": None}]
    state = table.turn(state, 3)
    assert turn_log == [(timings.TURN_START, 3, True)], "TURN_START handlers see the turn already skipped"
    assert state["variables"]["rests_in"] is None
    assert table.bodies() == []
    assert table.fired(timings.PHASE_CHANGING) == []
    assert table.fired(timings.TURN_END) == [(timings.TURN_END, 3, None)]
    assert (state["position"]["current"], state["position"]["turn"], state["position"]["phase"]) == (3, 1, "")
    assert state["position"]["skips"] == []
    state = table.turn(state, 3)
    assert turn_log[-1] == (timings.TURN_START, 3, False), "only the next turn is skipped"
    assert state["variables"]["rests_in"] == "play"


def test_a_skipped_turn_leaves_the_seats_phase_marks_for_its_next_turn_entered() -> None:
    table = Table()
    state = table.skip_phase(table.skip_turn(table.start(), 1), 1, "draw")
    state = table.turn(state, 1)
    assert state["position"]["skips"] == [{"seat": 1, "phase": "draw"}]
    state = table.turn(state, 1)
    assert _hand(state, 1) == [] and state["position"]["skips"] == []


def test_marks_are_plain_data_that_survive_a_checkpoint() -> None:
    table = Table()
    state = table.skip_turn(table.skip_phase(table.start(), 0, "draw"), 1)
    restored = copy_state(state)  # through msgpack, as a checkpoint is stored
    assert restored == state
    restored = table.end_phase(table.turn(restored, 0), 0)
    assert _hand(restored, 0) == []
    restored = table.turn(restored, 1)
    assert restored["variables"]["rests_in"] is None
    assert restored["position"]["skips"] == []


def test_a_mark_for_a_seat_not_at_the_table_or_a_nameless_phase_is_refused() -> None:
    table = Table()
    state = table.start()
    with pytest.raises(ValueError, match="no seat 4"):
        table.skip_turn(state, 4)
    with pytest.raises(ValueError, match="no seat -1"):
        table.skip_phase(state, -1, "draw")
    with pytest.raises(ValueError, match="phase name"):
        table.skip_phase(state, 0, "")


MARKS = st.lists(
    st.tuples(st.integers(0, 3), st.sampled_from([None, "prepare", "draw", "play", "finish"])), max_size=4
)


@settings(max_examples=60, deadline=None)
@given(marks=MARKS)
def test_every_mark_skips_exactly_the_next_entry_of_its_seats_phase_or_turn(
    marks: list[tuple[int, str | None]]
) -> None:
    table = Table()
    turn_log = _record_skipped(table, timings.TURN_START)
    state = table.start()
    for seat, phase in marks:
        state = table.skip_turn(state, seat) if phase is None else table.skip_phase(state, seat, phase)
    table.log.clear()
    rounds = 1 + len(marks)
    for _ in range(rounds):
        for seat in range(4):
            state = table.turn(state, seat)
            if state["variables"]["rests_in"] is not None:
                state = table.end_phase(state, seat)
    assert state["position"]["skips"] == []
    for seat in range(4):
        turns_marked = marks.count((seat, None))
        skipped_turns = [entry[2] for entry in turn_log if entry[1] == seat]
        assert skipped_turns == [True] * turns_marked + [False] * (rounds - turns_marked), (
            "a seat's marked turns are its next ones"
        )
        for phase in ("prepare", "draw", "play", "finish"):
            phase_marks = marks.count((seat, phase))
            skipped = [entry for entry in table.fired(timings.PHASE_SKIPPED) if entry[1:] == (seat, phase)]
            assert len(skipped) == phase_marks
            entered = table.fired(timings.PHASE_CHANGING).count((timings.PHASE_CHANGING, seat, phase))
            assert entered == rounds - turns_marked, "phases are entered only in turns not skipped"


# --- the order handlers run in ------------------------------------------------------


def _ordering_engine(log: list[int | None], stop_at: int | None = -1) -> Engine:
    engine = Engine([])

    def handler(seat: int | None) -> Callable[[Context, Any], bool]:
        def run(ctx: Context, data: Any) -> bool:
            log.append(seat)
            return seat == stop_at

        return run

    for seat in (None, 1, 3, 0, 2):  # registration order must not matter
        engine.add_trigger(Trigger("custom", handler(seat), seat))
    return engine


def _state_with_current(current: int) -> State:
    return {
        "game_id": "t",
        "zones": {},
        "players": PLAYERS,
        "variables": {},
        "position": {"round": 0, "turn": 0, "phase": "", "current": current},
        "rng": {"key": "00", "streams": {}},
    }


@pytest.mark.parametrize(
    ("current", "order"),
    [(0, [0, 1, 2, 3, None]), (2, [2, 3, 0, 1, None]), (3, [3, 0, 1, 2, None])],
)
def test_handlers_run_in_seat_order_from_the_current_player_with_rules_last(
    current: int, order: list[int | None]
) -> None:
    log: list[int | None] = []
    engine = _ordering_engine(log)
    stopped = engine.fire(Context(engine, _state_with_current(current), 0), "custom", None)
    assert stopped is False
    assert log == order


def test_a_handler_returning_true_stops_the_handlers_after_it() -> None:
    log: list[int | None] = []
    engine = _ordering_engine(log, stop_at=0)
    stopped = engine.fire(Context(engine, _state_with_current(2), 0), "custom", None)
    assert stopped is True
    assert log == [2, 3, 0]


def test_a_timing_without_handlers_is_not_stopped() -> None:
    engine = Engine([])
    assert engine.fire(Context(engine, _state_with_current(0), 0), "nobody_listens", None) is False


def test_handlers_of_one_seat_run_in_the_order_they_were_registered() -> None:
    log: list[str] = []
    engine = Engine([])
    engine.add_trigger(Trigger("custom", lambda ctx, data: log.append("rule")))
    engine.add_trigger(Trigger("custom", lambda ctx, data: log.append("first"), 1))
    engine.add_trigger(Trigger("custom", lambda ctx, data: log.append("second"), 1))
    engine.fire(Context(engine, _state_with_current(1), 0), "custom", None)
    assert log == ["first", "second", "rule"]


def test_plugin_triggers_are_registered_with_the_engine() -> None:
    log: list[int] = []
    plugin = Plugin(
        id="skills",
        name="Skills",
        version="1",
        triggers=(Trigger("custom", lambda ctx, data: log.append(data), 0),),
    )
    engine = Engine([plugin])
    engine.fire(Context(engine, _state_with_current(0), 0), "custom", 7)
    assert log == [7]


def test_rounds_open_on_the_first_turn_and_turn_over_when_the_seat_number_wraps() -> None:
    from tablehost.games.engine import flow, timings
    from tablehost.games.engine.engine import Context, Engine
    from tablehost.games.engine.plugin import Plugin, Trigger
    from tablehost.games.engine.state import new_state

    seen: list[tuple[str, int]] = []
    plugin = Plugin(
        id="rounds", name="Rounds", version="1.0.0",
        triggers=(
            Trigger(timings.ROUND_START, lambda ctx, data: seen.append(("start", data.round))),
            Trigger(timings.ROUND_END, lambda ctx, data: seen.append(("end", data.round))),
        ),
    )
    players = [{"id": f"p{i}", "name": f"p{i}", "seat": i, "status": "active", "data": {}} for i in range(3)]
    ctx = Context(Engine([plugin]), new_state("g", players, b"key-1"), 0)
    phases = (flow.Phase("play", interactive=True),)
    for seat in (1, 2, 0, 1, 2, 0):
        flow.begin_turn(ctx, seat, phases)
    assert seen == [("start", 1), ("end", 1), ("start", 2), ("end", 2), ("start", 3)]
    assert ctx.state["position"]["round"] == 3 and ctx.state["position"]["turn"] == 6
