"""What each seat sees of a Kingdoms game, built from explicit public
fields plus the seat's own, so nothing hidden slips in:

- everyone (spectators too): each player's general once shown, health,
  whether alive, resting (and for how many more turns) and face up,
  skills, equipment, judgement zone and hand count; the lord's identity,
  and any player's once dead (not a resting player's); the round, turn,
  phase and current player; the deck's size (never its order), the
  discard pile's size and top card, the cards being used or judged; what
  the table waits for (the question's kind, deadline, public details and
  the seats asked: the game decides whom to ask from this public state
  alone, so showing it reveals nothing); the result;
- a seat alone: its hand, its identity, the generals offered to it while
  choosing, the lucky cards it has left, and any general it chose before
  the generals are shown."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tablehost.games.engine.state import State
from tablehost.games.engine.views import View
from tablehost.games.kingdoms import cards, machine, table
from tablehost.games.kingdoms.generals import GENERALS


def card_view(card_id: str) -> dict[str, Any]:
    card = cards.card(card_id)
    return {"id": card_id, "name": card.name, "suit": card.suit, "number": card.number, "kind": card.spec.kind}


def _identity_public(state: State, seat: int) -> bool:
    return table.player(state, seat)["identity"] == table.LORD or table.dead(state, seat)


def _player(state: State, seat: int) -> dict[str, Any]:
    record = table.player(state, seat)
    return {
        "seat": seat,
        "name": state["players"][seat]["name"],
        "general": record["general"] if record["shown"] else None,
        "identity": record["identity"] if _identity_public(state, seat) else None,
        "health": record["health"],
        "max_health": record["max_health"],
        "alive": record["alive"],
        "rest": record["rest"],
        "face_up": record["face_up"],
        "skills": list(state["players"][seat].get("skills", [])),
        "hand_count": len(table.hand(state, seat)),
        "equipment": [card_view(c) for c in table.equipment(state, seat)],
        "judgement": [card_view(c) for c in table.judgements(state, seat)],
    }


def _prompt(state: State) -> dict[str, Any] | None:
    frame = machine.waiting(state)
    if frame is None:
        return None
    ask = frame["ask"]
    shown = {**ask, "seats": list(ask["seats"])}
    # The card a question is about is on the table, unless a skill took it
    # into a hand meanwhile (Cao Cao keeps a Barbarian Invasion that hurt him).
    if "card" in shown and not _in_public_zone(state, shown["card"]):
        shown["card"] = None
    return shown


def _in_public_zone(state: State, card_id: str) -> bool:
    zone_id = table.zone_of(state, card_id)
    return zone_id in (table.PROCESSING, table.DISCARD) or zone_id.endswith((":equip", ":judge"))


def seat_views(state: State, seats: Sequence[int | None], game: str) -> dict[int | None, View]:
    position = state["position"]
    discard = table.cards_in(state, table.DISCARD)
    prompt = _prompt(state)
    public: View = {
        "game": game,
        "round": position["round"],
        "turn": position["turn"],
        "phase": position["phase"],
        "current": position["current"],
        "players": [_player(state, seat) for seat in range(table.seats(state))],
        "deck_count": len(table.cards_in(state, table.DECK)),
        "discard_count": len(discard),
        "discard_top": card_view(discard[-1]) if discard else None,
        "processing": [card_view(c) for c in table.cards_in(state, table.PROCESSING)],
        "prompt": prompt,
        "deadline_ms": prompt["deadline_ms"] if prompt is not None else None,
        "result": table.result(state),
    }
    views: dict[int | None, View] = {}
    for seat in seats:
        view = dict(public, seat=-1 if seat is None else seat)
        if seat is not None:
            view.update(_own(state, seat))
        views[seat] = view
    return views


def _own(state: State, seat: int) -> dict[str, Any]:
    record = table.player(state, seat)
    return {
        "hand": [card_view(c) for c in table.hand(state, seat)],
        "identity": record["identity"],
        "chosen_general": record["general"],
        "offered": [{"name": name, "health": GENERALS[name].health, "text": GENERALS[name].text}
                    for name in record["offered"]],
        "lucky_left": record["lucky_left"],
    }
