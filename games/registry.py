"""The games a host can run, by name."""

from __future__ import annotations

from games.bigtwo.game import RULES as BIGTWO
from games.engine.match import GameRules

GAMES: dict[str, GameRules] = {BIGTWO.name: BIGTWO}


def get_rules(name: str) -> GameRules:
    try:
        return GAMES[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r}; this host runs {', '.join(sorted(GAMES))}") from None
