"""A bot that knows Kingdoms, offered to the tools by `Kingdoms.bots()`.

Like every bot it chooses only among the actions listed in its view's
request (or sends the request's default when the choice is not listed), so
it never sends an illegal move, and it reads the table from its view as a
person would. It has the shape the tools expect (a `name` and
`choose(view) -> action`, made by a factory taking a seed)."""

from __future__ import annotations

from typing import Any

from tablehost.games.engine.rules import ActionMap

View = dict[str, Any]

# Whom each identity fights (the renegade fights everyone but the lord,
# whom it needs alive until the end).
_ENEMIES = {
    "lord": {"rebel", "renegade"},
    "loyalist": {"rebel", "renegade"},
    "rebel": {"lord", "loyalist"},
    "renegade": {"rebel", "loyalist"},
}
_HARMFUL = {"Slash", "Duel", "Dismantle", "Snatch", "Indulgence"}


class RuleBot:
    """In order of preference: eat a Peach when hurt; put on equipment;
    Slash an enemy it can reach; use harmful tricks on enemies; end the play
    phase. Out of turn: Dodge a Slash, give Peaches to itself and friends,
    nullify tricks aimed at itself, play a Slash when a Duel or an invasion
    asks for one. Every player who could answer is asked, holding the card
    or not: with nothing to answer with (or no wish to) it passes, the
    request's default. Otherwise (generals, lucky cards, discards) the
    default."""

    name = "rules"

    def __init__(self, seed: int = 0) -> None:
        # Deterministic, so the seed is unused: it is taken so that the
        # class itself is a bot factory like any other.
        del seed

    def choose(self, view: View) -> ActionMap:
        request = view.get("request")
        request = request if isinstance(request, dict) else {}
        actions: list[ActionMap] = request.get("legal_actions") or []
        default = request.get("default")
        if not actions:
            if default is not None:
                return default
            raise ValueError(f"the view of seat {view.get('seat')} lists no legal actions")
        kind = (view.get("prompt") or {}).get("kind")
        chosen = None
        if kind == "play":
            chosen = self._play(view, actions)
        elif kind in ("dodge", "slash"):
            chosen = _respond(actions)
        elif kind == "peach":
            dying = view["prompt"].get("dying")
            chosen = _respond(actions) if dying == view["seat"] or _friend(view, dying) else None
        elif kind == "nullify":
            chosen = _respond(actions) if view["prompt"].get("target") == view["seat"] else None
        if chosen is not None:
            return chosen
        return default if default is not None else actions[-1]

    def _play(self, view: View, actions: list[ActionMap]) -> ActionMap | None:
        names = {card["id"]: card["name"] for card in view.get("hand", [])}
        me = view["players"][view["seat"]]
        uses = [a for a in actions if a.get("type") == "use"]
        for action in uses:
            if names.get(action["card"]) == "Peach" and me["health"] < me["max_health"]:
                return action
        for action in uses:
            if not action["targets"] and names.get(action["card"]) not in ("Lightning", "Peach"):
                return action  # equipment, Barbarian Invasion
        for wanted in ("Slash", *sorted(_HARMFUL - {"Slash"})):
            for action in uses:
                if names.get(action["card"]) == wanted and action["targets"] and _enemy(view, action["targets"][0]):
                    return action
        return next((a for a in actions if a.get("type") == "end_play"), None)


def _respond(actions: list[ActionMap]) -> ActionMap | None:
    return next((a for a in actions if a.get("type") == "respond"), None)


def _identity_of(view: View, seat: int) -> str | None:
    players = view.get("players") or []
    return players[seat].get("identity") if 0 <= seat < len(players) else None


def _enemy(view: View, seat: int) -> bool:
    """An enemy by what the view shows: a known identity it fights; an
    unknown one is an enemy for the lord's foes and friends alike (guesswork)."""
    mine = str(view.get("identity"))
    theirs = _identity_of(view, seat)
    if theirs is None:
        return mine != "loyalist"
    return theirs in _ENEMIES.get(mine, set())


def _friend(view: View, seat: int | None) -> bool:
    if seat is None:
        return False
    theirs = _identity_of(view, seat)
    mine = str(view.get("identity"))
    return theirs is not None and theirs not in _ENEMIES.get(mine, set()) and mine != "renegade"


BOTS = {"rules": RuleBot}
