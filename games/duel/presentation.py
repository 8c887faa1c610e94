"""Duel as a person sees it in the terminal client and the demo: each hero
(health, armor, mana, weapon, secrets, hand and deck counts), each board,
the viewer's hand with costs and playable marks, the turn timer, actions
named by their cards, and one line per move.

It implements the tools' presenter protocol (tablehost.clients.presentation)
by its shape alone. Actions name cards by id; the presenter remembers the
names of the ids it has seen in views (the tools show the board before the
actions), and falls back to the id. Plain text only."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

Action = dict[str, Any]
View = dict[str, Any]

END_TURN: Action = {"type": "end_turn"}


class DuelPresenter:
    """Duel's views and moves for people (see the module docstring)."""

    move_help = "type an action's number, or end to end your turn; ? shows the list again"

    def __init__(self) -> None:
        self._names: dict[str, str] = {}

    def opening(self, view: View, names: Sequence[str]) -> str | None:
        self._learn(view)
        if view.get("stage") == "mulligan":
            return f"seat {view.get('first')} goes first; both players choose cards to return"
        to_act = view.get("to_act")
        return None if to_act is None else f"seat {to_act} to act"

    def table_lines(self, view: View, names: Sequence[str]) -> list[str]:
        """Per seat: the hero line, its secrets and its board; then the
        viewer's own hand and secrets, and the timer."""
        self._learn(view)
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
        if view.get("deadline_ms") is not None:
            lines.append(f"timer: the turn ends at {view['deadline_ms']} ms")
        return lines

    def action_label(self, action: Action) -> str:
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
            return f"hero power{target}"
        return json.dumps(action, ensure_ascii=False, sort_keys=True)

    def parse_move(self, text: str, view: View) -> Action | None:
        """`end` ends the turn; other moves are chosen by number."""
        self._learn(view)
        if text.strip().lower() not in ("end", "end turn"):
            return None
        request = view.get("request")
        legal: list[Action] = (request.get("legal_actions") or []) if isinstance(request, dict) else []
        if END_TURN not in legal:
            raise ValueError("you cannot end a turn now")
        return END_TURN

    def narrate(
        self, before: View, after: View, names: Sequence[str], automatic: bool, actor: int | None = None
    ) -> str | None:
        """What changed for a watcher: a turn passing, heroes' health, the end."""
        self._learn(after)
        timer = " [timer]" if automatic else ""
        if after.get("result") is not None and before.get("result") is None:
            winner = after["result"].get("winner", -1)
            return ("the game is a draw" if winner == -1 else f"seat {winner} ({_name(winner, names)}) wins") + timer
        if after.get("stage") != before.get("stage") and after.get("stage") == "play":
            return f"the mulligan is over; seat {after.get('to_act')} begins{timer}"
        if after.get("to_act") != before.get("to_act") and after.get("to_act") is not None:
            return f"seat {after['to_act']} ({_name(after['to_act'], names)}) to act{timer}"
        changes = []
        for seat, (old, new) in enumerate(zip(before.get("heroes") or [], after.get("heroes") or [])):
            if old["health"] != new["health"]:
                changes.append(f"seat {seat} hero {old['health']} -> {new['health']}")
        old_ids = {m["id"] for side in before.get("boards") or [] for m in side}
        new_ids = {m["id"] for side in after.get("boards") or [] for m in side}
        changes += [f"{self._name_of(m)} enters" for m in sorted(new_ids - old_ids)]
        changes += [f"{self._name_of(m)} dies" for m in sorted(old_ids - new_ids)]
        if not changes:
            return None
        return "; ".join(changes) + timer

    def _learn(self, view: View) -> None:
        for card in view.get("hand") or []:
            self._names[card["id"]] = card["name"]
        for side in view.get("boards") or []:
            for minion in side:
                self._names[minion["id"]] = minion["name"]
        for seat, hero in enumerate(view.get("heroes") or []):
            self._names[hero["id"]] = f"hero {seat}"

    def _name_of(self, card_id: str) -> str:
        return self._names.get(card_id, card_id)


def _minion_label(minion: dict[str, Any]) -> str:
    marks = [*minion.get("keywords", ()), *(["frozen"] if minion.get("frozen") else [])]
    extra = f" [{', '.join(marks)}]" if marks else ""
    return f"{minion['name']} {minion['attack']}/{minion['health']}{extra}"


def _name(seat: int, names: Sequence[str]) -> str:
    return names[seat] if 0 <= seat < len(names) and names[seat] else f"player {seat}"
