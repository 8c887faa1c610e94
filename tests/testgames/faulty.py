"""A deliberately broken game: Big Two with one more action, `explode`,
whose handler raises an ordinary Python error (not a RuleError), and whose
turn timer takes that action; and join data `{"crash": "partition"}` on
which its join_partition raises. It proves a rules bug closes only its own
table (through a commit, and through an expiring turn timer) and refuses
only its own player's join (never the front door's batch it came in)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tablehost.games.bigtwo.game import BigTwo
from tablehost.games.engine.engine import Context
from tablehost.games.engine.joins import JoinShape, Text
from tablehost.games.engine.plugin import Action, ActionHandler, Plugin
from tablehost.games.engine.state import State

EXPLODE = "explode"


def _explode(action: Action, ctx: Context) -> None:
    raise ZeroDivisionError("the faulty test game divides by zero")


class FaultyBigTwo(BigTwo):
    name = "faulty"
    plugins = (*BigTwo.plugins, Plugin(id="faulty", name="Faulty", version="0.0.1",
                                       actions=(ActionHandler(EXPLODE, _explode, by_player=True),)))

    join_shapes = (JoinShape({"crash": Text(16)}, optional=frozenset({"crash"})),)

    def automatic_action(self, state: State) -> dict[str, str]:
        return {"type": EXPLODE}

    def join_partition(self, join: Mapping[str, Any]) -> str:
        if join.get("crash") == "partition":
            raise ZeroDivisionError("the faulty test game divides by zero at the lobby")
        return ""


RULES = FaultyBigTwo()
