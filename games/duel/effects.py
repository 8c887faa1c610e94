"""The verbs card text is written with: deal damage, restore health, freeze,
summon, draw, destroy, buff, equip. Each changes the working state of the
action being applied and fires its timing at once (depth first), so a card
reacting to it ("whenever this minion takes damage") runs before the verb
returns. No verb removes a dead minion: a minion at 0 health or destroyed
stays on the board until the action's step ends and the death step
(deaths.py) takes every dead minion at once."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from tablehost.games.duel import board
from tablehost.games.duel import timings as duel_timings
from tablehost.games.duel.cards import CardSpec, PlayEffect, Source
from tablehost.games.engine.draw import create_draw_card_action
from tablehost.games.engine.engine import Context
from tablehost.games.engine.state import State, move_card, seat_player_id

T = TypeVar("T")

VAR_TOKENS = "duel.tokens_made"  # per seat: how many cards effects created (their ids)

DAMAGED = "DAMAGED"
SHIELD_POPPED = "SHIELD_POPPED"
HEALED = "HEALED"
SUMMONED = "SUMMONED"
FATIGUE = "FATIGUE"
CARD_BURNED = "CARD_BURNED"
FROZEN = "FROZEN"


def deal_damage(ctx: Context, source: str | None, target: str, amount: int) -> int:
    """`amount` damage to `target`: a divine shield takes a whole hit and
    breaks, a hero's armor absorbs first. Returns the health lost."""
    state = ctx.state
    if amount <= 0:
        return 0
    if board.is_minion(state, target):
        record = board.minion(state, target)
        if record["divine_shield"]:
            record["divine_shield"] = False
            ctx.emit(SHIELD_POPPED, {"target": target})
            return 0
        lost = amount
    else:
        record = board.character(state, target)
        absorbed = min(record["armor"], amount)
        record["armor"] -= absorbed
        lost = amount - absorbed
    if lost == 0:
        return 0
    record["health"] -= lost
    ctx.emit(DAMAGED, {"target": target, "amount": lost, "source": source})
    ctx.fire(duel_timings.DAMAGE_TAKEN, duel_timings.DamageTaken(target, lost, source))
    return lost


def restore_health(ctx: Context, source: str | None, target: str, amount: int) -> int:
    """Heal `target` by up to `amount`, never above its maximum; returns the health restored."""
    record = board.character(ctx.state, target)
    restored = max(0, min(amount, record["max_health"] - record["health"]))
    if restored == 0:
        return 0
    record["health"] += restored
    ctx.emit(HEALED, {"target": target, "amount": restored, "source": source})
    ctx.fire(duel_timings.HEALED, duel_timings.Healed(target, restored, source))
    return restored


def gain_armor(state: State, seat: int, amount: int) -> None:
    board.hero(state, seat)["armor"] += amount


def freeze(ctx: Context, target: str) -> None:
    """A frozen character misses its next attack: it thaws at the end of
    its owner's turn, unless it was frozen during that very turn."""
    board.character(ctx.state, target)["frozen_turn"] = board.turn_number(ctx.state)
    ctx.emit(FROZEN, {"target": target})


def destroy(state: State, minion_id: str) -> None:
    """Marked now, removed by the death step like a minion at 0 health."""
    board.minion(state, minion_id)["destroyed"] = True


def buff(state: State, minion_id: str, attack: int = 0, health: int = 0) -> None:
    record = board.minion(state, minion_id)
    record["attack"] += attack
    record["health"] += health
    record["max_health"] += health


def give_keyword(state: State, minion_id: str, keyword: str) -> None:
    if keyword not in board.KEYWORDS:
        raise ValueError(f"unknown keyword {keyword!r}")
    board.minion(state, minion_id)[keyword] = True


def gain_mana(state: State, seat: int, amount: int) -> None:
    """Mana for this turn only: the next turn refills to capacity."""
    record = board.hero(state, seat)
    record["mana"] = min(board.MANA_LIMIT, record["mana"] + amount)


def random_choice(ctx: Context, purpose: str, options: Sequence[T]) -> T | None:
    """One of `options` from a stream of its own (see Context.random), so a
    replay picks the same."""
    if not options:
        return None
    return options[ctx.random(purpose).below(len(options))]


def living_enemies(state: State, seat: int, minions_only: bool = False) -> list[str]:
    """The opponent's living characters (hero first, then minions left to right)."""
    found = board.characters(state, board.opponent(seat))
    return [c for c in found if board.alive(state, c) and not (minions_only and not board.is_minion(state, c))]


def minion_record(spec: CardSpec, seat: int) -> board.Record:
    """A minion as it enters a board: asleep (summoning sickness) unless it has charge."""
    record: board.Record = {
        "owner": seat,
        "tribe": spec.tribe,
        "attack": spec.attack,
        "health": spec.health,
        "max_health": spec.health,
        "asleep": True,
        "attacks": 0,
        "frozen_turn": None,
        "destroyed": False,
    }
    record.update({keyword: keyword in spec.keywords for keyword in board.KEYWORDS})
    return record


def enter_board(state: State, seat: int, card_id: str, spec: CardSpec, from_zone: str, position: int | None) -> None:
    """Move a minion card onto `seat`'s board at `position` (None: the right end)."""
    state["zones"][from_zone]["cards"].remove(card_id)
    on_board = board.board(state, seat)
    on_board.insert(len(on_board) if position is None else min(position, len(on_board)), card_id)
    state["variables"][board.VAR_MINIONS][card_id] = minion_record(spec, seat)


