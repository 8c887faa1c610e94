"""Scenario helpers shared by the Duel tests (no tests of their own).

A scenario is a real match whose mulligan both players kept, rewritten in
its state: hands, boards and mana set to what the test needs. Cards put in
play this way get ids of their own (`p0.x01`), recorded like every card,
so all cards stay accounted for. The state is replaced by a rewritten copy,
so the match computes its requests afresh."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from tablehost.games.duel import board, effects
from tablehost.games.duel.catalog import spec_of
from tablehost.games.duel.game import RULES
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import Match
from tablehost.games.engine.state import State, seat_player_id

DECKS = ({"deck": "mage-basic"}, {"deck": "hunter-basic"})
KEEP: dict[str, Any] = {"type": "mulligan", "cards": []}
END_TURN = {"type": "end_turn"}


def new_match(seed: int = 1, options: dict[str, Any] | None = None, join: tuple[dict, dict] = DECKS) -> Match:
    return Match(RULES, TableSeed.numbered(seed), ["ann", "bo"], options or {}, 0, [dict(data) for data in join],
                 keep_events=True)


def started(seed: int = 1, options: dict[str, Any] | None = None, join: tuple[dict, dict] = DECKS) -> Match:
    """A match past the mulligan (both kept), in its first player's turn."""
    match = new_match(seed, options, join)
    for seat in (0, 1):
        match.act(seat, KEEP, 1)
    return match


def rewrite(match: Match, change: Callable[[State], Any]) -> Any:
    state = copy.deepcopy(match.state)
    made = change(state)
    match.state = state
    return made


def new_card(state: State, seat: int, name: str, zone_id: str) -> str:
    spec_of(name)  # an unknown name fails here, not later
    made = state["variables"].setdefault("test.made", [0, 0])
    made[seat] += 1
    card_id = f"{seat_player_id(state, seat)}.x{made[seat]:02d}"
    state["variables"][board.VAR_CARDS][card_id] = name
    state["zones"][zone_id]["cards"].append(card_id)
    return card_id


def scene(
    match: Match,
    to_act: int = 0,
    mana: int = 10,
    hands: tuple[list[str], list[str]] = ([], []),
    boards: tuple[list[str], list[str]] = ([], []),
    awake: bool = True,
) -> dict[int, list[str]]:
    """Seat `to_act` acts with `mana` (and as much capacity); hands and
    boards become exactly the named cards (the old ones go to the
    graveyard). Returns each seat's new ids: hand cards, then minions."""

    def change(state: State) -> dict[int, list[str]]:
        state["position"]["current"] = to_act
        made: dict[int, list[str]] = {0: [], 1: []}
        for seat in (0, 1):
            graveyard = board.graveyard_zone(state, seat)
            for zone in (board.hand_zone(state, seat), board.board_zone(state, seat)):
                state["zones"][graveyard]["cards"] += state["zones"][zone]["cards"]
                state["zones"][zone]["cards"] = []
            state["variables"][board.VAR_MINIONS] = {
                m: r for m, r in state["variables"][board.VAR_MINIONS].items() if r["owner"] != seat
            }
            hero = board.hero(state, seat)
            hero["mana"] = hero["capacity"] = mana if seat == to_act else hero["capacity"]
            for name in hands[seat]:
                made[seat].append(new_card(state, seat, name, board.hand_zone(state, seat)))
            for name in boards[seat]:
                minion_id = new_card(state, seat, name, graveyard)
                effects.enter_board(state, seat, minion_id, spec_of(name), graveyard, None)
                board.minion(state, minion_id)["asleep"] = not awake
                made[seat].append(minion_id)
        return made

    return rewrite(match, change)


def hero(match: Match, seat: int) -> dict[str, Any]:
    return board.hero(match.state, seat)


def minion(match: Match, minion_id: str) -> dict[str, Any]:
    return board.minion(match.state, minion_id)


def on_board(match: Match, seat: int) -> list[str]:
    return [board.card_name(match.state, m) for m in board.board(match.state, seat)]


def hand_names(match: Match, seat: int) -> list[str]:
    return [board.card_name(match.state, c) for c in board.hand(match.state, seat)]


def play(match: Match, seat: int, card: str, target: str | None = None) -> None:
    action: dict[str, Any] = {"type": "play", "card": card}
    if target is not None:
        action["target"] = target
    match.act(seat, action, 2)


def attack(match: Match, seat: int, attacker: str, target: str) -> None:
    match.act(seat, {"type": "attack", "attacker": attacker, "target": target}, 2)


def all_card_ids(state: State) -> list[str]:
    return [card for zone in state["zones"].values() for card in zone["cards"]]
