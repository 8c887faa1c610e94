"""A deliberately broken game: Big Two with one more action, `explode`,
whose handler raises an ordinary Python error (not a RuleError), and whose
turn timer takes that action. It proves a rules bug closes only its own
table: through a commit, and through an expiring turn timer."""

from __future__ import annotations

from tablehost.games.bigtwo.game import BigTwo
from tablehost.games.engine.engine import Context
from tablehost.games.engine.plugin import Action, ActionHandler, HandlerResult, Plugin
from tablehost.games.engine.state import State

EXPLODE = "explode"


def _explode(action: Action, ctx: Context) -> HandlerResult:
    raise ZeroDivisionError("the faulty test game divides by zero")


class FaultyBigTwo(BigTwo):
    name = "faulty"
    plugins = (*BigTwo.plugins, Plugin(id="faulty", name="Faulty", version="0.0.1",
                                       actions=(ActionHandler(EXPLODE, _explode, by_player=True),)))

    def automatic_action(self, state: State) -> dict[str, str]:
        return {"type": EXPLODE}


RULES = FaultyBigTwo()
