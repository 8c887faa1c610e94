"""What each seat sees of a Duel, built from an explicit list of public
fields plus the seat's own, so nothing hidden can slip in:

- everyone (a spectator too): both heroes (health, armor, mana, weapon,
  hero power, counts of hand, deck and secrets, whether the Lucky Coin is
  in hand, the cards burned and the graveyard, all shown to both), both
  boards, whose turn, the deadline, the result;
- a seat alone: its hand (each card with its cost and a `playable` mark),
  its secrets, its deck's name, and in its own turn which of its
  characters may attack (`ready`) and whether its hero power is ready.

Never the order of a deck, another seat's hand or unrevealed secrets. The
marks are computed from the state, so they appear when the turn starts and
are gone when it ends."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tablehost.games.duel import board, legal
from tablehost.games.duel.catalog import LUCKY_COIN, spec_of
from tablehost.games.duel.cards import MINION, WEAPON
from tablehost.games.duel.deaths import game_result
from tablehost.games.engine.state import State, seat_player_id
from tablehost.games.engine.views import View


def seat_views(state: State, seats: Sequence[int | None], table: dict[str, Any]) -> dict[int | None, View]:
    """`table` holds the game's public fields (stage, turn, deadline...);
    the public part is built once and shared by every view."""
    public: View = {
        **table,
        "players": [player["name"] for player in state["players"]],
        "turn": board.turn_number(state),
        "heroes": [_hero(state, seat) for seat in range(board.SEATS)],
        "boards": [[_minion(state, m) for m in board.board(state, seat)] for seat in range(board.SEATS)],
        "result": game_result(state),
    }
    views: dict[int | None, View] = {}
    for seat in seats:
        view = dict(public, seat=-1 if seat is None else seat)
        if seat is not None:
            view.update(_own(state, seat, table["to_act"] == seat))
        views[seat] = view
    return views


def _hero(state: State, seat: int) -> dict[str, Any]:
    hero = board.hero(state, seat)
    power = legal.hero_power_of(state, seat)
    equipped = board.weapon_id(state, seat)
    weapon = None
    if equipped is not None:
        record = state["variables"][board.VAR_WEAPONS][equipped]
        weapon = {"id": equipped, "name": board.card_name(state, equipped), "attack": record["attack"],
                  "durability": record["durability"], "text": spec_of(board.card_name(state, equipped)).text}
    return {
        "id": seat_player_id(state, seat),
        "class": hero["class"],
        "health": hero["health"],
        "max_health": hero["max_health"],
        "armor": hero["armor"],
        "attack": board.hero_attack(state, seat),
        "frozen": hero["frozen_turn"] is not None,
        "mana": hero["mana"],
        "capacity": hero["capacity"],
        "fatigue": hero["fatigue"],
        "weapon": weapon,
        "hero_power": {"name": power.name, "cost": power.cost, "text": power.text, "used": hero["hero_power_used"]},
        "hand_count": len(board.hand(state, seat)),
        "has_coin": any(board.card_name(state, card) == LUCKY_COIN.name for card in board.hand(state, seat)),
        "deck_count": len(board.deck(state, seat)),
        "secret_count": len(board.secrets(state, seat)),
        "burned": _names(state, board.burned_zone(state, seat)),
        "graveyard": _names(state, board.graveyard_zone(state, seat)),
    }


def _names(state: State, zone_id: str) -> list[str]:
    return [board.card_name(state, card) for card in board.cards_in(state, zone_id)]


def _minion(state: State, minion_id: str) -> dict[str, Any]:
    record = board.minion(state, minion_id)
    name = board.card_name(state, minion_id)
    return {
        "id": minion_id,
        "name": name,
        "attack": record["attack"],
        "health": record["health"],
        "max_health": record["max_health"],
        "keywords": [keyword for keyword in board.KEYWORDS if record[keyword]],
        "frozen": record["frozen_turn"] is not None,
        "asleep": record["asleep"] and not record["charge"],
        "text": spec_of(name).text,
    }


def _card(state: State, card_id: str, playable: bool) -> dict[str, Any]:
    spec = spec_of(board.card_name(state, card_id))
    shown: dict[str, Any] = {"id": card_id, "name": spec.name, "cost": spec.cost, "kind": spec.kind,
                             "text": spec.text, "playable": playable}
    if spec.kind in (MINION, WEAPON):
        shown.update(attack=spec.attack, health=spec.health)
    return shown


def _secret(state: State, card_id: str) -> dict[str, Any]:
    spec = spec_of(board.card_name(state, card_id))
    return {"id": card_id, "name": spec.name, "text": spec.text}


def _own(state: State, seat: int, acting: bool) -> dict[str, Any]:
    playable = {action["card"] for action in legal.legal_plays(state, seat)} if acting else set()
    own: dict[str, Any] = {
        "hand": [_card(state, card, card in playable) for card in board.hand(state, seat)],
        "secrets": [_secret(state, card) for card in board.secrets(state, seat)],
        "deck_name": board.hero(state, seat)["deck"],
    }
    if acting:
        own["ready"] = [c for c in board.characters(state, seat) if legal.attacker_refusal(state, seat, c) is None]
        own["hero_power_ready"] = bool(legal.legal_hero_powers(state, seat))
    return own
