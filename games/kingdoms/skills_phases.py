"""Skills on the turn's phase timings (generals.py lists who holds them):
each a trigger handler that checks the phase is its holder's.

- handsome (Zhou Yu): draws one more card in the draw phase
  (DRAW_N_CARDS).
- self_restraint (Lü Meng): skips his discard phase if he used no Slash
  this turn (PHASE_CHANGING).
- surprise_raid (Zhang Liao): skips his draw phase to take a random hand
  card from each of up to two other players, the nearest in seat order
  with a card in hand (PHASE_CHANGING).
- adaptable (Zhang He): when his play phase is about to be skipped
  (Indulgence), discards a random hand card to take it after all
  (PHASE_SKIPPING cancels the skip).
- close_moon (Diao Chan): draws a card at the start of her finish phase
  (PHASE_START).
- fortify (Cao Ren): at the start of his finish phase, if wounded, draws
  three cards and turns his general face down, so his next turn is
  skipped (PHASE_START)."""

from __future__ import annotations

from tablehost.games.engine.engine import Context
from tablehost.games.engine.plugin import Skill
from tablehost.games.kingdoms import table
from tablehost.games.kingdoms import timings as kt
from tablehost.games.engine.state import seat_player_id

RAID_VICTIMS = 2
FORTIFY_CARDS = 3


def _handsome(ctx: Context, seat: int, data: kt.DrawNCardsData) -> None:
    if data.player_id == seat_player_id(ctx.state, seat):
        data.count += 1
        table.announce_skill(ctx, seat, "handsome")


def _self_restraint(ctx: Context, seat: int, data: kt.PhaseData) -> None:
    if data.seat == seat and data.phase == table.DISCARD_PHASE and table.player(ctx.state, seat)["slashes"] == 0:
        data.skipped = True
        table.announce_skill(ctx, seat, "self_restraint")


def _surprise_raid(ctx: Context, seat: int, data: kt.PhaseData) -> None:
    state = ctx.state
    if data.seat != seat or data.phase != table.DRAW_PHASE:
        return
    victims = [other for other in table.living_from(state, seat)[1:] if table.hand(state, other)][:RAID_VICTIMS]
    if not victims:
        return
    data.skipped = True
    table.announce_skill(ctx, seat, "surprise_raid")
    for victim in victims:
        held = table.hand(state, victim)
        table.move(state, held[ctx.random("raid.card").below(len(held))], table.hand_zone(state, seat))


def _adaptable(ctx: Context, seat: int, data: kt.PhaseData) -> None:
    state = ctx.state
    if data.seat != seat or data.phase != table.PLAY_PHASE or not data.skipped or not table.hand(state, seat):
        return
    held = table.hand(state, seat)
    table.discard(state, held[ctx.random("adaptable.discard").below(len(held))])
    data.skipped = False
    table.announce_skill(ctx, seat, "adaptable")


def _close_moon(ctx: Context, seat: int, data: kt.PhaseData) -> None:
    if data.seat == seat and data.phase == table.FINISH_PHASE:
        table.announce_skill(ctx, seat, "close_moon")
        table.draw(ctx, seat, 1)


def _fortify(ctx: Context, seat: int, data: kt.PhaseData) -> None:
    record = table.player(ctx.state, seat)
    if data.seat == seat and data.phase == table.FINISH_PHASE and record["health"] < record["max_health"]:
        table.announce_skill(ctx, seat, "fortify")
        table.draw(ctx, seat, FORTIFY_CARDS)
        if record["face_up"]:
            table.turn_over(ctx, seat)


SKILLS: tuple[Skill, ...] = (
    Skill("handsome", ((kt.DRAW_N_CARDS, _handsome),)),
    Skill("self_restraint", ((kt.PHASE_CHANGING, _self_restraint),)),
    Skill("surprise_raid", ((kt.PHASE_CHANGING, _surprise_raid),)),
    Skill("adaptable", ((kt.PHASE_SKIPPING, _adaptable),)),
    Skill("close_moon", ((kt.PHASE_START, _close_moon),)),
    Skill("fortify", ((kt.PHASE_START, _fortify),)),
)
