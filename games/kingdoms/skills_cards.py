"""Skills on using cards, damage and dying (generals.py lists who holds
them): each a trigger handler that checks the event concerns its holder.

- villainous_hero (Cao Cao): when damaged, takes the card that damaged him
  (DAMAGED).
- integrity (Xun Yu): when damaged, draws until his hand holds as many
  cards as his maximum health (DAMAGED).
- wild_bones (Wei Yan): when he damages a player at distance 1, he heals 1
  (DAMAGED).
- wisdom (Huang Yueying): draws a card whenever she uses a trick that is
  not delayed (CARD_USED).
- continuous_victory (Lu Xun): draws a card whenever he uses the last card
  of his hand (CARD_USED).
- exaltation (Sun Ce): draws a card whenever he uses a Duel or a red
  Slash, or is the target of one (CARD_USED).
- nirvana (Pang Tong): the first time nobody saves him from dying, he
  rests instead of dying (ASK_FOR_PEACHES_DONE): his cards are discarded,
  he sits out his next turn and comes back at the one after with full
  health. Resting and its count-down are the seed's (turns.py); the
  number of turns is our choice."""

from __future__ import annotations

from tablehost.games.engine.engine import Context
from tablehost.games.engine.plugin import Skill
from tablehost.games.engine.skills import revoke_skill
from tablehost.games.kingdoms import cards, damage, machine, table
from tablehost.games.kingdoms import timings as kt

# A turn's count-down ends the rest, and the turn it ends in is played: 2
# means the next turn is sat out and the one after is played.
NIRVANA_REST = 2

RESTING = "RESTING"


def _villainous_hero(ctx: Context, seat: int, data: kt.DamageData) -> None:
    state = ctx.state
    if data.target != seat or data.card is None:
        return
    if data.card in table.cards_in(state, table.PROCESSING) or data.card in table.cards_in(state, table.DISCARD):
        table.move(state, data.card, table.hand_zone(state, seat))
        table.announce_skill(ctx, seat, "villainous_hero")


def _integrity(ctx: Context, seat: int, data: kt.DamageData) -> None:
    if data.target != seat:
        return
    missing = table.player(ctx.state, seat)["max_health"] - len(table.hand(ctx.state, seat))
    if missing > 0:
        table.announce_skill(ctx, seat, "integrity")
        table.draw(ctx, seat, missing)


def _wild_bones(ctx: Context, seat: int, data: kt.DamageData) -> None:
    state = ctx.state
    record = table.player(state, seat)
    if data.source != seat or data.target == seat or not table.alive(state, seat):
        return
    if table.distance(state, seat, data.target) <= 1 and record["health"] < record["max_health"]:
        table.announce_skill(ctx, seat, "wild_bones")
        damage.heal(ctx, seat)


def _wisdom(ctx: Context, seat: int, data: kt.CardUseData) -> None:
    if data.seat == seat and cards.spec_of(data.card).kind == cards.TRICK:
        table.announce_skill(ctx, seat, "wisdom")
        table.draw(ctx, seat, 1)


def _continuous_victory(ctx: Context, seat: int, data: kt.CardUseData) -> None:
    if data.seat == seat and not table.hand(ctx.state, seat):
        table.announce_skill(ctx, seat, "continuous_victory")
        table.draw(ctx, seat, 1)


def _exaltation(ctx: Context, seat: int, data: kt.CardUseData) -> None:
    used = cards.card(data.card)
    if used.name == cards.DUEL or (used.name == cards.SLASH and used.red):
        if data.seat == seat or seat in data.targets:
            table.announce_skill(ctx, seat, "exaltation")
            table.draw(ctx, seat, 1)


def _nirvana(ctx: Context, seat: int, data: kt.DyingData) -> bool:
    """Rest instead of dying: out of play (not alive, identity still
    hidden) until the rest is over; the skill is spent."""
    state = ctx.state
    if data.seat != seat:
        return False
    table.announce_skill(ctx, seat, "nirvana")
    for card_id in table.all_cards_of(state, seat):
        table.discard(state, card_id)
    table.player(state, seat).update(alive=False, health=0, rest=NIRVANA_REST)
    revoke_skill(ctx, seat, "nirvana")
    ctx.emit(RESTING, {"seat": seat, "turns": NIRVANA_REST})
    if seat == table.current_seat(state):
        machine.unwind(ctx, "turn", table.OUT_OF_TURN)
    return True


SKILLS: tuple[Skill, ...] = (
    Skill("villainous_hero", ((kt.DAMAGED, _villainous_hero),)),
    Skill("integrity", ((kt.DAMAGED, _integrity),)),
    Skill("wild_bones", ((kt.DAMAGED, _wild_bones),)),
    Skill("wisdom", ((kt.CARD_USED, _wisdom),)),
    Skill("continuous_victory", ((kt.CARD_USED, _continuous_victory),)),
    Skill("exaltation", ((kt.CARD_USED, _exaltation),)),
    Skill("nirvana", ((kt.ASK_FOR_PEACHES_DONE, _nirvana),)),
)
