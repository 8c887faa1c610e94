"""Playing a card, attacking and the hero power: the actions of a turn.

Effect order, deterministic and the same on every replay:
1. An action's own steps run in order: a minion card is paid for, enters
   the board at the right end, fires CARD_PLAYED, runs its battlecry, then
   fires MINION_SUMMONED; a spell is paid for, goes to the graveyard, fires
   CARD_PLAYED, then resolves; an attack fires ATTACK_DECLARED (secrets
   may answer or redirect it), then both sides deal their damage, the
   attacker's first.
2. A timing fires as soon as its event happens (depth first): the active
   player's cards run first, then the opponent's; within a side minions
   left to right, then secrets in the order played, then the weapon
   (abilities.py). Every random choice comes from the recorded PRNG.
3. Deaths wait for the end of the step: then every dead minion leaves at
   once and their deaths resolve active side first, left to right,
   deathrattle before MINION_DIED, repeated until nobody is dying
   (deaths.py). Only then is a hero at 0 health found: it loses, and
   both at once is a draw.
"""

from __future__ import annotations

from tablehost.games.duel import board, effects, legal
from tablehost.games.duel import timings as duel_timings
from tablehost.games.duel.catalog import spec_of
from tablehost.games.duel.cards import MINION, SECRET, WEAPON, Source
from tablehost.games.duel.deaths import game_result, resolve_deaths
from tablehost.games.duel.turns import after_step, begin_turn_action, refuse_if
from tablehost.games.engine.engine import Context
from tablehost.games.engine.plugin import Action
from tablehost.games.engine.state import move_card, seat_player_id

# Events of a turn's actions, in the order a move causes them.
PLAYED = "PLAYED"
ATTACKED = "ATTACKED"
ATTACK_CALLED_OFF = "ATTACK_CALLED_OFF"
HERO_POWER_USED = "HERO_POWER_USED"


def play(action: Action, ctx: Context) -> None:
    state = ctx.state
    seat = begin_turn_action(action, ctx, {"card"}, {"target"})
    card_id, target = action.payload["card"], action.payload.get("target")
    refuse_if(legal.play_refusal(state, seat, card_id, target))
    spec = spec_of(board.card_name(state, card_id))
    board.hero(state, seat)["mana"] -= spec.cost
    hand_zone = board.hand_zone(state, seat)
    source = Source(seat, card_id)
    ctx.emit(PLAYED, {"seat": seat, "card": card_id, "name": spec.name, "target": target})
    played = duel_timings.CardPlayed(seat, card_id, spec.kind, target)
    if spec.kind == MINION:
        effects.enter_board(state, seat, card_id, spec, hand_zone, None)
        ctx.fire(duel_timings.CARD_PLAYED, played)
        if spec.on_play is not None:
            spec.on_play(ctx, source, target)
        ctx.fire(duel_timings.MINION_SUMMONED, duel_timings.MinionSummoned(seat, card_id))
    elif spec.kind == WEAPON:
        effects.equip(ctx, seat, card_id, spec, hand_zone)
        ctx.fire(duel_timings.CARD_PLAYED, played)
    elif spec.kind == SECRET:
        move_card(state, card_id, hand_zone, board.secrets_zone(state, seat))
        ctx.fire(duel_timings.CARD_PLAYED, played)
    else:
        move_card(state, card_id, hand_zone, board.graveyard_zone(state, seat))
        ctx.fire(duel_timings.CARD_PLAYED, played)
        if spec.on_play is not None:
            spec.on_play(ctx, source, target)
    resolve_deaths(ctx)
    after_step(ctx)


def attack(action: Action, ctx: Context) -> None:
    state = ctx.state
    seat = begin_turn_action(action, ctx, {"attacker", "target"})
    attacker, target = action.payload["attacker"], action.payload["target"]
    refuse_if(legal.attack_refusal(state, seat, attacker, target))
    record = board.character(state, attacker)
    record["attacks"] += 1
    if board.is_minion(state, attacker):
        record["stealth"] = False
    ctx.emit(ATTACKED, {"seat": seat, "attacker": attacker, "target": target})
    declared = duel_timings.AttackDeclared(seat, attacker, target)
    ctx.fire(duel_timings.ATTACK_DECLARED, declared)
    resolve_deaths(ctx)
    target = declared.target
    if game_result(state) is None:
        if board.alive(state, attacker) and board.alive(state, target):
            _strike(ctx, seat, attacker, target)
        else:
            ctx.emit(ATTACK_CALLED_OFF, {"attacker": attacker, "target": target})
    after_step(ctx)


def _strike(ctx: Context, seat: int, attacker: str, target: str) -> None:
    """Both deal their damage (a hero under attack strikes nothing back);
    a hero's weapon loses a durability."""
    state = ctx.state
    blow = board.attack_of(state, attacker)
    counter = board.attack_of(state, target) if board.is_minion(state, target) else 0
    effects.deal_damage(ctx, attacker, target, blow)
    effects.deal_damage(ctx, target, attacker, counter)
    equipped = board.weapon(state, seat)
    if board.is_hero(state, attacker) and equipped is not None:
        equipped["durability"] -= 1
    resolve_deaths(ctx)


def hero_power(action: Action, ctx: Context) -> None:
    state = ctx.state
    seat = begin_turn_action(action, ctx, set(), {"target"})
    target = action.payload.get("target")
    refuse_if(legal.hero_power_refusal(state, seat, target))
    spec = legal.hero_power_of(state, seat)
    hero = board.hero(state, seat)
    hero["mana"] -= spec.cost
    hero["hero_power_used"] = True
    ctx.emit(HERO_POWER_USED, {"seat": seat, "name": spec.name, "target": target})
    if spec.on_play is not None:
        spec.on_play(ctx, Source(seat, seat_player_id(state, seat)), target)
    resolve_deaths(ctx)
    after_step(ctx)


