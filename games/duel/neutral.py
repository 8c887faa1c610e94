"""The neutral cards: any class's deck may hold them. Also the Lucky Coin,
which the second player receives, and the tokens neutral cards summon."""

from __future__ import annotations

from typing import Any

from tablehost.games.duel import board, effects
from tablehost.games.duel import timings as duel_timings
from tablehost.games.duel.cards import ANY_CHARACTER, FRIENDLY_MINION, NEUTRAL, SPELL, CardSpec, Source, minion
from tablehost.games.engine.engine import Context

BEAST = "beast"


def _gain_a_mana(ctx: Context, source: Source, target: str | None) -> None:
    effects.gain_mana(ctx.state, source.seat, 1)


LUCKY_COIN = CardSpec("Lucky Coin", 0, SPELL, NEUTRAL, "Gain 1 mana this turn only.",
                      on_play=_gain_a_mana, collectible=False)

DAMAGED_GOLEM = minion("Damaged Golem", 1, 2, 1, collectible=False)


def _summon_damaged_golem(ctx: Context, source: Source, position: int) -> None:
    effects.summon(ctx, source.seat, DAMAGED_GOLEM, position)


def _draw_a_card_on_death(ctx: Context, source: Source, position: int) -> None:
    effects.draw_cards(ctx, source.seat, 1)


def _two_damage_to_all_characters(ctx: Context, source: Source, position: int) -> None:
    effects.damage_all(2, enemies_only=False, minions_only=False)(ctx, source, None)


def _destroy_all_minions_at_your_turn_start(ctx: Context, source: Source, data: Any) -> None:
    if data.seat != source.seat:
        return
    for seat in range(board.SEATS):
        for minion_id in board.board(ctx.state, seat):
            effects.destroy(ctx.state, minion_id)


def _gain_attack_when_healed(ctx: Context, source: Source, data: duel_timings.Healed) -> None:
    effects.buff(ctx.state, source.card_id, attack=2)


def _hit_a_random_enemy_after_you_summon(ctx: Context, source: Source, data: duel_timings.MinionSummoned) -> None:
    if data.seat == source.seat and data.minion_id != source.card_id:
        target = effects.random_choice(ctx, "summon_hit.target", effects.living_enemies(ctx.state, source.seat))
        if target is not None:
            effects.deal_damage(ctx, source.card_id, target, 1)


def _draw_when_damaged(ctx: Context, source: Source, data: duel_timings.DamageTaken) -> None:
    if data.target == source.card_id:
        effects.draw_cards(ctx, source.seat, 1)


def _eight_damage_to_a_random_enemy_at_your_turn_end(ctx: Context, source: Source, data: Any) -> None:
    if data.seat == source.seat:
        target = effects.random_choice(ctx, "turn_end_hit.target", effects.living_enemies(ctx.state, source.seat))
        if target is not None:
            effects.deal_damage(ctx, source.card_id, target, 8)


CARDS: tuple[CardSpec, ...] = (
    minion("Lantern Moth", 1, 1, 2),
    minion("Gate Warden", 1, 1, 2, text="Taunt", keywords=("taunt",)),
    minion("Shield Squire", 1, 1, 1, text="Divine Shield", keywords=("divine_shield",)),
    minion("Alley Cutpurse", 1, 2, 1, text="Stealth", keywords=("stealth",)),
    minion("Hedge Archer", 1, 1, 1, text="Battlecry: deal 1 damage.",
           target=ANY_CHARACTER, aim="enemy", on_play=effects.damage_target(1)),
    minion("Dawnwatcher", 1, 1, 2, text="Whenever a character is healed, gain +2 attack.",
           triggers=((duel_timings.HEALED, _gain_attack_when_healed),)),
    minion("Marsh Crawler", 2, 2, 3, tribe=BEAST),
    minion("Hoard Gremlin", 2, 2, 1, text="Deathrattle: draw a card.", deathrattle=_draw_a_card_on_death),
    minion("Doom Herald", 2, 0, 7, text="At the start of your turn, destroy all minions.",
           triggers=((duel_timings.TURN_START, _destroy_all_minions_at_your_turn_start),)),
    minion("Knife Tosser", 2, 2, 2, text="After you summon a minion, deal 1 damage to a random enemy.",
           triggers=((duel_timings.MINION_SUMMONED, _hit_a_random_enemy_after_you_summon),)),
    minion("Tinker Apprentice", 2, 1, 1, text="Battlecry: draw a card.", on_play=effects.draw(1)),
    minion("Raider", 3, 3, 1, text="Charge", keywords=("charge",)),
    minion("Twinblade Sellsword", 3, 2, 3, text="Windfury", keywords=("windfury",)),
    minion("Penitent Acolyte", 3, 1, 3, text="Whenever this minion takes damage, draw a card.",
           triggers=((duel_timings.DAMAGE_TAKEN, _draw_when_damaged),)),
    minion("Scrap Golem", 3, 2, 3, text="Deathrattle: summon a 2/1 Damaged Golem.",
           deathrattle=_summon_damaged_golem),
    minion("Field Medic", 3, 3, 3, text="Battlecry: restore 3 health.",
           target=ANY_CHARACTER, aim="friend", on_play=effects.heal_target(3)),
    minion("Sunward Cleric", 3, 3, 2, text="Battlecry: give a friendly minion +1/+1.",
           target=FRIENDLY_MINION, aim="friend", on_play=effects.buff_target(1, 1)),
    minion("Rime Wolf", 3, 2, 3, text="Freeze any character damaged by this minion.", tribe=BEAST,
           triggers=((duel_timings.DAMAGE_TAKEN, effects.freeze_what_it_damages),)),
    minion("Ogre Brute", 4, 4, 5),
    minion("Bulwark Sentinel", 4, 3, 5, text="Taunt", keywords=("taunt",)),
    minion("Plague Abomination", 5, 4, 4, text="Taunt. Deathrattle: deal 2 damage to all characters.",
           keywords=("taunt",), deathrattle=_two_damage_to_all_characters),
    minion("Boulder Giant", 6, 6, 7),
    minion("Ember Lord", 8, 8, 8, text="At the end of your turn, deal 8 damage to a random enemy.",
           legendary=True, triggers=((duel_timings.TURN_END, _eight_damage_to_a_random_enemy_at_your_turn_end),)),
)

TOKENS: tuple[CardSpec, ...] = (LUCKY_COIN, DAMAGED_GOLEM)
