"""Big Two as a person sees it in the terminal client and the demo: cards
as glyphs (`3♣ 10♦`), the table seat by seat, the play to beat, moves typed
as card codes (`3C 3D`) or `pass`, and one line per move.

It implements the tools' presenter protocol (tablehost.clients.presentation)
by its shape alone, so the rules need nothing from the tools; the tools get
it from `BigTwo.presenter()`. The time is handed in (`now_ms`), never read
here: the seat to act shows the seconds it has left. Before the deal the
table shows that it waits for it. Plain text only: no terminal library here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tablehost.games.bigtwo.cards import CardParseError, format_cards, parse_cards, sort_cards
from tablehost.games.engine.presentation import dealing_line, is_dealing, time_left
from tablehost.games.engine.rules import ActionMap

View = dict[str, Any]

PASS: ActionMap = {"type": "pass"}


class BigTwoPresenter:
    """Big Two's views and moves for people (see the module docstring)."""

    move_help = "type an action's number, its cards (like 3C 3D), or pass; ? shows the list again"

    def opening(self, view: View, names: Sequence[str]) -> str | None:
        to_act = view.get("to_act")  # None before the deal too
        if to_act is None:
            return None
        if view.get("first_play"):
            return f"seat {to_act} holds 3♣ and leads"
        if view.get("last_play") is None:
            return f"seat {to_act} leads"
        return f"seat {to_act} to act"

    def table_lines(self, view: View, names: Sequence[str], now_ms: int | None = None) -> list[str]:
        """A row per seat (name, cards left, what it is doing on this
        trick, the seconds left to the seat to act), the play to beat, and
        the viewer's own hand."""
        if is_dealing(view):
            return [dealing_line(view, now_ms)]
        counts = view.get("hand_counts") or []
        seats = max(len(counts), len(names))
        width = max((len(_name(seat, names)) for seat in range(seats)), default=0)
        passed = view.get("passed") or []
        last_play = view.get("last_play")
        lines = []
        for seat in range(seats):
            left = counts[seat] if seat < len(counts) else "?"
            if seat == view.get("to_act"):
                clock = time_left(view.get("deadline_ms"), now_ms)
                status = f"to act, {clock}" if clock else "to act"
            elif seat in passed:
                status = "passed"
            elif last_play is not None and last_play.get("seat") == seat:
                status = "played the play to beat"
            else:
                status = ""
            cards = "card " if left == 1 else "cards"
            lines.append(f"seat {seat}  {_name(seat, names):<{width}}  {left:>2} {cards}  {status}".rstrip())
        to_act = view.get("to_act")
        if last_play is not None:
            lines.append(f"to beat: {last_play.get('kind', 'play')} {format_cards(last_play.get('cards', []))}"
                         f" (seat {last_play.get('seat')})")
        elif to_act is not None:
            anything = "any play containing 3♣" if view.get("first_play") else "any play"
            lines.append(f"seat {to_act} leads: {anything}")
        if "hand" in view:
            lines.append(f"your hand: {format_cards(view['hand'])}")
        return lines

    def action_label(self, action: ActionMap) -> str:
        if action.get("type") == "pass":
            return "pass"
        if action.get("type") == "play":
            return format_cards(sort_cards(action.get("cards", [])))
        return json.dumps(action, ensure_ascii=False, sort_keys=True)

    def parse_move(self, text: str, view: View) -> ActionMap | None:
        """`pass`, or card codes in any order and case (`4d 4c`, `10h`, `3♣`)
        naming one of the plays the view's request lists."""
        request = view.get("request")
        legal: list[ActionMap] = (request.get("legal_actions") or []) if isinstance(request, dict) else []
        typed = text.strip()
        if typed.lower() == "pass":
            if PASS in legal:
                return PASS
            raise ValueError("you cannot pass now: you lead this trick")
        try:
            cards = parse_cards(typed)
        except CardParseError as error:
            raise ValueError(str(error)) from None
        if not cards:
            return None
        wanted = sort_cards(cards)
        for action in legal:
            if action.get("type") == "play" and sort_cards(action.get("cards", [])) == wanted:
                return action
        missing = [card for card in cards if card not in view.get("hand", ())]
        if missing:
            raise ValueError(f"you do not hold {' '.join(missing)}")
        raise ValueError(f"{' '.join(wanted)} is not a legal play now")

    def narrate(
        self, before: View, after: View, names: Sequence[str], automatic: bool, actor: int | None = None
    ) -> str | None:
        """`seat 2 (ann) plays 4♣ 4♦ (pair), 11 left`, or `... passes`, with
        who leads when everyone passed; ` [timer]` when the timer moved."""
        if is_dealing(before):
            return None if is_dealing(after) else self.opening(after, names)
        if actor is None:
            actor = before.get("to_act")
        if actor is None:
            return None
        who = f"seat {actor} ({_name(actor, names)})"
        timer = " [timer]" if automatic else ""
        last_play = after.get("last_play")
        if last_play is not None and last_play != before.get("last_play") and last_play.get("seat") == actor:
            counts = after.get("hand_counts") or []
            left = counts[actor] if actor < len(counts) else "?"
            return f"{who} plays {format_cards(last_play['cards'])} ({last_play['kind']}), {left} left{timer}"
        line = f"{who} passes{timer}"
        if last_play is None and after.get("to_act") is not None:
            line += f"; seat {after['to_act']} leads"
        return line


def _name(seat: int, names: Sequence[str]) -> str:
    return names[seat] if 0 <= seat < len(names) and names[seat] else f"player {seat}"


