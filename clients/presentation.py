"""How the tools show a game to a person: the `Presenter` protocol (what the
terminal client and the demo ask of a game) and `GenericPresenter`, which
shows any game from its views alone.

The tools never import a game's code, so a game that wants to look like
itself (cards as glyphs, moves typed in its own notation) hands its
presenter over through its rules (`GameRules.presenter()`), and whoever
starts a tool passes it in. Every other game still works: the generic
presenter prints the view's keys and values, labels actions as compact
JSON-ish text and takes moves by their number in the list.

A presenter works on plain data (views, actions) and returns plain text:
the tools print its lines as they are, never reading them as rich markup,
so a view's brackets show as brackets. The time is handed in (`now_ms`),
never read from a clock, so a deadline shows as the seconds left
("12 s left") and a test can fix the time. Every view says whose it is
("seat", -1 for a spectator), so a presenter names things from that side
("your hero", "their Ogre Brute").

Before the cards are dealt, a table's view holds only "game", "seat",
"players" (display names), "stage" ("dealing"), "deadline_ms" and
"fairness": a presenter shows it as the table waiting for its deal. The
"fairness" key (the commitment to the table's seed) is for checking the
deal afterwards (`tablehost verify`), not for people at the table.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, cast

from tablehost.clients.codec import View

ActionMap = dict[str, Any]

# What a view's "stage" says while the table waits for its deal.
DEALING_STAGE = "dealing"

# Keys a narration of public changes leaves out: "request" is what the game
# asks one seat (shown to that seat as its list of actions, not as news),
# "deadline_ms" changes with every turn and says nothing about the move,
# "fairness" is for checking the deal, not news.
_NOT_NARRATED = frozenset({"request", "deadline_ms", "seat", "fairness"})
# Keys the board leaves out: the request is shown as the numbered actions,
# the deadline as the seconds left, the fairness record not at all.
_NOT_ON_THE_BOARD = frozenset({"request", "deadline_ms", "fairness"})
_ABSENT: Any = object()  # a key one of the two views lacks
# A narrated value longer than this is cut, so one move stays one line.
_MAX_NARRATED_VALUE = 60


class Presenter(Protocol):
    """What a tool needs to show one game to a person.

    `names` are the players' display names by seat. `move_help` says how
    moves may be typed (shown when typed text names no action)."""

    move_help: str

    def opening(self, view: View, names: Sequence[str]) -> str | None:
        """One line that sets the scene when a watcher starts (who leads), or None."""
        ...

    def table_lines(self, view: View, names: Sequence[str], now_ms: int | None = None) -> list[str]:
        """The board as `view` shows it: every seat, the public table and,
        in a seat's own view, what only that seat sees (its hand). With
        `now_ms` (epoch milliseconds, the tool's clock) a deadline is shown
        as the seconds left; without, it is left out."""
        ...

    def action_label(self, action: ActionMap) -> str:
        """A short label for one action, as listed for a person to choose."""
        ...

    def parse_move(self, text: str, view: View) -> ActionMap | None:
        """The action `text` names in the game's own notation (numbers are
        the tool's business), None when the text is not in that notation.
        Raises ValueError, with a message for the person, when it is but
        names no action the view's request allows."""
        ...

    def narrate(
        self, before: View, after: View, names: Sequence[str], automatic: bool, actor: int | None = None
    ) -> str | None:
        """One line for one public change from `before` to `after`, or None
        when there is nothing to tell. `automatic`: the turn timer acted.
        `actor`: the seat that acted, when the caller knows it (its own
        commit); otherwise the presenter works it out from the views, if
        the game's views say."""
        ...


def presenter_for(game_presenter: object | None) -> Presenter:
    """The presenter a tool uses for a game: the game's own (its rules'
    `presenter()`), with the generic one standing in for anything it does
    not provide, or the generic one when the game has none."""
    generic = GenericPresenter()
    if game_presenter is None:
        return generic
    return cast(Presenter, _WithFallback(game_presenter, generic))


class _WithFallback:
    """A game's presenter that implements only part of the protocol, with
    the generic presenter answering the rest."""

    def __init__(self, own: object, fallback: GenericPresenter) -> None:
        self._own = own
        self._fallback = fallback

    def __getattr__(self, name: str) -> Any:
        if hasattr(self._own, name):
            return getattr(self._own, name)
        return getattr(self._fallback, name)


def compact(value: Any) -> str:
    """A value as short JSON-ish text: `[0, 1]`, `{"seat": 2}`, `null`;
    byte strings as hex."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=_plain)


def seconds_left(deadline_ms: object, now_ms: int | None) -> int | None:
    """Whole seconds from `now_ms` to `deadline_ms`, rounded up (half a
    second left is "1 s left", not "0"), never below 0; None when either is
    unknown."""
    if now_ms is None or not isinstance(deadline_ms, int) or isinstance(deadline_ms, bool):
        return None
    return max(0, -(-(deadline_ms - now_ms) // 1000))


def time_left(deadline_ms: object, now_ms: int | None) -> str | None:
    """`12 s left`, or None when there is no deadline to show."""
    left = seconds_left(deadline_ms, now_ms)
    return None if left is None else f"{left} s left"


def is_dealing(view: Mapping[str, Any]) -> bool:
    """Whether `view` is of a table still waiting for its deal (module docstring)."""
    return view.get("stage") == DEALING_STAGE


def dealing_line(view: Mapping[str, Any], now_ms: int | None = None) -> str:
    """The one line a table waiting for its deal shows."""
    left = time_left(view.get("deadline_ms"), now_ms)
    return "dealing... the cards are dealt once every player has connected" + (f" ({left})" if left else "")


def seat_label(seat: int, names: Sequence[str]) -> str:
    """`seat 2 (ann)`, or `seat 2` when the seat has no name."""
    name = names[seat] if 0 <= seat < len(names) else ""
    return f"seat {seat} ({name})" if name else f"seat {seat}"


class GenericPresenter:
    """Shows any game from its views: the keys and values of the view, the
    actions as compact text, moves by their number only, and each change as
    the seat that acted (when known) and what changed."""

    move_help = "type the number of an action from the list; ? shows the list again"

    def opening(self, view: View, names: Sequence[str]) -> str | None:
        to_act = _seat_to_act(view)
        return f"{seat_label(to_act, names)} to act" if to_act is not None else None

    def table_lines(self, view: View, names: Sequence[str], now_ms: int | None = None) -> list[str]:
        if is_dealing(view):
            return [dealing_line(view, now_ms)]
        lines = []
        if names:
            lines.append("seats: " + ", ".join(seat_label(seat, names) for seat in range(len(names))))
        lines += [f"{key}: {compact(view[key])}" for key in sorted(view) if key not in _NOT_ON_THE_BOARD]
        left = time_left(view.get("deadline_ms"), now_ms)
        if left is not None:
            lines.append(f"deadline: {left}")
        return lines

    def action_label(self, action: ActionMap) -> str:
        kind = action.get("type")
        if not isinstance(kind, str):
            return compact(action)
        fields = [f"{key}={compact(value)}" for key, value in sorted(action.items()) if key != "type"]
        return " ".join([kind, *fields])

    def parse_move(self, text: str, view: View) -> ActionMap | None:
        return None  # a generic game has no notation: its moves are chosen by number

    def narrate(
        self, before: View, after: View, names: Sequence[str], automatic: bool, actor: int | None = None
    ) -> str | None:
        if is_dealing(before) and not is_dealing(after):
            return "the cards are dealt"
        if actor is None:
            actor = _seat_to_act(before)
        changes = [
            f"{key} {_short(before.get(key, _ABSENT))} → {_short(after.get(key, _ABSENT))}"
            for key in sorted(set(before) | set(after))
            if key not in _NOT_NARRATED and before.get(key, _ABSENT) != after.get(key, _ABSENT)
        ]
        if actor is None and not changes:
            return None
        line = f"{seat_label(actor, names)} acted" if actor is not None else "the table changed"
        if changes:
            line += ": " + "; ".join(changes)
        return line + (" [timer]" if automatic else "")


def _seat_to_act(view: Mapping[str, Any]) -> int | None:
    """The seat a view names as the one to act, for games whose views say so."""
    to_act = view.get("to_act")
    return to_act if isinstance(to_act, int) and not isinstance(to_act, bool) else None


def _short(value: Any) -> str:
    text = "(none)" if value is _ABSENT else compact(value)
    return text if len(text) <= _MAX_NARRATED_VALUE else text[: _MAX_NARRATED_VALUE - 1] + "…"


def _plain(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.hex()
    return repr(value)
