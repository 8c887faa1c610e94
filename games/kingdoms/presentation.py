"""Kingdoms as a person sees it in the terminal client and the demo: the
players around the table (general, health, identity when known,
equipment, judgement zone, hand count), the viewer's hand, the phase, what
the table waits for and its timer, actions named by their cards, and one
line per move.

It implements the tools' presenter protocol (tablehost.clients.presentation)
by its shape alone. The viewer is the view's "seat": a target that is the
viewer's own seat reads "seat 2 (you)". The time is handed in (`now_ms`),
never read here: a deadline shows as the seconds left. Before the deal
(when "players" are only display names) the table shows that it waits for
it. Plain text only."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tablehost.games.engine.presentation import dealing_line, is_dealing, time_left
from tablehost.games.engine.rules import ActionMap

View = dict[str, Any]

END_PLAY: ActionMap = {"type": "end_play"}
PASS: ActionMap = {"type": "pass"}
SUIT_MARKS = {"spade": "♠", "heart": "♥", "club": "♣", "diamond": "♦"}
NUMBERS = {1: "A", 11: "J", 12: "Q", 13: "K"}


class KingdomsPresenter:
    """Kingdoms' views and moves for people (see the module docstring)."""

    move_help = "type an action's number, end to end your play phase, or pass to give no answer"

    def __init__(self) -> None:
        self._cards: dict[str, str] = {}
        self._viewer: int | None = None

    def opening(self, view: View, names: Sequence[str]) -> str | None:
        if is_dealing(view):
            return None
        self._learn(view)
        lords = [p["seat"] for p in view.get("players") or [] if p.get("identity") == "lord"]
        return f"seat {lords[0]} ({_name(lords[0], names)}) is the lord" if lords else None

    def table_lines(self, view: View, names: Sequence[str], now_ms: int | None = None) -> list[str]:
        if is_dealing(view):
            return [dealing_line(view, now_ms)]
        self._learn(view)
        lines = [f"round {view.get('round')}, turn {view.get('turn')}: seat {view.get('current')} "
                 f"in the {view.get('phase') or 'setup'} phase; deck {view.get('deck_count')}, "
                 f"discard {view.get('discard_count')}"]
        for player in view.get("players") or []:
            seat = player["seat"]
            general = player.get("general") or "?"
            identity = player.get("identity") or ("you: " + view["identity"] if seat == view.get("seat")
                                                  and view.get("identity") else "hidden")
            if player["alive"]:
                state = f"{player['health']}/{player['max_health']} health"
            else:
                state = f"resting ({player['rest']} turns)" if player.get("rest") else "dead"
            extra = "" if player.get("face_up", True) else "  face down"
            equipment = ", ".join(_label(card) for card in player["equipment"]) or "none"
            judgement = ", ".join(card["name"] for card in player["judgement"]) or "none"
            marker = "  <- current" if seat == view.get("current") else ""
            lines.append(f"seat {seat} {_name(seat, names)}: {general} ({identity}) {state}, "
                         f"hand {player['hand_count']}, equipment {equipment}, judgement {judgement}{extra}{marker}")
        if view.get("processing"):
            lines.append("on the table: " + ", ".join(_label(card) for card in view["processing"]))
        if "hand" in view:
            lines.append("your hand: " + (", ".join(_label(card) for card in view["hand"]) or "(empty)"))
        if view.get("offered"):
            lines.append("offered generals: " + "; ".join(f"{g['name']} ({g['health']}): {g['text']}"
                                                         for g in view["offered"]))
        prompt = view.get("prompt")
        if prompt is not None:
            seats = prompt.get("seats") or []
            asked = f" from {', '.join(self._seat(seat) for seat in seats)}" if seats else ""
            left = time_left(prompt.get("deadline_ms"), now_ms)
            lines.append(f"waiting for: {prompt['kind']}{asked}" + (f", {left}" if left else ""))
        return lines

    def action_label(self, action: ActionMap) -> str:
        kind = action.get("type")
        if kind == "use":
            targets = action.get("targets") or []
            aimed = f" -> {', '.join(self._seat(t) for t in targets)}" if targets else ""
            return f"use {self._card(action.get('card', '?'))}{aimed}"
        if kind == "respond":
            return f"answer with {self._card(action.get('card', '?'))}"
        if kind == "pick":
            return "take a random hand card" if action.get("card") == "hand" else f"take {self._card(action['card'])}"
        if kind == "discard":
            return "discard " + ", ".join(self._card(card) for card in action.get("cards") or [])
        if kind == "choose_general":
            return f"choose {action.get('general')}"
        labels = {"end_play": "end the play phase", "pass": "pass", "lucky_card": "use a lucky card (redraw)",
                  "keep_hand": "keep this hand"}
        return labels.get(str(kind), json.dumps(action, ensure_ascii=False, sort_keys=True))

    def parse_move(self, text: str, view: View) -> ActionMap | None:
        """`end` ends the play phase and `pass` gives no answer; other moves by number."""
        self._learn(view)
        words = {"end": END_PLAY, "pass": PASS}
        wanted = words.get(text.strip().lower())
        if wanted is None:
            return None
        request = view.get("request")
        legal: list[ActionMap] = (request.get("legal_actions") or []) if isinstance(request, dict) else []
        if wanted not in legal:
            raise ValueError(f"you cannot {text.strip().lower()} now")
        return wanted

    def narrate(
        self, before: View, after: View, names: Sequence[str], automatic: bool, actor: int | None = None
    ) -> str | None:
        if is_dealing(before):
            return None if is_dealing(after) else self.opening(after, names)
        self._learn(after)
        timer = " [timer]" if automatic else ""
        result = after.get("result")
        if result is not None and before.get("result") is None:
            if result.get("draw"):
                return f"the game is a draw: {result.get('reason')}{timer}"
            winners = ", ".join(f"seat {s}" for s in result.get("winners", []))
            return f"the {result.get('side')} side wins ({winners}): {result.get('reason')}{timer}"
        changes = []
        for old, new in zip(before.get("players") or [], after.get("players") or []):
            if old["alive"] and not new["alive"]:
                changes.append(f"seat {new['seat']} rests" if new.get("rest")
                               else f"seat {new['seat']} dies, a {new.get('identity')}")
            elif old["health"] != new["health"]:
                changes.append(f"seat {new['seat']} health {old['health']} -> {new['health']}")
        if after.get("current") != before.get("current"):
            changes.append(f"seat {after['current']} ({_name(after['current'], names)})'s turn")
        return "; ".join(changes) + timer if changes else None

    def _learn(self, view: View) -> None:
        seat = view.get("seat")
        self._viewer = seat if isinstance(seat, int) and not isinstance(seat, bool) and seat >= 0 else None
        shown = [*(view.get("hand") or []), *(view.get("processing") or [])]
        for player in view.get("players") or []:
            shown += player["equipment"] + player["judgement"]
        for card in shown:
            self._cards[card["id"]] = _label(card)

    def _card(self, card_id: str) -> str:
        return self._cards.get(card_id, card_id)

    def _seat(self, seat: object) -> str:
        """A player by seat, marked when it is the viewer's own."""
        return f"seat {seat} (you)" if seat == self._viewer else f"seat {seat}"


def _label(card: dict[str, Any]) -> str:
    number = NUMBERS.get(card["number"], str(card["number"]))
    return f"{card['name']} {SUIT_MARKS.get(card['suit'], card['suit'])}{number}"


def _name(seat: int, names: Sequence[str]) -> str:
    return names[seat] if 0 <= seat < len(names) and names[seat] else f"player {seat}"


