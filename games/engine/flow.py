"""A turn's structure as data: a game lists its turn's phases (`Phase`: a
name, whether the turn rests there for the player, a body to run) and the
engine walks them, opening rounds and turns and firing, at every step, the
trigger timings of seed 003's flow (timings.py), so a handler may change
an event's data (how many cards are drawn), skip a phase or a turn, or stop
it. Big Two's turn is one phase that waits for the player; Duel's a refresh
and then its play phase; a game with a draw phase lists `draw_phase`.
Kingdoms, whose phases nest events that wait for players, runs seed 003's
six phases as frames instead (games/engine/frames.py, games/kingdoms/turns.py).

`begin_turn` returns the phase the turn rests in; the game calls
`finish_phase` when the player is done with it. A phase or a turn may also
be skipped before it starts (`skip_phase`, `skip_turn`): a mark in the
state, consumed when that seat next enters the phase or the turn. The
initial deal (`deal_initial_cards`) fires its timings the same way."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from tablehost.games.engine import timings
from tablehost.games.engine.draw import create_draw_card_action
from tablehost.games.engine.engine import Context
from tablehost.games.engine.state import State, seat_player_id


@dataclass(frozen=True, slots=True)
class Phase:
    name: str
    interactive: bool = False
    body: Callable[[Context, int], None] | None = None


def deal_initial_cards(ctx: Context, count: int) -> None:
    """From the current player, each player draws `count` cards; the count is
    a DrawInitialData a trigger may change, skip, or stop."""
    players = ctx.state["players"]
    start = ctx.state["position"]["current"]
    ordered = [players[(start + k) % len(players)] for k in range(len(players))]
    dealt = []
    for player in ordered:
        data = timings.DrawInitialData(player["id"], count)
        if ctx.fire(timings.DRAW_INITIAL_CARDS, data) or data.skipped:
            continue
        ctx.run(create_draw_card_action(player["id"], data.count))
        dealt.append(data)
    # The "after" timing sees each player's data as the handlers left it.
    for data in dealt:
        ctx.fire(timings.AFTER_DRAW_INITIAL_CARDS, data)


def draw_phase(ctx: Context, seat: int, count: int = 2) -> None:
    """The draw phase: DRAW_N_CARDS may change how many cards."""
    player_id = seat_player_id(ctx.state, seat)
    data = timings.DrawNCardsData(player_id, count)
    if ctx.fire(timings.DRAW_N_CARDS, data) or data.skipped:
        return
    ctx.run(create_draw_card_action(player_id, data.count))
    ctx.fire(timings.AFTER_DRAW_N_CARDS, data)


def skip_phase(ctx: Context, seat: int, phase: str) -> None:
    """Skip `seat`'s next `phase`, whether it comes later in this turn or in
    a later one. When entered, the phase is skipped as if a PHASE_CHANGING
    handler had marked it: PHASE_CHANGING fires with `skipped` already True
    (a handler may still clear it), then PHASE_SKIPPING and PHASE_SKIPPED.
    Each mark skips one phase; two marks skip the next two."""
    if not isinstance(phase, str) or not phase:
        raise ValueError(f"a phase to skip is a phase name, got {phase!r}")
    _mark_skip(ctx, seat, phase)


def skip_turn(ctx: Context, seat: int) -> None:
    """Skip `seat`'s next turn: it begins (counting as a turn, opening a
    round) with TURN_START's data already `skipped`, as if a TURN_START
    handler had marked it (a handler may still clear it), then ends without
    entering a phase. Each mark skips one turn."""
    _mark_skip(ctx, seat, None)


def begin_turn(ctx: Context, seat: int, phases: Sequence[Phase]) -> str | None:
    """Start `seat`'s turn and walk its phases up to the first interactive
    one that is entered; returns its name, or None when the turn ended
    without needing the player (skipped, or no interactive phase entered)."""
    position = ctx.state["position"]
    _advance_round(ctx, seat)
    position["current"] = seat
    position["turn"] += 1
    turn = timings.TurnData(seat, skipped=_take_skip(ctx.state, seat, None))
    if ctx.fire(timings.TURN_START, turn) or turn.skipped:
        _end_turn(ctx, seat)
        return None
    return _walk_phases(ctx, seat, phases, 0)


def finish_phase(ctx: Context, seat: int, phases: Sequence[Phase]) -> str | None:
    """The player ended the phase the turn rests in: fire its end and walk on."""
    names = [phase.name for phase in phases]
    current = ctx.state["position"]["phase"]
    ctx.fire(timings.PHASE_END, timings.PhaseData(seat, current))
    return _walk_phases(ctx, seat, phases, names.index(current) + 1)


def _advance_round(ctx: Context, seat: int) -> None:
    """Seed 003's rounds: the first turn opens round 1; a turn whose seat is
    not after the previous turn's seat closes the round and opens the next."""
    position = ctx.state["position"]
    if position["turn"] == 0:
        position["round"] = 1
        ctx.fire(timings.ROUND_START, timings.RoundData(1))
    elif seat <= position["current"]:
        ctx.fire(timings.ROUND_END, timings.RoundData(position["round"]))
        position["round"] += 1
        ctx.fire(timings.ROUND_START, timings.RoundData(position["round"]))


def _walk_phases(ctx: Context, seat: int, phases: Sequence[Phase], start: int) -> str | None:
    for phase in phases[start:]:
        ctx.state["position"]["phase"] = phase.name
        entered = _enter_phase(ctx, seat, phase.name)
        if entered is None:
            continue
        if entered and phase.interactive:
            return phase.name
        if entered and phase.body is not None:
            phase.body(ctx, seat)
        # A phase stopped at its start still runs its cleanup timing.
        ctx.fire(timings.PHASE_END, timings.PhaseData(seat, phase.name))
    _end_turn(ctx, seat)
    return None


def _enter_phase(ctx: Context, seat: int, phase: str) -> bool | None:
    """None: the phase was skipped; False: a PHASE_START handler stopped it;
    True: it proceeds."""
    data = timings.PhaseData(seat, phase, skipped=_take_skip(ctx.state, seat, phase))
    ctx.fire(timings.PHASE_CHANGING, data)
    if data.skipped:
        ctx.fire(timings.PHASE_SKIPPING, data)
        ctx.fire(timings.PHASE_SKIPPED, data)
        return None
    if ctx.fire(timings.PHASE_START, data):
        return False
    ctx.fire(timings.PHASE_PROCEEDING, data)
    return True


def _end_turn(ctx: Context, seat: int) -> None:
    ctx.state["position"]["phase"] = ""
    ctx.fire(timings.TURN_END, timings.TurnData(seat))


def _mark_skip(ctx: Context, seat: int, phase: str | None) -> None:
    seats = len(ctx.state["players"])
    if not 0 <= seat < seats:
        raise ValueError(f"no seat {seat} in a game of {seats} players")
    # setdefault: a state saved before marks existed has no list yet.
    ctx.state["position"].setdefault("skips", []).append({"seat": seat, "phase": phase})


def _take_skip(state: State, seat: int, phase: str | None) -> bool:
    """Consume the oldest mark skipping `seat`'s `phase` (None: its turn);
    True if there was one."""
    skips = state["position"].get("skips")
    if not skips:
        return False
    for index, mark in enumerate(skips):
        if mark["seat"] == seat and mark["phase"] == phase:
            del skips[index]
            return True
    return False
