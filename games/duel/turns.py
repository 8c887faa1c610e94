"""Duel's turns: the stages of a game, the mulligan, a turn's phases (the
engine's flow: a refresh, then the play phase that waits for the player),
ending a turn, and the checks every action of a turn shares."""

from __future__ import annotations

from collections.abc import Set
from typing import Any

from tablehost.games.duel import board, effects
from tablehost.games.duel.catalog import LUCKY_COIN
from tablehost.games.duel.deaths import game_result, resolve_deaths
from tablehost.games.engine.draw import create_draw_card_action
from tablehost.games.engine.engine import Context
from tablehost.games.engine.errors import Reason, RuleError
from tablehost.games.engine.flow import Phase, begin_turn, finish_phase
from tablehost.games.engine.plugin import Action
from tablehost.games.engine.state import State, move_card

# Stages of a game, in order.
MULLIGAN_STAGE = "mulligan"
PLAY_STAGE = "play"
OVER_STAGE = "over"

VAR_TIMEOUT = "duel.turn_timeout_ms"
VAR_HERO_HEALTH = "duel.hero_health"
VAR_STAGE = "duel.stage"
VAR_FIRST = "duel.first"
VAR_DEADLINE = "duel.deadline_ms"
VAR_MULLIGAN_DONE = "duel.mulligan_done"

# Events of the mulligan and of turns, in the order a move causes them.
MULLIGAN_DONE = "MULLIGAN_DONE"
COIN_GIVEN = "COIN_GIVEN"
TURN_ENDED = "TURN_ENDED"


def _refresh(ctx: Context, seat: int) -> None:
    """The start of a turn, in the seed's order: draw, capacity, mana,
    then what may act this turn."""
    state = ctx.state
    effects.draw_cards(ctx, seat, 1)
    hero = board.hero(state, seat)
    hero["capacity"] = min(board.MANA_LIMIT, hero["capacity"] + 1)
    hero["mana"] = hero["capacity"]
    hero["attacks"] = 0
    hero["hero_power_used"] = False
    for minion_id in board.board(state, seat):
        record = board.minion(state, minion_id)
        record["asleep"] = False
        record["attacks"] = 0
    resolve_deaths(ctx)


TURN_PHASES = (Phase("refresh", body=_refresh), Phase("play", interactive=True))


def variables_of(state: State) -> dict[str, Any]:
    return state["variables"]


def _seat_of(action: Action) -> int:
    if action.seat is None:
        raise RuleError(Reason.NOT_YOUR_SEAT, f"a {action.type} is a player's action")
    return action.seat


def _require_stage(state: State, stage: str) -> None:
    current = variables_of(state)[VAR_STAGE]
    if current != stage:
        raise RuleError(Reason.ILLEGAL_MOVE, f"that is for the {stage} and the game is in its {current}")


def _require_fields(action: Action, required: Set[str], optional: Set[str] = frozenset()) -> None:
    fields = set(action.payload)
    if not required <= fields <= required | optional:
        wanted = ", ".join(sorted(required)) or "nothing"
        extra = f" (and optionally {', '.join(sorted(optional))})" if optional else ""
        raise RuleError(Reason.MALFORMED, f"a {action.type} carries {wanted}{extra}, got {sorted(fields)}")


def refuse_if(refusal: str | None) -> None:
    if refusal is not None:
        raise RuleError(Reason.ILLEGAL_MOVE, refusal)


# -- the mulligan ------------------------------------------------------------------


def mulligan(action: Action, ctx: Context) -> None:
    state = ctx.state
    seat = _seat_of(action)
    _require_stage(state, MULLIGAN_STAGE)
    _require_fields(action, {"cards"})
    returned = action.payload["cards"]
    if not isinstance(returned, list) or not all(isinstance(card, str) for card in returned):
        raise RuleError(Reason.MALFORMED, "a mulligan's cards are a list of card ids")
    done = variables_of(state)[VAR_MULLIGAN_DONE]
    if done[seat]:
        raise RuleError(Reason.NOT_YOUR_TURN, "you have chosen your mulligan")
    hand = board.hand(state, seat)
    if len(set(returned)) != len(returned) or not set(returned) <= set(hand):
        raise RuleError(Reason.ILLEGAL_MOVE, "return only cards of your opening hand, each once")
    if returned:
        deck_zone, hand_zone = board.deck_zone(state, seat), board.hand_zone(state, seat)
        ctx.run(create_draw_card_action(action.player_id, len(returned), deck_zone, hand_zone))
        for card_id in returned:
            move_card(state, card_id, hand_zone, deck_zone)
        ctx.random("mulligan.shuffle").shuffle(board.deck(state, seat))
    done[seat] = True
    ctx.emit(MULLIGAN_DONE, {"seat": seat, "returned": len(returned)})
    if all(done):
        _begin_play(ctx)


def _begin_play(ctx: Context) -> None:
    state = ctx.state
    variables = variables_of(state)
    first = variables[VAR_FIRST]
    second = board.opponent(first)
    effects.create_card(state, second, LUCKY_COIN.name, board.hand_zone(state, second))
    ctx.emit(COIN_GIVEN, {"seat": second})
    variables[VAR_STAGE] = PLAY_STAGE
    start_turn(ctx, first)


# -- turns ------------------------------------------------------------------------


def start_turn(ctx: Context, seat: int) -> None:
    variables = variables_of(ctx.state)
    variables[VAR_DEADLINE] = ctx.now_ms + variables[VAR_TIMEOUT]
    begin_turn(ctx, seat, TURN_PHASES)
    after_step(ctx)


def after_step(ctx: Context) -> None:
    """Close the game when the last step ended it."""
    variables = variables_of(ctx.state)
    if game_result(ctx.state) is not None:
        variables[VAR_STAGE] = OVER_STAGE
        variables[VAR_DEADLINE] = None
        ctx.state["position"]["phase"] = ""


def end_turn(action: Action, ctx: Context) -> None:
    state = ctx.state
    seat = begin_turn_action(action, ctx, set())
    ctx.emit(TURN_ENDED, {"seat": seat})
    finish_phase(ctx, seat, TURN_PHASES)
    _thaw(state, seat)
    resolve_deaths(ctx)
    if game_result(state) is None:
        start_turn(ctx, board.opponent(seat))
    after_step(ctx)


def _thaw(state: State, seat: int) -> None:
    """At the end of its owner's turn a character thaws, unless it was
    frozen during that turn (then it misses the owner's next turn too)."""
    this_turn = board.turn_number(state)
    for character in board.characters(state, seat):
        record = board.character(state, character)
        if record["frozen_turn"] is not None and record["frozen_turn"] < this_turn:
            record["frozen_turn"] = None


def begin_turn_action(action: Action, ctx: Context, required: Set[str], optional: Set[str] = frozenset()) -> int:
    """The checks every action of a turn shares; returns the acting seat."""
    _require_stage(ctx.state, PLAY_STAGE)
    _require_fields(action, required, optional)
    seat = _seat_of(action)
    if seat != board.current_seat(ctx.state):
        raise RuleError(Reason.NOT_YOUR_TURN, "it is not your turn")
    return seat


