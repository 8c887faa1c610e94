"""The hunter's cards: beasts and what feeds on them, direct damage, traps;
the Steady Shot hero power."""

from __future__ import annotations

from tablehost.games.duel import board, effects
from tablehost.games.duel import timings as duel_timings
from tablehost.games.duel.cards import (
    AN_ENEMY_MINION,
    AN_ENEMY_MINION_AND_ROOM,
    ANY_CHARACTER,
    ANY_MINION,
    CardSpec,
    SecretTrigger,
    Source,
    Targeting,
    hero_power,
    minion,
    secret,
    spell,
    weapon,
)
from tablehost.games.duel.neutral import BEAST
from tablehost.games.engine.engine import Context
from tablehost.games.engine.state import State, seat_player_id

HUNTER = "hunter"

HOUND = minion("Hound", 1, 1, 1, HUNTER, "Charge", keywords=("charge",), tribe=BEAST, collectible=False)
HYENA = minion("Hyena", 2, 2, 2, HUNTER, tribe=BEAST, collectible=False)
SNAKE = minion("Snake", 1, 1, 1, HUNTER, tribe=BEAST, collectible=False)


def _is_beast(state: State, minion_id: str) -> bool:
    return board.minion(state, minion_id).get("tribe") == BEAST


def _friendly_beast(state: State, seat: int, character: str) -> bool:
    return board.is_minion(state, character) and board.owner(state, character) == seat and _is_beast(state, character)


FRIENDLY_BEAST = Targeting("a friendly beast", _friendly_beast)


def _steady_shot(ctx: Context, source: Source, target: str | None) -> None:
    effects.deal_damage(ctx, source.card_id, seat_player_id(ctx.state, board.opponent(source.seat)), 2)


def _set_health_to_1(ctx: Context, source: Source, target: str | None) -> None:
    if target is not None:
        record = board.minion(ctx.state, target)
        record["health"] = record["max_health"] = 1


def _kill_command(ctx: Context, source: Source, target: str | None) -> None:
    if target is not None:
        beasts = [m for m in board.board(ctx.state, source.seat) if _is_beast(ctx.state, m)]
        effects.deal_damage(ctx, source.card_id, target, 5 if beasts else 3)


def _a_hound_per_enemy_minion(ctx: Context, source: Source, target: str | None) -> None:
    for _ in board.board(ctx.state, board.opponent(source.seat)):
        effects.summon(ctx, source.seat, HOUND)


def _multi_shot(ctx: Context, source: Source, target: str | None) -> None:
    """Two different random enemy minions, chosen before either is hit.

    It is cast only with an enemy minion on the board (AN_ENEMY_MINION);
    with exactly one, that one alone takes the 3 damage, as in Hearthstone.
    Both are our choice: the seed has no cards."""
    candidates = effects.living_enemies(ctx.state, source.seat, minions_only=True)
    first = effects.random_choice(ctx, "multi_shot.target", candidates)
    second = effects.random_choice(ctx, "multi_shot.target", [m for m in candidates if m != first])
    for aimed in (first, second):
        if aimed is not None:
            effects.deal_damage(ctx, source.card_id, aimed, 3)


def _grow_when_a_friendly_beast_dies(ctx: Context, source: Source, data: duel_timings.MinionDied) -> None:
    if data.seat == source.seat and data.minion_id != source.card_id and data.tribe == BEAST:
        effects.buff(ctx.state, source.card_id, attack=2, health=1)


def _draw_when_you_summon_a_beast(ctx: Context, source: Source, data: duel_timings.MinionSummoned) -> None:
    if data.seat == source.seat and data.minion_id != source.card_id and _is_beast(ctx.state, data.minion_id):
        effects.draw_cards(ctx, source.seat, 1)


def _two_hyenas(ctx: Context, source: Source, position: int) -> None:
    for _ in range(2):
        effects.summon(ctx, source.seat, HYENA, position)


