"""The death step and the end of the game.

Damage never removes a minion by itself: after each step of an action (a
card played and resolved, an attack, a hero power, the start or the end of
a turn) the death step takes every minion at 0 health or destroyed off the
boards at once, then resolves their deaths one by one: the active player's
side first, then the opponent's, each side left to right as the minions
stood. For each: its deathrattle (summons take its place on the board),
then MINION_DIED for the other cards. Deaths those cause are taken in the
next round of the same step, until no minion is dying; weapons at 0
durability break in the same step. Then the heroes are looked at: a hero
at 0 health loses, both at once is a draw."""

from __future__ import annotations

from typing import Any

from tablehost.games.duel import board
from tablehost.games.duel import timings as duel_timings
from tablehost.games.duel.catalog import spec_of
from tablehost.games.duel.cards import Source
from tablehost.games.engine.engine import Context
from tablehost.games.engine.state import State, move_card

VAR_RESULT = "duel.result"

DIED = "DIED"
WEAPON_BROKE = "WEAPON_BROKE"
GAME_OVER = "GAME_OVER"


def game_result(state: State) -> dict[str, Any] | None:
    return state["variables"].get(VAR_RESULT)


def resolve_deaths(ctx: Context) -> None:
    """Run the death step (module docstring); ends the game when a hero fell."""
    state = ctx.state
    while True:
        _break_spent_weapons(ctx)
        dying = _take_the_dead(state)
        if not dying:
            break
        for seat, minion_id, record, position in dying:
            spec = spec_of(board.card_name(state, minion_id))
            ctx.emit(DIED, {"seat": seat, "minion": minion_id, "name": spec.name})
            source = Source(seat, minion_id)
            if spec.deathrattle is not None:
                spec.deathrattle(ctx, source, position)
            ctx.fire(duel_timings.MINION_DIED,
                     duel_timings.MinionDied(seat, minion_id, spec.name, record["tribe"], position))
    _check_heroes(ctx)


def _active_first(state: State) -> tuple[int, int]:
    current = board.current_seat(state)
    return current, board.opponent(current)


def _take_the_dead(state: State) -> list[tuple[int, str, board.Record, int]]:
    """Remove every dead minion at once; each with its seat, its last
    record and the position a deathrattle's summons take."""
    taken = []
    for seat in _active_first(state):
        removed_to_the_left = 0
        for index, minion_id in enumerate(list(board.board(state, seat))):
            if board.alive(state, minion_id):
                continue
            record = state["variables"][board.VAR_MINIONS].pop(minion_id)
            move_card(state, minion_id, board.board_zone(state, seat), board.graveyard_zone(state, seat))
            taken.append((seat, minion_id, record, index - removed_to_the_left))
            removed_to_the_left += 1
    return taken


def _break_spent_weapons(ctx: Context) -> None:
    state = ctx.state
    for seat in _active_first(state):
        equipped = board.weapon_id(state, seat)
        if equipped is not None and state["variables"][board.VAR_WEAPONS][equipped]["durability"] <= 0:
            del state["variables"][board.VAR_WEAPONS][equipped]
            move_card(state, equipped, board.weapon_zone(state, seat), board.graveyard_zone(state, seat))
            ctx.emit(WEAPON_BROKE, {"seat": seat, "weapon": equipped})


def _check_heroes(ctx: Context) -> None:
    state = ctx.state
    if game_result(state) is not None:
        return
    fallen = [seat for seat in range(board.SEATS) if board.hero(state, seat)["health"] <= 0]
    if not fallen:
        return
    if len(fallen) == board.SEATS:
        result = {"winner": -1, "draw": True, "scores": [0, 0]}
    else:
        winner = board.opponent(fallen[0])
        scores = [1 if seat == winner else -1 for seat in range(board.SEATS)]
        result = {"winner": winner, "draw": False, "scores": scores}
    result["health"] = [board.hero(state, seat)["health"] for seat in range(board.SEATS)]
    state["variables"][VAR_RESULT] = result
    ctx.emit(GAME_OVER, result)
