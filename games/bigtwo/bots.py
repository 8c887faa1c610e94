"""Bots that know Big Two, offered to the tools by `BigTwo.bots()`.

Like every bot, a Big Two bot chooses only among the actions the host
listed in its view's request, so it can never send an illegal move; what it
knows of the game is which of those to prefer. It has the shape the tools
expect (a `name` and `choose(view) -> action`, made by a factory taking a
seed), without importing them: the rules stay free of the client side.
"""

from __future__ import annotations

from typing import Any

from tablehost.games.engine.views import offered_actions
from tablehost.games.engine.rules import ActionMap

View = dict[str, Any]


class GreedyBot:
    """Sheds as many cards as it can: the legal action with the most cards,
    the earliest in the host's list on a tie (the host lists plays from the
    weakest up, so the cheapest of equally large plays). It passes only when
    nothing else is legal."""

    name = "greedy"

    def __init__(self, seed: int = 0) -> None:
        # Deterministic, so the seed is unused: it is taken so that the
        # class itself is a bot factory like any other.
        del seed

    def choose(self, view: View) -> ActionMap:
        actions = offered_actions(view)
        plays = [action for action in actions if action.get("type") != "pass"] or actions
        # max() keeps the first of equal keys.
        return max(plays, key=lambda action: len(action.get("cards", ())))


BOTS = {"greedy": GreedyBot}
