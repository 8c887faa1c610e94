"""The paladin's cards: blessings, divine shields, healing, weapons; secrets
that guard the hero; the Reinforce hero power."""

from __future__ import annotations

from tablehost.games.duel import board, effects
from tablehost.games.duel import timings as duel_timings
from tablehost.games.duel.cards import (
    ANY_CHARACTER,
    ANY_MINION,
    FRIENDLY_MINION,
    ROOM_ON_YOUR_BOARD,
    CardSpec,
    SecretTrigger,
    Source,
    hero_power,
    minion,
    secret,
    spell,
    weapon,
)
from tablehost.games.engine.engine import Context
from tablehost.games.engine.state import State, seat_player_id

PALADIN = "paladin"

SILVER_HAND_RECRUIT = minion("Silver Hand Recruit", 1, 1, 1, PALADIN, collectible=False)
DEFENDER = minion("Defender", 1, 2, 1, PALADIN, collectible=False)


def _restore_6_to_your_hero(ctx: Context, source: Source, target: str | None) -> None:
    effects.restore_health(ctx, source.card_id, seat_player_id(ctx.state, source.seat), 6)


def _heal_your_hero_when_it_attacks(ctx: Context, source: Source, data: duel_timings.AttackDeclared) -> None:
    hero = seat_player_id(ctx.state, source.seat)
    if data.attacker == hero:
        effects.restore_health(ctx, source.card_id, hero, 2)


def _an_enemy_attacks(state: State, source: Source, data: duel_timings.AttackDeclared) -> bool:
    return board.owner(state, data.attacker) != source.seat


def _a_defender_takes_the_attack(ctx: Context, source: Source, data: duel_timings.AttackDeclared) -> None:
    defender = effects.summon(ctx, source.seat, DEFENDER)
    if defender is not None:
        data.target = defender


def _your_hero_takes_damage(state: State, source: Source, data: duel_timings.DamageTaken) -> bool:
    return data.target == seat_player_id(state, source.seat)


def _same_damage_to_the_enemy_hero(ctx: Context, source: Source, data: duel_timings.DamageTaken) -> None:
    enemy_hero = seat_player_id(ctx.state, board.opponent(source.seat))
    effects.deal_damage(ctx, source.card_id, enemy_hero, data.amount)


def _consecration(ctx: Context, source: Source, target: str | None) -> None:
    effects.damage_all(2, enemies_only=True, minions_only=False)(ctx, source, target)


# With a full board Reinforce is not offered (as in Hearthstone; our
# choice, the seed has no hero powers' text): it would take 2 mana for nothing.
REINFORCE = hero_power("Reinforce", PALADIN, "Summon a 1/1 Silver Hand Recruit.",
                       effects.summon_tokens(SILVER_HAND_RECRUIT, 1), requires=ROOM_ON_YOUR_BOARD)

CARDS: tuple[CardSpec, ...] = (
    spell("Blessing of Might", 1, PALADIN, "Give a minion +3 attack.", effects.buff_target(3),
          target=ANY_MINION, aim="friend"),
    spell("Hand of Protection", 1, PALADIN, "Give a minion Divine Shield.",
          effects.buff_target(0, 0, "divine_shield"), target=ANY_MINION, aim="friend"),
    weapon("Light's Justice", 1, 1, 4, PALADIN),
    spell("Holy Light", 2, PALADIN, "Restore 6 health.", effects.heal_target(6), target=ANY_CHARACTER, aim="friend"),
    minion("Argent Protector", 2, 2, 2, PALADIN, "Battlecry: give a friendly minion Divine Shield.",
           target=FRIENDLY_MINION, aim="friend", on_play=effects.buff_target(0, 0, "divine_shield")),
    spell("Consecration", 4, PALADIN, "Deal 2 damage to all enemies.", _consecration),
    spell("Blessing of Kings", 4, PALADIN, "Give a minion +4/+4.", effects.buff_target(4, 4),
          target=ANY_MINION, aim="friend"),
    weapon("Truesilver Champion", 4, 4, 2, PALADIN, "Whenever your hero attacks, restore 2 health to it.",
           triggers=((duel_timings.ATTACK_DECLARED, _heal_your_hero_when_it_attacks),)),
    minion("Guardian of Kings", 7, 5, 6, PALADIN, "Battlecry: restore 6 health to your hero.",
           on_play=_restore_6_to_your_hero),
    secret("Noble Sacrifice", PALADIN, "Secret: when an enemy attacks, summon a 2/1 Defender as the new target.",
           SecretTrigger(duel_timings.ATTACK_DECLARED, _an_enemy_attacks, _a_defender_takes_the_attack)),
    secret("Eye for an Eye", PALADIN, "Secret: when your hero takes damage, deal that much damage to the enemy hero.",
           SecretTrigger(duel_timings.DAMAGE_TAKEN, _your_hero_takes_damage, _same_damage_to_the_enemy_hero)),
)

TOKENS: tuple[CardSpec, ...] = (SILVER_HAND_RECRUIT, DEFENDER)
