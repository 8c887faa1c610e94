"""A test game for seats that act together and out of turn: three players,
three rounds. Each round every seat secretly picks 1, 2 or 3 at the same
time (one request per seat, each with its own deadline; an expired pick is
a 1). When all have picked, the picks are shown; the highest unique pick
attacks the next seat, which is then asked, out of turn, to dodge or take
(an expired answer takes). A take costs the target a point and gives the
attacker one; a dodge costs nothing, but a seat may dodge once a game: it
gains the "wary" skill, kept by name in the state, whose handler doubles
what every later take costs that seat. No unique highest pick: nobody attacks.

Join data: `{"league": "a" | "b"}` (players of different leagues never share
a table) and an optional `"mark"` of up to 4 characters shown by its seat.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tablehost.games.engine.engine import Context
from tablehost.games.engine.joins import JoinShape, Text
from tablehost.games.engine.errors import Reason, RuleError
from tablehost.games.engine.plugin import Action, ActionHandler, Plugin, Skill
from tablehost.games.engine.rules import GameRules, InvalidJoin, Request
from tablehost.games.engine.skills import grant_skill, held_skills
from tablehost.games.engine.state import State
from tablehost.games.engine.views import View

SEATS = 3
ROUNDS = 3
PICK, DODGE, TAKE = "pick", "dodge", "take"
DEFAULT_TIMEOUT_MS = 10_000
LEAGUES = ("a", "b")
TAKE_COST = "take_cost"  # a timing: what a take costs its target


@dataclass(slots=True)
class TakeCost:
    seat: int
    cost: int = 1


def _double_for_the_wary(ctx: Context, seat: int, data: TakeCost) -> None:
    if data.seat == seat:
        data.cost *= 2


def _vars(state: State) -> dict[str, Any]:
    return state["variables"]


def _setup(ctx: Context) -> None:
    _start_round(ctx, 1)


def _start_round(ctx: Context, number: int) -> None:
    variables = _vars(ctx.state)
    variables.update({
        "round": number,
        "phase": "pick",
        "picks": [None] * SEATS,
        "shown": None,
        "attack": None,
        "deadlines": [ctx.now_ms + variables["timeout_ms"]] * SEATS,
    })


def _pick(action: Action, ctx: Context) -> None:
    variables, seat = _vars(ctx.state), _seat_of(action)
    if variables["phase"] != "pick" or variables["picks"][seat] is not None:
        raise RuleError(Reason.NOT_YOUR_TURN, "you have picked this round")
    number = action.payload.get("n")
    if number not in (1, 2, 3) or set(action.payload) != {"n"}:
        raise RuleError(Reason.MALFORMED, "a pick is {'type': 'pick', 'n': 1, 2 or 3}")
    variables["picks"][seat] = number
    if all(pick is not None for pick in variables["picks"]):
        _reveal(ctx)


def _reveal(ctx: Context) -> None:
    variables = _vars(ctx.state)
    picks = variables["picks"]
    variables["shown"] = list(picks)
    unique = [n for n in picks if picks.count(n) == 1]
    if not unique:
        _next_round(ctx)
        return
    attacker = picks.index(max(unique))
    target = (attacker + 1) % SEATS
    variables.update({"phase": "respond", "attack": {"attacker": attacker, "target": target},
                      "deadlines": [None] * SEATS})
    variables["deadlines"][target] = ctx.now_ms + variables["timeout_ms"]


def _respond(action: Action, ctx: Context) -> None:
    variables, seat = _vars(ctx.state), _seat_of(action)
    attack = variables["attack"]
    if variables["phase"] != "respond" or attack["target"] != seat:
        raise RuleError(Reason.NOT_YOUR_TURN, "nobody asked you to respond")
    if action.payload:
        raise RuleError(Reason.MALFORMED, f"a {action.type} carries nothing but its type")
    if action.type == DODGE:
        if "wary" in held_skills(ctx.state, seat):
            raise RuleError(Reason.ILLEGAL_MOVE, "you have dodged once this game")
        grant_skill(ctx, seat, "wary")
    else:
        cost = TakeCost(seat)
        ctx.fire(TAKE_COST, cost)
        variables["scores"][seat] -= cost.cost
        variables["scores"][attack["attacker"]] += 1
    _next_round(ctx)


def _next_round(ctx: Context) -> None:
    variables = _vars(ctx.state)
    if variables["round"] == ROUNDS:
        variables.update({"phase": "over", "deadlines": [None] * SEATS})
        return
    _start_round(ctx, variables["round"] + 1)


def _seat_of(action: Action) -> int:
    assert action.seat is not None  # only players' actions reach the handlers
    return action.seat


PLUGIN = Plugin(
    id="trio", name="Trio", version="0.0.1",
    actions=tuple(ActionHandler(kind, handler, by_player=True)
                  for kind, handler in ((PICK, _pick), (DODGE, _respond), (TAKE, _respond))),
    setup=_setup,
    skills=(Skill("wary", triggers=((TAKE_COST, _double_for_the_wary),)),),
)


class Trio(GameRules):
    name = "trio"
    min_seats = max_seats = SEATS
    default_turn_timeout_ms = DEFAULT_TIMEOUT_MS
    plugins = (PLUGIN,)

    def initial_variables(self, options: dict[str, Any]) -> dict[str, Any]:
        return {"timeout_ms": options.get("turn_timeout_ms", DEFAULT_TIMEOUT_MS), "scores": [0] * SEATS}

    join_shapes = (JoinShape({"league": Text(16), "mark": Text(4)}, optional=frozenset({"mark"})),)

    def check_join(self, join: Mapping[str, Any]) -> dict[str, Any]:
        if join["league"] not in LEAGUES:
            raise InvalidJoin(f"unknown league {join['league']!r}; choose one of {', '.join(LEAGUES)}")
        return {"league": join["league"], "mark": join.get("mark", "")}

    def join_partition(self, join: Mapping[str, Any]) -> str:
        return str(join["league"])

    def requests(self, state: State) -> list[Request]:
        variables = _vars(state)
        if variables["phase"] == "pick":
            picks = [{"type": PICK, "n": n} for n in (1, 2, 3)]
            return [Request(seat, picks, variables["deadlines"][seat], {"type": PICK, "n": 1})
                    for seat in range(SEATS) if variables["picks"][seat] is None]
        if variables["phase"] == "respond":
            target = variables["attack"]["target"]
            wary = "wary" in held_skills(state, target)
            answers = [{"type": TAKE}] if wary else [{"type": DODGE}, {"type": TAKE}]
            return [Request(target, answers, variables["deadlines"][target], {"type": TAKE})]
        return []

    def views(self, state: State, seats: Any) -> dict[int | None, View]:
        variables = _vars(state)
        public = {
            "game": self.name,
            "round": variables["round"],
            "phase": variables["phase"],
            "shown": variables["shown"],
            "attack": variables["attack"],
            "scores": list(variables["scores"]),
            "marks": [player["join"]["mark"] for player in state["players"]],
            "picked": [pick is not None for pick in variables["picks"]],
            "wary": ["wary" in held_skills(state, seat) for seat in range(SEATS)],
        }
        views: dict[int | None, View] = {}
        for seat in seats:
            view = dict(public, seat=-1 if seat is None else seat)
            if seat is not None:
                view["my_pick"] = variables["picks"][seat]  # the others' stay hidden until shown
            views[seat] = view
        return views

    def result(self, state: State) -> dict[str, Any] | None:
        variables = _vars(state)
        if variables["phase"] != "over":
            return None
        scores = list(variables["scores"])
        best = max(scores)
        return {"scores": scores, "winner": scores.index(best) if scores.count(best) == 1 else -1}


RULES = Trio()
