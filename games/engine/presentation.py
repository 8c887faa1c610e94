"""What every game's presenter (games/*/presentation.py) shows the same way:
the time left on a deadline, and a table still waiting for its deal. The
time is handed in (`now_ms`), never read here. (The tools' generic presenter
has its own copy in tablehost.clients.presentation: clients never import
the rules.)"""

from __future__ import annotations

from typing import Any, Mapping

from tablehost.games.engine.match import DEALING_STAGE


def time_left(deadline_ms: object, now_ms: int | None) -> str | None:
    """`12 s left` (rounded up, never below 0), None without a deadline or a time."""
    if now_ms is None or not isinstance(deadline_ms, int) or isinstance(deadline_ms, bool):
        return None
    return f"{max(0, -(-(deadline_ms - now_ms) // 1000))} s left"


def is_dealing(view: Mapping[str, Any]) -> bool:
    """Whether `view` is of a table still waiting for its deal."""
    return view.get("stage") == DEALING_STAGE


def dealing_line(view: Mapping[str, Any], now_ms: int | None) -> str:
    left = time_left(view.get("deadline_ms"), now_ms)
    return "dealing... the cards are dealt once every player has connected" + (f" ({left})" if left else "")
