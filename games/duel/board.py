"""Where things are in a Duel state, and the small reads every rule uses.

The state stays plain data (the engine's rule): cards are ids in zones, and
what a card is comes from its name, looked up in the card catalog by the
modules that need card text. Layout, beside the engine's own keys:

- zones per player `p0`: `player:p0:deck` (its order is never shown),
  `player:p0:hand`, `player:p0:board` (minions, left to right),
  `player:p0:secrets` (in the order they were played), `player:p0:weapon`,
  `player:p0:graveyard` (dead minions, spells cast, spent weapons and
  secrets) and `player:p0:burned` (cards drawn into a full hand);
- `variables["duel.cards"]`: every card id of the game with its card name;
- `variables["duel.minions"]`: each minion on a board, by card id: its
  owner's seat, tribe, attack, health, max_health, keywords (taunt, charge,
  divine_shield, windfury, stealth as booleans), `asleep` (summoned this
  turn), `attacks` made this turn, `frozen_turn` (the turn it was frozen
  in, or None) and `destroyed` (a destroy effect waiting for the death
  step);
- `variables["duel.weapons"]`: each equipped weapon's attack and durability;
- `players[seat]["data"]`: the hero: class, deck, health, max_health,
  armor, mana, capacity, fatigue, hero_power_used, attacks and frozen_turn.

A character is named by one id: a hero by its player's id (`p0`), a minion
by its card id (`p0.07`), so an action's target is one string."""

from __future__ import annotations

from typing import Any

from tablehost.games.engine.state import State, seat_player_id, seat_zone_id

SEATS = 2
HAND_LIMIT = 10
BOARD_LIMIT = 7
MANA_LIMIT = 10

VAR_CARDS = "duel.cards"
VAR_MINIONS = "duel.minions"
VAR_WEAPONS = "duel.weapons"

KEYWORDS = ("taunt", "charge", "divine_shield", "windfury", "stealth")

Record = dict[str, Any]


def opponent(seat: int) -> int:
    return 1 - seat


def deck_zone(state: State, seat: int) -> str:
    return seat_zone_id(state, seat, "deck")


def hand_zone(state: State, seat: int) -> str:
    return seat_zone_id(state, seat, "hand")


def board_zone(state: State, seat: int) -> str:
    return seat_zone_id(state, seat, "board")


def secrets_zone(state: State, seat: int) -> str:
    return seat_zone_id(state, seat, "secrets")


def weapon_zone(state: State, seat: int) -> str:
    return seat_zone_id(state, seat, "weapon")


def graveyard_zone(state: State, seat: int) -> str:
    return seat_zone_id(state, seat, "graveyard")


def burned_zone(state: State, seat: int) -> str:
    return seat_zone_id(state, seat, "burned")


ZONE_KINDS = (
    ("deck", deck_zone),
    ("hand", hand_zone),
    ("board", board_zone),
    ("secrets", secrets_zone),
    ("weapon", weapon_zone),
    ("graveyard", graveyard_zone),
    ("burned", burned_zone),
)


def cards_in(state: State, zone_id: str) -> list[str]:
    return state["zones"][zone_id]["cards"]


def deck(state: State, seat: int) -> list[str]:
    return cards_in(state, deck_zone(state, seat))


def hand(state: State, seat: int) -> list[str]:
    return cards_in(state, hand_zone(state, seat))


def board(state: State, seat: int) -> list[str]:
    return cards_in(state, board_zone(state, seat))


def secrets(state: State, seat: int) -> list[str]:
    return cards_in(state, secrets_zone(state, seat))


def weapon_id(state: State, seat: int) -> str | None:
    equipped = cards_in(state, weapon_zone(state, seat))
    return equipped[0] if equipped else None


def weapon(state: State, seat: int) -> Record | None:
    equipped = weapon_id(state, seat)
    return None if equipped is None else state["variables"][VAR_WEAPONS][equipped]


def card_name(state: State, card_id: str) -> str:
    return state["variables"][VAR_CARDS][card_id]


def hero(state: State, seat: int) -> Record:
    return state["players"][seat]["data"]


def is_hero(state: State, character: str) -> bool:
    return any(player["id"] == character for player in state["players"])


def hero_seat(state: State, character: str) -> int:
    return next(seat for seat, player in enumerate(state["players"]) if player["id"] == character)


def minion(state: State, card_id: str) -> Record:
    return state["variables"][VAR_MINIONS][card_id]


def is_minion(state: State, character: str) -> bool:
    return character in state["variables"][VAR_MINIONS]


def owner(state: State, character: str) -> int:
    """The seat a character (hero or minion on a board) belongs to."""
    if is_minion(state, character):
        return minion(state, character)["owner"]
    return hero_seat(state, character)


def character(state: State, character_id: str) -> Record:
    """A hero's or a minion's record: both have health, max_health,
    attacks and frozen_turn."""
    if is_minion(state, character_id):
        return minion(state, character_id)
    return hero(state, hero_seat(state, character_id))


def is_character(state: State, character_id: object) -> bool:
    return isinstance(character_id, str) and (is_minion(state, character_id) or is_hero(state, character_id))


def characters(state: State, seat: int) -> list[str]:
    """A side's characters: its hero, then its minions left to right."""
    return [seat_player_id(state, seat), *board(state, seat)]


def alive(state: State, character_id: str) -> bool:
    """On the table and above 0 health (a minion at 0 waits on the board
    for the death step, but no longer counts as a living character)."""
    if is_minion(state, character_id):
        record = minion(state, character_id)
        return record["health"] > 0 and not record["destroyed"]
    return is_hero(state, character_id) and character(state, character_id)["health"] > 0


def hero_attack(state: State, seat: int) -> int:
    """A hero's attack is its weapon's (0 without one)."""
    equipped = weapon(state, seat)
    return equipped["attack"] if equipped is not None else 0


def attack_of(state: State, character_id: str) -> int:
    if is_minion(state, character_id):
        return minion(state, character_id)["attack"]
    return hero_attack(state, hero_seat(state, character_id))


def current_seat(state: State) -> int:
    return state["position"]["current"]


def turn_number(state: State) -> int:
    return state["position"]["turn"]