def create_card(state: State, seat: int, name: str, zone_id: str) -> str:
    """A card an effect makes (a token, the Lucky Coin), with an id of its own."""
    made = state["variables"].setdefault(VAR_TOKENS, [0] * board.SEATS)
    made[seat] += 1
    card_id = f"{seat_player_id(state, seat)}.t{made[seat]:02d}"
    state["variables"][board.VAR_CARDS][card_id] = name
    state["zones"][zone_id]["cards"].append(card_id)
    return card_id


def summon(ctx: Context, seat: int, spec: CardSpec, position: int | None = None) -> str | None:
    """Put a new `spec` minion on `seat`'s board; None when the board is full."""
    state = ctx.state
    if len(board.board(state, seat)) >= board.BOARD_LIMIT:
        return None
    graveyard = board.graveyard_zone(state, seat)
    card_id = create_card(state, seat, spec.name, graveyard)
    enter_board(state, seat, card_id, spec, graveyard, position)
    ctx.emit(SUMMONED, {"seat": seat, "minion": card_id, "name": spec.name})
    ctx.fire(duel_timings.MINION_SUMMONED, duel_timings.MinionSummoned(seat, card_id))
    return card_id


def draw_cards(ctx: Context, seat: int, count: int = 1) -> None:
    """Draw one card at a time: an empty deck deals fatigue damage (1, then
    2, 3, ...); a hand already holding 10 burns the card, shown to both."""
    state = ctx.state
    for _ in range(count):
        player = seat_player_id(state, seat)
        cards = board.deck(state, seat)
        if not cards:
            hero = board.hero(state, seat)
            hero["fatigue"] += 1
            ctx.emit(FATIGUE, {"seat": seat, "damage": hero["fatigue"]})
            deal_damage(ctx, None, player, hero["fatigue"])
        elif len(board.hand(state, seat)) >= board.HAND_LIMIT:
            burned = cards[0]
            move_card(state, burned, board.deck_zone(state, seat), board.burned_zone(state, seat))
            ctx.emit(CARD_BURNED, {"seat": seat, "card": burned, "name": board.card_name(state, burned)})
        else:
            ctx.run(create_draw_card_action(player, 1, board.deck_zone(state, seat), board.hand_zone(state, seat)))


def equip(ctx: Context, seat: int, card_id: str, spec: CardSpec, from_zone: str) -> None:
    """The new weapon replaces the old, which goes to the graveyard."""
    state = ctx.state
    old = board.weapon_id(state, seat)
    if old is not None:
        move_card(state, old, board.weapon_zone(state, seat), board.graveyard_zone(state, seat))
        del state["variables"][board.VAR_WEAPONS][old]
    move_card(state, card_id, from_zone, board.weapon_zone(state, seat))
    state["variables"][board.VAR_WEAPONS][card_id] = {"attack": spec.attack, "durability": spec.health}


# -- phrases: effects built from the verbs, so a card reads like its text ------------


def damage_target(amount: int) -> PlayEffect:
    """"Deal N damage" to the chosen target."""

    def effect(ctx: Context, source: Source, target: str | None) -> None:
        if target is not None:
            deal_damage(ctx, source.card_id, target, amount)

    return effect


def heal_target(amount: int) -> PlayEffect:
    """"Restore N health" to the chosen target."""

    def effect(ctx: Context, source: Source, target: str | None) -> None:
        if target is not None:
            restore_health(ctx, source.card_id, target, amount)

    return effect


def buff_target(attack: int, health: int = 0, keyword: str | None = None) -> PlayEffect:
    """"Give a minion +A/+H" (and a keyword) to the chosen target."""

    def effect(ctx: Context, source: Source, target: str | None) -> None:
        if target is not None:
            buff(ctx.state, target, attack, health)
            if keyword is not None:
                give_keyword(ctx.state, target, keyword)

    return effect


def draw(count: int) -> PlayEffect:
    """"Draw N cards"."""

    def effect(ctx: Context, source: Source, target: str | None) -> None:
        draw_cards(ctx, source.seat, count)

    return effect


def damage_all(amount: int, *, enemies_only: bool, minions_only: bool) -> PlayEffect:
    """Damage to every character it names at once, the active side's first,
    each side hero first and then left to right."""

    def effect(ctx: Context, source: Source, target: str | None) -> None:
        state = ctx.state
        seats = (board.opponent(source.seat),) if enemies_only else _from_current(state)
        hit = [c for seat in seats for c in board.characters(state, seat)
               if not (minions_only and not board.is_minion(state, c))]
        for character in hit:
            deal_damage(ctx, source.card_id, character, amount)

    return effect


def summon_tokens(spec: CardSpec, count: int) -> PlayEffect:
    """"Summon N x" at the right end of the owner's board."""

    def effect(ctx: Context, source: Source, target: str | None) -> None:
        for _ in range(count):
            summon(ctx, source.seat, spec)

    return effect


def _from_current(state: State) -> tuple[int, int]:
    current = board.current_seat(state)
    return current, board.opponent(current)


def freeze_what_it_damages(ctx: Context, source: Source, data: duel_timings.DamageTaken) -> None:
    """"Freeze any character damaged by this minion" (a DAMAGE_TAKEN trigger)."""
    if data.source == source.card_id:
        freeze(ctx, data.target)