def _sharpen_on_a_revealed_secret(ctx: Context, source: Source, data: duel_timings.SecretRevealed) -> None:
    equipped = board.weapon(ctx.state, source.seat)
    if data.seat == source.seat and equipped is not None:
        equipped["durability"] += 1


def _your_hero_is_attacked(state: State, source: Source, data: duel_timings.AttackDeclared) -> bool:
    return data.target == seat_player_id(state, source.seat)


def _one_of_your_minions_is_attacked(state: State, source: Source, data: duel_timings.AttackDeclared) -> bool:
    return board.is_minion(state, data.target) and board.owner(state, data.target) == source.seat


def _two_damage_to_all_enemies(ctx: Context, source: Source, data: duel_timings.AttackDeclared) -> None:
    effects.damage_all(2, enemies_only=True, minions_only=False)(ctx, source, None)


def _three_snakes(ctx: Context, source: Source, data: duel_timings.AttackDeclared) -> None:
    effects.summon_tokens(SNAKE, 3)(ctx, source, None)


STEADY_SHOT = hero_power("Steady Shot", HUNTER, "Deal 2 damage to the enemy hero.", _steady_shot)

CARDS: tuple[CardSpec, ...] = (
    spell("Arcane Shot", 1, HUNTER, "Deal 2 damage.", effects.damage_target(2), target=ANY_CHARACTER, aim="enemy"),
    spell("Hunter's Mark", 1, HUNTER, "Change a minion's health to 1.", _set_health_to_1,
          target=ANY_MINION, aim="enemy"),
    minion("Starving Buzzard", 2, 2, 1, HUNTER, "Whenever you summon a beast, draw a card.", tribe=BEAST,
           triggers=((duel_timings.MINION_SUMMONED, _draw_when_you_summon_a_beast),)),
    minion("Scavenging Hyena", 2, 2, 2, HUNTER, "Whenever a friendly beast dies, gain +2/+1.", tribe=BEAST,
           triggers=((duel_timings.MINION_DIED, _grow_when_a_friendly_beast_dies),)),
    spell("Kill Command", 3, HUNTER, "Deal 3 damage. If you have a beast, deal 5 damage instead.", _kill_command,
          target=ANY_CHARACTER, aim="enemy"),
    spell("Unleash the Hounds", 3, HUNTER, "For each enemy minion, summon a 1/1 Hound with Charge.",
          _a_hound_per_enemy_minion, requires=AN_ENEMY_MINION_AND_ROOM),
    weapon("Eaglehorn Bow", 3, 3, 2, HUNTER, "Whenever a friendly secret is revealed, gain +1 durability.",
           triggers=((duel_timings.SECRET_REVEALED, _sharpen_on_a_revealed_secret),)),
    minion("Houndmaster", 4, 4, 3, HUNTER, "Battlecry: give a friendly beast +2/+2 and Taunt.",
           target=FRIENDLY_BEAST, aim="friend", on_play=effects.buff_target(2, 2, "taunt")),
    spell("Multi-Shot", 4, HUNTER, "Deal 3 damage to two random enemy minions.", _multi_shot,
          requires=AN_ENEMY_MINION),
    minion("Savannah Highmane", 6, 6, 5, HUNTER, "Deathrattle: summon two 2/2 Hyenas.", tribe=BEAST,
           deathrattle=_two_hyenas),
    secret("Explosive Trap", HUNTER, "Secret: when your hero is attacked, deal 2 damage to all enemies.",
           SecretTrigger(duel_timings.ATTACK_DECLARED, _your_hero_is_attacked, _two_damage_to_all_enemies)),
    secret("Snake Trap", HUNTER, "Secret: when one of your minions is attacked, summon three 1/1 Snakes.",
           SecretTrigger(duel_timings.ATTACK_DECLARED, _one_of_your_minions_is_attacked, _three_snakes)),
)

TOKENS: tuple[CardSpec, ...] = (HOUND, HYENA, SNAKE)
