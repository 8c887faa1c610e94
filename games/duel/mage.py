"""The mage's cards: burn, freeze, card draw; secrets that punish attacks on
the hero; the Fireblast hero power."""

from __future__ import annotations

from tablehost.games.duel import board, effects
from tablehost.games.duel import timings as duel_timings
from tablehost.games.duel.cards import (
    ANY_CHARACTER,
    CardSpec,
    SecretTrigger,
    Source,
    hero_power,
    is_spell,
    minion,
    secret,
    spell,
)
from tablehost.games.engine.engine import Context
from tablehost.games.engine.state import State, seat_player_id

MAGE = "mage"


def _frostbolt(ctx: Context, source: Source, target: str | None) -> None:
    if target is not None:
        effects.deal_damage(ctx, source.card_id, target, 3)
        effects.freeze(ctx, target)


def _arcane_volley(ctx: Context, source: Source, target: str | None) -> None:
    """Three missiles, each at an enemy character still standing when it flies."""
    for _ in range(3):
        aimed = effects.random_choice(ctx, "arcane_volley.target", effects.living_enemies(ctx.state, source.seat))
        if aimed is not None:
            effects.deal_damage(ctx, source.card_id, aimed, 1)


def _frost_nova(ctx: Context, source: Source, target: str | None) -> None:
    for minion_id in board.board(ctx.state, board.opponent(source.seat)):
        effects.freeze(ctx, minion_id)


def _gain_attack_when_you_cast(ctx: Context, source: Source, data: duel_timings.CardPlayed) -> None:
    """Any spell the owner casts counts, a secret too (cards.is_spell)."""
    if data.seat == source.seat and is_spell(data.kind):
        effects.buff(ctx.state, source.card_id, attack=1)


def _your_hero_is_attacked(state: State, source: Source, data: duel_timings.AttackDeclared) -> bool:
    return data.target == seat_player_id(state, source.seat)


def _a_minion_attacks_your_hero(state: State, source: Source, data: duel_timings.AttackDeclared) -> bool:
    return _your_hero_is_attacked(state, source, data) and board.is_minion(state, data.attacker)


def _gain_8_armor(ctx: Context, source: Source, data: duel_timings.AttackDeclared) -> None:
    effects.gain_armor(ctx.state, source.seat, 8)


def _destroy_the_attacker(ctx: Context, source: Source, data: duel_timings.AttackDeclared) -> None:
    effects.destroy(ctx.state, data.attacker)


FIREBLAST = hero_power("Fireblast", MAGE, "Deal 1 damage.", effects.damage_target(1),
                       target=ANY_CHARACTER, aim="enemy")

CARDS: tuple[CardSpec, ...] = (
    minion("Mana Wyrm", 1, 1, 3, MAGE, "Whenever you cast a spell, gain +1 attack.",
           triggers=((duel_timings.CARD_PLAYED, _gain_attack_when_you_cast),)),
    spell("Arcane Volley", 1, MAGE, "Deal 3 damage randomly split among enemy characters.", _arcane_volley),
    spell("Frostbolt", 2, MAGE, "Deal 3 damage to a character and freeze it.", _frostbolt,
          target=ANY_CHARACTER, aim="enemy"),
    spell("Arcane Intellect", 3, MAGE, "Draw 2 cards.", effects.draw(2)),
    spell("Frost Nova", 3, MAGE, "Freeze all enemy minions.", _frost_nova),
    spell("Fireball", 4, MAGE, "Deal 6 damage.", effects.damage_target(6), target=ANY_CHARACTER, aim="enemy"),
    minion("Water Elemental", 4, 3, 6, MAGE, "Freeze any character damaged by this minion.",
           triggers=((duel_timings.DAMAGE_TAKEN, effects.freeze_what_it_damages),)),
    spell("Flamestrike", 7, MAGE, "Deal 4 damage to all enemy minions.",
          effects.damage_all(4, enemies_only=True, minions_only=True)),
    secret("Ice Barrier", MAGE, "Secret: when your hero is attacked, gain 8 armor.",
           SecretTrigger(duel_timings.ATTACK_DECLARED, _your_hero_is_attacked, _gain_8_armor)),
    secret("Vaporize", MAGE, "Secret: when a minion attacks your hero, destroy it.",
           SecretTrigger(duel_timings.ATTACK_DECLARED, _a_minion_attacks_your_hero, _destroy_the_attacker)),
)
