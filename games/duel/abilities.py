"""Cards' triggered text, run when a timing fires: minions' "whenever ..."
and "at the end of your turn" text, weapons' text, and secrets, which are
revealed when their condition holds during the opponent's turn.

The plugin registers one trigger per timing and seat, so the engine runs
them in its seat order: the active player's cards first, then the
opponent's. Within a side: minions left to right, then secrets in the
order they were played, then the weapon. Cards are looked up by the names
the state records, at the moment the timing fires; a minion that left the
board, or a secret already revealed, by then does not run."""

from __future__ import annotations

from typing import Any

from tablehost.games.duel import board
from tablehost.games.duel import timings as duel_timings
from tablehost.games.duel.catalog import spec_of
from tablehost.games.duel.cards import Source
from tablehost.games.engine.engine import Context
from tablehost.games.engine.plugin import Trigger, TriggerHandler
from tablehost.games.engine.state import move_card

SECRET_REVEALED = "SECRET_REVEALED"


def run_side(ctx: Context, seat: int, timing: str, data: Any) -> None:
    """Run `seat`'s cards that listen to `timing` (order: module docstring)."""
    state = ctx.state
    for minion_id in list(board.board(state, seat)):
        if minion_id in board.board(state, seat):
            for listens_to, effect in spec_of(board.card_name(state, minion_id)).triggers:
                if listens_to == timing:
                    effect(ctx, Source(seat, minion_id), data)
    if board.current_seat(state) != seat:
        for secret_id in list(board.secrets(state, seat)):
            if secret_id in board.secrets(state, seat):
                _maybe_reveal(ctx, seat, secret_id, timing, data)
    equipped = board.weapon_id(state, seat)
    if equipped is not None:
        for listens_to, effect in spec_of(board.card_name(state, equipped)).triggers:
            if listens_to == timing:
                effect(ctx, Source(seat, equipped), data)


def _maybe_reveal(ctx: Context, seat: int, secret_id: str, timing: str, data: Any) -> None:
    state = ctx.state
    spec = spec_of(board.card_name(state, secret_id))
    trigger = spec.secret
    source = Source(seat, secret_id)
    if trigger is None or trigger.timing != timing or not trigger.condition(state, source, data):
        return
    move_card(state, secret_id, board.secrets_zone(state, seat), board.graveyard_zone(state, seat))
    ctx.emit(SECRET_REVEALED, {"seat": seat, "card": secret_id, "name": spec.name})
    trigger.effect(ctx, source, data)
    ctx.fire(duel_timings.SECRET_REVEALED, duel_timings.SecretRevealed(seat, secret_id, spec.name))


def _side_handler(seat: int, timing: str) -> TriggerHandler:
    def handler(ctx: Context, data: Any) -> None:
        run_side(ctx, seat, timing, data)

    return handler


TRIGGERS: tuple[Trigger, ...] = tuple(
    Trigger(timing, _side_handler(seat, timing), seat)
    for timing in duel_timings.CARD_TIMINGS
    for seat in range(board.SEATS)
)
