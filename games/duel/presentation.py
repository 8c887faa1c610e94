"""Duel as a person sees it in the terminal client and the demo: each hero
(health, armor, mana, weapon, secrets, hand and deck counts), each board,
the viewer's hand with costs and playable marks, the seconds left on the
turn, actions named by their cards, and one line per move.

It implements the tools' presenter protocol (tablehost.clients.presentation)
by its shape alone. Actions name cards and characters by id; the presenter
remembers, from the views it has seen (the tools show the board before the
actions), each id's card name and whose side it is on, and names it from
the viewer's side: "your hero", "their Ogre Brute" (a spectator's view
says "seat 1's Ogre Brute"). The viewer is the view's "seat". An id it has
not seen is shown as it is. The time is handed in, never read here. Plain
text only."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tablehost.games.engine.presentation import dealing_line, is_dealing, time_left
from tablehost.games.engine.rules import ActionMap

View = dict[str, Any]

END_TURN: ActionMap = {"type": "end_turn"}
SPECTATOR = -1


class DuelPresenter:
    """Duel's views and moves for people (see the module docstring)."""

    move_help = "type an action's number, or end to end your turn; ? shows the list again"

    def __init__(self) -> None:
        self._names: dict[str, str] = {}
        # Characters (heroes and minions) by id: the seat whose side they are on.
        self._sides: dict[str, int] = {}
        self._viewer = SPECTATOR
        self._hero_power = "hero power"

    def opening(self, view: View, names: Sequence[str]) -> str | None:
        self._learn(view)
        if is_dealing(view):
            return None
        if view.get("stage") == "mulligan":
            first = view.get("first")
            who = f"seat {first} ({_name(first, names)})" if isinstance(first, int) else "a random seat"
            return f"{who} goes first; both players choose cards to return"
        to_act = view.get("to_act")
        return None if to_act is None else f"seat {to_act} to act"

    def table_lines(self, view: View, names: Sequence[str], now_ms: int | None = None) -> list[str]:
        """Per seat: the hero line, its secrets and its board; then the
        viewer's own hand and secrets, and the seconds left."""
        self._learn(view)
        if is_dealing(view):
            return [dealing_line(view, now_ms)]
        lines = []
        for seat, hero in enumerate(view.get("heroes") or []):
            marker = "  <- to act" if seat == view.get("to_act") else ""
            weapon = hero.get("weapon")
            armed = f"  weapon {weapon['name']} {weapon['attack']}/{weapon['durability']}" if weapon else ""
            armor = f"+{hero['armor']} armor" if hero.get("armor") else ""
            lines.append(
                f"seat {seat} {_name(seat, names)} ({hero['class']}): {hero['health']}/{hero['max_health']} health"
                f"{' ' + armor if armor else ''}  mana {hero['mana']}/{hero['capacity']}{armed}"
                f"  hand {hero['hand_count']}{' (coin)' if hero.get('has_coin') else ''}  deck {hero['deck_count']}"
                f"  secrets {hero['secret_count']}{'  frozen' if hero.get('frozen') else ''}{marker}"
            )
            side = (view.get("boards") or [[], []])[seat]
            lines.append("  board: " + (", ".join(_minion_label(m) for m in side) if side else "(empty)"))
        if "hand" in view:
            cards = [f"{'*' if card['playable'] else ' '}{card['name']} ({card['cost']})" for card in view["hand"]]
            lines.append("your hand (* playable): " + (", ".join(cards) if cards else "(empty)"))
        if view.get("secrets"):
            lines.append("your secrets: " + ", ".join(secret["name"] for secret in view["secrets"]))
        timer = self._timer(view, now_ms)
        if timer is not None:
            lines.append(timer)
        return lines

    def action_label(self, action: ActionMap) -> str:
        kind = action.get("type")
        if kind == "end_turn":
            return "end turn"
        if kind == "mulligan":
            cards = action.get("cards") or []
            return "keep your hand" if not cards else "return " + ", ".join(self._name_of(c) for c in cards)
        target = f" -> {self._name_of(action['target'])}" if "target" in action else ""
        if kind == "play":
            return f"play {self._name_of(action.get('card', '?'))}{target}"
        if kind == "attack":
            return f"attack with {self._name_of(action.get('attacker', '?'))}{target}"
        if kind == "hero_power":
            return f"{self._hero_power}{target}"
        return json.dumps(action, ensure_ascii=False, sort_keys=True)

    def parse_move(self, text: str, view: View) -> ActionMap | None:
        """`end` ends the turn; other moves are chosen by number."""
        self._learn(view)
        if text.strip().lower() not in ("end", "end turn"):
            return None
        request = view.get("request")
        legal: list[ActionMap] = (request.get("legal_actions") or []) if isinstance(request, dict) else []
        if END_TURN not in legal:
            raise ValueError("you cannot end a turn now")
        return END_TURN

    def narrate(
        self, before: View, after: View, names: Sequence[str], automatic: bool, actor: int | None = None
    ) -> str | None:
        """What changed for a watcher: the deal, a turn passing, heroes'
        health, minions entering and dying, the end."""
        self._learn(before)
        self._learn(after)
        timer = " [timer]" if automatic else ""
        if is_dealing(before):
            return None if is_dealing(after) else self.opening(after, names)
        if after.get("result") is not None and before.get("result") is None:
            winner = after["result"].get("winner", -1)
            return ("the game is a draw" if winner == -1 else f"seat {winner} ({_name(winner, names)}) wins") + timer
        if after.get("stage") != before.get("stage") and after.get("stage") == "play":
            begins = after.get("to_act")
            who = f"seat {begins} ({_name(begins, names)})" if isinstance(begins, int) else "the first player"
            return f"the mulligan is over; {who} begins{timer}"
        if after.get("to_act") != before.get("to_act") and after.get("to_act") is not None:
            return f"seat {after['to_act']} ({_name(after['to_act'], names)}) to act{timer}"
        changes = []
        for old, new in zip(before.get("heroes") or [], after.get("heroes") or []):
            if old["health"] != new["health"]:
                changes.append(f"{self._name_of(new['id'])} {old['health']} -> {new['health']}")
        old_ids = {m["id"] for side in before.get("boards") or [] for m in side}
        new_ids = {m["id"] for side in after.get("boards") or [] for m in side}
        changes += [f"{self._name_of(m)} enters" for m in sorted(new_ids - old_ids)]
        changes += [f"{self._name_of(m)} dies" for m in sorted(old_ids - new_ids)]
        if not changes:
            return None
        return "; ".join(changes) + timer

    def _timer(self, view: View, now_ms: int | None) -> str | None:
        """Whose clock runs and the seconds it has left."""
        left = time_left(view.get("deadline_ms"), now_ms)
        if left is None:
            return None
        if view.get("stage") == "mulligan":
            return f"timer: the mulligan, {left}"
        to_act = view.get("to_act")
        if not isinstance(to_act, int):
            return f"timer: {left}"
        whose = "your" if to_act == self._viewer else "their" if self._viewer != SPECTATOR else f"seat {to_act}'s"
        return f"timer: {whose} turn, {left}"

    def _learn(self, view: View) -> None:
        seat = view.get("seat")
        self._viewer = seat if isinstance(seat, int) and not isinstance(seat, bool) else SPECTATOR
        for card in view.get("hand") or []:
            self._names[card["id"]] = card["name"]
        for side, minions in enumerate(view.get("boards") or []):
            for minion in minions:
                self._names[minion["id"]] = minion["name"]
                self._sides[minion["id"]] = side
        for side, hero in enumerate(view.get("heroes") or []):
            self._names[hero["id"]] = "hero"
            self._sides[hero["id"]] = side
            if side == self._viewer and hero.get("hero_power"):
                self._hero_power = f"hero power {hero['hero_power']['name']}"

    def _name_of(self, card_id: str) -> str:
        """A card by its name; a character also by whose side it is on."""
        name = self._names.get(card_id, card_id)
        side = self._sides.get(card_id)
        if side is None:
            return name
        if self._viewer == SPECTATOR:
            return f"seat {side}'s {name}"
        return f"{'your' if side == self._viewer else 'their'} {name}"


def _minion_label(minion: dict[str, Any]) -> str:
    marks = [*minion.get("keywords", ()), *(["frozen"] if minion.get("frozen") else [])]
    extra = f" [{', '.join(marks)}]" if marks else ""
    return f"{minion['name']} {minion['attack']}/{minion['health']}{extra}"


def _name(seat: int, names: Sequence[str]) -> str:
    return names[seat] if 0 <= seat < len(names) and names[seat] else f"player {seat}"


