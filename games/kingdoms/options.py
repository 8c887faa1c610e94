"""A table's options, checked once and kept in the state's variables.

- `turn_timeout_ms` (default 30 000): the deadline of a player's own
  choices: the play phase, the discard phase, choosing a general, the
  lucky card;
- `response_timeout_ms` (default 15 000): the deadline of an answer out of
  turn, which the table waits on in the middle of a move: a Dodge, a Peach,
  a Nullification, a Slash for a Duel or an invasion, a retrial, a card to
  dismantle or snatch;
- `lucky_cards` (default 1): how many times each player may redraw the
  opening hand (0 to 5)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tablehost.games.engine.state import State

DEFAULT_TURN_TIMEOUT_MS = 30_000
DEFAULT_RESPONSE_TIMEOUT_MS = 15_000
DEFAULT_LUCKY_CARDS = 1
MOST_LUCKY_CARDS = 5

VAR_TURN_TIMEOUT = "kingdoms.turn_timeout_ms"
VAR_RESPONSE_TIMEOUT = "kingdoms.response_timeout_ms"
VAR_LUCKY_CARDS = "kingdoms.lucky_cards"


def _integer(options: Mapping[str, Any], name: str, default: int, least: int, most: int | None = None) -> int:
    value = options.get(name, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < least or (most is not None and value > most):
        bounds = f"from {least}" + (f" to {most}" if most is not None else "")
        raise ValueError(f"{name} must be an integer {bounds}, got {value!r}")
    return value


def checked(options: Mapping[str, Any], turn_timeout_default: int) -> dict[str, Any]:
    """The options as variables; ValueError naming a bad one. Options of
    other games are ignored, as the host may pass its defaults for all."""
    return {
        VAR_TURN_TIMEOUT: _integer(options, "turn_timeout_ms", turn_timeout_default, 1),
        VAR_RESPONSE_TIMEOUT: _integer(options, "response_timeout_ms", DEFAULT_RESPONSE_TIMEOUT_MS, 1),
        VAR_LUCKY_CARDS: _integer(options, "lucky_cards", DEFAULT_LUCKY_CARDS, 0, MOST_LUCKY_CARDS),
    }


def turn_timeout(state: State) -> int:
    return state["variables"][VAR_TURN_TIMEOUT]


def response_timeout(state: State) -> int:
    return state["variables"][VAR_RESPONSE_TIMEOUT]


def lucky_cards(state: State) -> int:
    return state["variables"][VAR_LUCKY_CARDS]
