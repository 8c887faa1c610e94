"""Kingdoms, a Sanguosha-like game for 2 to 8 players, on the engine: the
plugin (setup and the players' actions) and the rules object the host uses.

The game runs as nested frames (machine.py) following the seed's flow:
identities and generals, the opening hands and lucky cards, then rounds
(flow.py) of turns of six phases (turns.py), with cards (play.py,
tricks.py), damage, dying and death (damage.py) and generals' skills
(generals.py) in between. Every player action answers the question the
game waits on (legal.py lists them); the answer is recorded in the waiting
frame and the game runs on until it waits again or ends.

Options (options.py): `turn_timeout_ms` (30 s: a player's own choices),
`response_timeout_ms` (15 s: answers out of turn), `lucky_cards` (1).
Kingdoms takes no join data.

Result: {"winner": the first winning seat or -1 for a draw, "winners":
[seats], "side": "lord" | "rebel" | "renegade" | "draw", "draw": bool,
"reason": words, "scores": [1 per winner, -1 per loser, all 0 in a draw],
"identities": [identity by seat]}."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tablehost.games.engine.draw import DRAW_VAR_RESHUFFLE_FROM, DRAW_VAR_RESHUFFLE_KEEP_TOP, DrawPlugin
from tablehost.games.engine.engine import Context
from tablehost.games.engine.errors import Reason, RuleError
from tablehost.games.engine.plugin import Action, ActionHandler, Plugin
from tablehost.games.engine.rules import GameRules, Request
from tablehost.games.engine.state import State, add_zone, create_zone
from tablehost.games.engine.views import View
from tablehost.games.kingdoms import cards, damage, flow, generals, legal, machine, options, play, table, tricks, turns
from tablehost.games.kingdoms.view import seat_views

FRAMES: dict[str, machine.FrameSteps] = {
    **flow.FRAMES, **turns.FRAMES, **play.FRAMES, **tricks.FRAMES, **damage.FRAMES, **generals.FRAMES,
}

MIN_SEATS, MAX_SEATS, DEFAULT_SEATS = 2, 8, 5


def _setup(ctx: Context) -> None:
    state = ctx.state
    for zone_id in (table.DECK, table.DISCARD, table.PROCESSING):
        add_zone(state, create_zone(zone_id, zone_id))
    table.cards_in(state, table.DECK).extend(cards.DECK_IDS)
    for seat, player in enumerate(state["players"]):
        for kind, zone_of_seat in (("hand", table.hand_zone), ("equip", table.equip_zone),
                                   ("judge", table.judge_zone)):
            add_zone(state, create_zone(zone_of_seat(state, seat), kind, player["id"]))
        player["data"] = {
            "identity": None, "general": None, "shown": False, "offered": [], "health": 0, "max_health": 0,
            "alive": True, "face_up": True, "rest": 0, "slashes": 0, "lucky_left": 0, "skip": [],
        }
    state["variables"].update({
        **machine.initial_variables(),
        DRAW_VAR_RESHUFFLE_FROM: table.DISCARD,
        DRAW_VAR_RESHUFFLE_KEEP_TOP: False,
        table.VAR_RESULT: None,
    })
    machine.start(ctx, "game")
    machine.run(ctx, FRAMES)


def _answer(action: Action, ctx: Context) -> None:
    """Every player action answers the question the game waits on."""
    state = ctx.state
    seat = action.seat
    frame = machine.waiting(state)
    if seat is None or frame is None or seat not in frame["ask"]["seats"]:
        raise RuleError(Reason.NOT_YOUR_TURN, "the game is not waiting for you")
    ask = frame["ask"]
    chosen = {"type": action.type, **action.payload}
    if chosen not in legal.request(state, frame, seat).legal_actions:
        refusal = legal.discard_refusal(state, seat, chosen, ask["count"]) if ask["kind"] == turns.DISCARD_DOWN \
            else f"{chosen} is not one of your legal actions now"
        if refusal is not None:
            raise RuleError(Reason.ILLEGAL_MOVE, refusal)
    _record(ctx, frame, seat, chosen)
    machine.run(ctx, FRAMES)


def _record(ctx: Context, frame: machine.Frame, seat: int, chosen: dict[str, Any]) -> None:
    """Keep the answer in the frame; close the ask once every seat is done.
    A question asked of several seats at once for one card (Nullification:
    `first_answer_closes`) closes at the first card given, the giver's seat
    in the answer; if every seat passes, the answer is a pass."""
    ask = frame["ask"]
    done = True
    if ask["kind"] == flow.CHOOSE_GENERAL:
        table.player(ctx.state, seat)["general"] = chosen["general"]
    elif ask["kind"] == flow.LUCKY_CARD:
        if chosen["type"] == legal.LUCKY["type"]:
            flow.use_lucky_card(ctx, seat)
            done = table.player(ctx.state, seat)["lucky_left"] == 0
    elif ask.get("first_answer_closes"):
        frame["answer"] = {**chosen, "seat": seat}
        if chosen["type"] == "respond":
            ask["seats"].clear()
    else:
        frame["answer"] = chosen
    if done and seat in ask["seats"]:
        ask["seats"].remove(seat)
    if not ask["seats"]:
        del frame["ask"]


PLUGIN = Plugin(
    id="kingdoms",
    name="Kingdoms",
    # 2: prompts from public information, disjoint offers, 17 generals (a
    # 1.x state's frames do not run on 2.x steps).
    version="2.0.0",
    actions=tuple(ActionHandler(kind, _answer, by_player=True) for kind in legal.PLAYER_ACTIONS),
    setup=_setup,
    skills=generals.SKILLS,
)


class Kingdoms(GameRules):
    """Kingdoms as the host sees it: 2 to 8 seats (5 by default); the game
    asks one seat or several at once (general selection, lucky cards,
    Nullification), in turn or out of it (a Dodge, a Peach, a
    Nullification)."""

    name = "kingdoms"
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS
    default_seats = DEFAULT_SEATS
    variants = {"": "standard rules: 2-8 seats, identities, 17 generals, an 86-card deck"}
    default_turn_timeout_ms = options.DEFAULT_TURN_TIMEOUT_MS
    plugins = (DrawPlugin, PLUGIN)

    def initial_variables(self, table_options: dict[str, Any]) -> dict[str, Any]:
        return options.checked(table_options, self.default_turn_timeout_ms)

    def requests(self, state: State) -> list[Request]:
        return legal.requests(state)

    def to_act(self, state: State) -> int | None:
        """The current player while the game waits on them (None otherwise)."""
        seats = [request.seat for request in legal.requests(state)]
        return seats[0] if len(seats) == 1 else None

    def legal_actions(self, state: State, seat: int) -> list[dict[str, Any]]:
        request = next((r for r in legal.requests(state) if r.seat == seat), None)
        return [] if request is None else request.legal_actions

    def result(self, state: State) -> dict[str, Any] | None:
        return table.result(state)

    def view(self, state: State, seat: int | None) -> View:
        return self.views(state, [seat])[seat]

    def views(self, state: State, seats: Sequence[int | None]) -> dict[int | None, View]:
        return seat_views(state, seats, self.name)

    def presenter(self) -> Any:
        """The table in words (imported here: a room never needs it)."""
        from tablehost.games.kingdoms.presentation import KingdomsPresenter

        return KingdomsPresenter()

    def bots(self) -> dict[str, Any]:
        """The rule bot (the random one comes with the tools)."""
        from tablehost.games.kingdoms.bots import BOTS

        return dict(BOTS)


RULES = Kingdoms()
__all__ = ["RULES", "Kingdoms"]
