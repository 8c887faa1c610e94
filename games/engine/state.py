"""The game state: plain data only (dicts with str keys, lists, str, int,
bool, None) so that it round-trips through msgpack exactly; that is what
checkpoints store and what hashes are computed over.

Layout:
    {"game_id": str,
     "zones": {zone_id: {"id", "type", "owner_id", "cards": [card ids]}},
     "players": [{"id", "name", "seat", "status", "data": {},
                  "skills": [skill names]}],                # see skills.py
     "variables": {name: value},
     "position": {"round", "turn", "phase", "current",     # current = seat
                  "skips": [{"seat": int, "phase": str | None}]},
     "rng": {"key": hex, "streams": {purpose: count}}}     # see Context.random

A player's seat is its index in "players"; the caller of Engine.create_game
may add keys to a player record (the engine adds "skills").

"skips" are the marks flow.skip_phase and flow.skip_turn leave: each skips
that seat's phase (None: its whole turn) the next time it is entered, once.
Marks are listed in the order they were made.

Zone order: `cards[0]` is the top; cards moved into a zone are appended at
its end, so the most recently discarded card is `cards[-1]` (the "top" that a
keep-top reshuffle leaves behind, as in the decklet DrawPlugin this engine ports).
"""

from __future__ import annotations

from typing import Any

import msgpack

State = dict[str, Any]


def player_hand_zone_id(player_id: str) -> str:
    return f"player:{player_id}:hand"


def seat_player_id(state: State, seat: int) -> str:
    """The id of the player at `seat`: the key of its zones and events in the
    state. Games name seats; this is the one place a seat becomes an id."""
    return state["players"][seat]["id"]


def seat_zone_id(state: State, seat: int, kind: str) -> str:
    """The id of the zone of kind `kind` ("hand", "deck", ...) of the player at
    `seat`. Games ask for zones in their inner loops: the id is read here
    directly, as seat_player_id reads it, without a second call."""
    return f"player:{state['players'][seat]['id']}:{kind}"


def create_zone(zone_id: str, zone_type: str, owner_id: str | None = None) -> dict[str, Any]:
    return {"id": zone_id, "type": zone_type, "owner_id": owner_id, "cards": []}


def add_zone(state: State, zone: dict[str, Any]) -> None:
    if zone["id"] in state["zones"]:
        raise ValueError(f"zone {zone['id']} already exists")
    state["zones"][zone["id"]] = zone


def move_card(state: State, card_id: str, from_zone_id: str, to_zone_id: str) -> None:
    state["zones"][from_zone_id]["cards"].remove(card_id)
    state["zones"][to_zone_id]["cards"].append(card_id)


def new_state(game_id: str, players: list[dict[str, Any]], random_key: bytes) -> State:
    return {
        "game_id": game_id,
        "zones": {},
        "players": players,
        "variables": {},
        "position": {"round": 0, "turn": 0, "phase": "", "current": 0, "skips": []},
        "rng": {"key": random_key.hex(), "streams": {}},
    }


def copy_state(state: State) -> State:
    """A deep copy; going through msgpack also proves the state is plain data."""
    return msgpack.unpackb(msgpack.packb(state, use_bin_type=True), raw=False, strict_map_key=True)
