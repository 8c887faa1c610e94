"""Big Two (大老二) on the engine: setup, the play and pass actions, the turn
timer's automatic action, scoring, and each seat's view.

The card-combination rules live in combos.py and legal.py; this module is
the table: whose turn, what lies on the table, who passed, who won."""

from __future__ import annotations

from typing import Any, Sequence

from tablehost.games.bigtwo.cards import FULL_DECK, card_order, sort_cards
from tablehost.games.bigtwo.combos import Combination, classify, outranks
from tablehost.games.bigtwo.legal import legal_plays
from tablehost.games.engine import timings
from tablehost.games.engine.draw import DrawPlugin
from tablehost.games.engine.engine import Context
from tablehost.games.engine.errors import Reason, RuleError
from tablehost.games.engine.flow import Phase, begin_turn, deal_initial_cards, finish_phase
from tablehost.games.engine.plugin import Action, ActionHandler, Plugin
from tablehost.games.engine.rules import GameRules
from tablehost.games.engine.state import State, add_zone, create_zone, move_card, seat_zone_id
from tablehost.games.engine.views import View

SEATS = 4
HAND_SIZE = 13
THREE_OF_CLUBS = "3C"
DEFAULT_TURN_TIMEOUT_MS = 20_000

PLAY = "play"
PASS = "pass"

# Events, in the order a move causes them.
PLAYED = "PLAYED"
PASSED = "PASSED"
TRICK_CLEARED = "TRICK_CLEARED"
GAME_OVER = "GAME_OVER"

VAR_TIMEOUT = "bigtwo.turn_timeout_ms"
VAR_DEADLINE = "bigtwo.deadline_ms"
VAR_LAST_PLAY = "bigtwo.last_play"
VAR_PASSED = "bigtwo.passed"
VAR_FIRST_PLAY = "bigtwo.first_play"
VAR_RESULT = "bigtwo.result"

TURN_PHASES = (Phase("play", interactive=True),)


def score_hands(cards_left: list[int]) -> list[int]:
    """A loser pays their cards left, doubled at 10 or more and
    tripled at 13; the winner (no cards left) collects the total."""
    payments = [n * (3 if n == HAND_SIZE else 2 if n >= 10 else 1) for n in cards_left]
    total = sum(payments)
    return [total if n == 0 else -paid for n, paid in zip(cards_left, payments)]


def _hand_zone_id(state: State, seat: int) -> str:
    return seat_zone_id(state, seat, "hand")


def _hand(state: State, seat: int) -> list[str]:
    return state["zones"][_hand_zone_id(state, seat)]["cards"]


def _setup(ctx: Context) -> None:
    deck = create_zone("deck", "deck")
    deck["cards"] = list(FULL_DECK)
    ctx.random("deck.shuffle").shuffle(deck["cards"])
    add_zone(ctx.state, deck)
    add_zone(ctx.state, create_zone("discard", "discard"))
    ctx.fire(timings.GAME_PREPARED, timings.GameData())
    deal_initial_cards(ctx, HAND_SIZE)
    holder = next(seat for seat in range(SEATS) if THREE_OF_CLUBS in _hand(ctx.state, seat))
    ctx.state["position"]["current"] = holder
    ctx.state["variables"].update(
        {VAR_LAST_PLAY: None, VAR_PASSED: [], VAR_FIRST_PLAY: True, VAR_RESULT: None}
    )
    ctx.fire(timings.GAME_START, timings.GameData())
    _start_turn(ctx, holder)


def _start_turn(ctx: Context, seat: int) -> None:
    """Give `seat` the turn; a turn skipped by a trigger passes it on. The
    trick clears when the turn returns to the player who made the last play."""
    variables = ctx.state["variables"]
    for _ in range(SEATS):
        last_play = variables[VAR_LAST_PLAY]
        if last_play is not None and last_play["seat"] == seat:
            variables[VAR_LAST_PLAY] = None
            variables[VAR_PASSED] = []
            ctx.emit(TRICK_CLEARED, {"leader": seat})
        if begin_turn(ctx, seat, TURN_PHASES) is not None:
            variables[VAR_DEADLINE] = ctx.now_ms + variables[VAR_TIMEOUT]
            return
        seat = (seat + 1) % SEATS
    raise RuntimeError("every seat's turn was skipped")


def _end_turn(ctx: Context, seat: int) -> None:
    finish_phase(ctx, seat, TURN_PHASES)
    _start_turn(ctx, (seat + 1) % SEATS)


def _validate_play(state: State, seat: int, payload: dict[str, Any]) -> Combination:
    cards = payload.get("cards")
    if not isinstance(cards, list) or not all(isinstance(card, str) for card in cards):
        raise RuleError(Reason.MALFORMED, "a play needs 'cards': a list of card codes")
    if len(payload) != 1:
        # Like a pass, a play carries nothing else: stray fields would go into the log.
        raise RuleError(Reason.MALFORMED, "a play carries nothing but its type and 'cards'")
    if len(set(cards)) != len(cards):
        raise RuleError(Reason.ILLEGAL_MOVE, "a card appears twice in the play")
    hand = _hand(state, seat)
    missing = [card for card in cards if card not in hand]
    if missing:
        raise RuleError(Reason.ILLEGAL_MOVE, f"not in your hand: {' '.join(missing)}")
    play = classify(cards)
    if play is None:
        raise RuleError(Reason.ILLEGAL_MOVE, f"{' '.join(cards)} is no combination")
    variables = state["variables"]
    refusal = _lay_refusal(play, variables[VAR_FIRST_PLAY], _previous_play(variables))
    if refusal is not None:
        raise RuleError(Reason.ILLEGAL_MOVE, refusal)
    return play


def _previous_play(variables: dict[str, Any]) -> Combination | None:
    """The play to beat, or None when leading."""
    last_play = variables[VAR_LAST_PLAY]
    return classify(last_play["cards"]) if last_play is not None else None


def _lay_refusal(play: Combination, first_play: bool, previous: Combination | None) -> str | None:
    """Why a combination from the hand may not be laid now, or None when it
    may: the one statement of that rule, which both a play's check and the
    list of legal plays apply."""
    if first_play and THREE_OF_CLUBS not in play.cards:
        return "the first play of the game must contain 3C"
    if previous is not None and not outranks(play, previous):
        return (f"{play.kind.value} {' '.join(play.cards)} does not beat "
                f"{previous.kind.value} {' '.join(previous.cards)}")
    return None


def _play(action: Action, ctx: Context) -> None:
    state = ctx.state
    seat = state["position"]["current"]
    play = _validate_play(state, seat, action.payload)
    hand_zone = _hand_zone_id(state, seat)
    for card in play.cards:
        move_card(state, card, hand_zone, "discard")
    variables = state["variables"]
    variables[VAR_LAST_PLAY] = {"seat": seat, "kind": play.kind.value, "cards": list(play.cards)}
    # `passed` lists the seats that passed on the play to beat (docs/protocol.md).
    variables[VAR_PASSED] = []
    variables[VAR_FIRST_PLAY] = False
    ctx.emit(PLAYED, {"seat": seat, "kind": play.kind.value, "cards": list(play.cards)}, action.player_id)
    if state["zones"][hand_zone]["cards"]:
        _end_turn(ctx, seat)
    else:
        _finish_game(ctx, seat)


def _pass(action: Action, ctx: Context) -> None:
    state = ctx.state
    seat = state["position"]["current"]
    if action.payload:
        raise RuleError(Reason.MALFORMED, "a pass carries nothing but its type")
    last_play = state["variables"][VAR_LAST_PLAY]
    if last_play is None:
        raise RuleError(Reason.ILLEGAL_MOVE, "you lead this trick and may not pass")
    state["variables"][VAR_PASSED].append(seat)
    ctx.emit(PASSED, {"seat": seat}, action.player_id)
    _end_turn(ctx, seat)


def _finish_game(ctx: Context, winner: int) -> None:
    state = ctx.state
    cards_left = [len(_hand(state, seat)) for seat in range(SEATS)]
    result = {"winner": winner, "cards_left": cards_left, "scores": score_hands(cards_left)}
    state["variables"][VAR_RESULT] = result
    state["variables"][VAR_DEADLINE] = None
    state["position"]["phase"] = ""
    ctx.emit(GAME_OVER, result)


def _plays_to_actions(plays: list[Combination]) -> list[dict[str, Any]]:
    return [{"type": PLAY, "cards": list(play.cards)} for play in plays]


PLUGIN = Plugin(
    id="bigtwo",
    name="Big Two",
    version="1.0.0",
    actions=(ActionHandler(PLAY, _play, by_player=True), ActionHandler(PASS, _pass, by_player=True)),
    setup=_setup,
)


class BigTwo(GameRules):
    """The Big Two rules as the host sees them: one seat acts at a time, so
    the base class's requests (to_act, legal_actions, the turn deadline and
    the automatic action) are Big Two's."""

    name = "bigtwo"
    min_seats = SEATS
    max_seats = SEATS
    variants = {"": "standard rules: 4 seats, 3♣ leads, bombs beat anything"}
    default_turn_timeout_ms = DEFAULT_TURN_TIMEOUT_MS
    plugins = (DrawPlugin, PLUGIN)

    def initial_variables(self, options: dict[str, Any]) -> dict[str, Any]:
        timeout = options.get("turn_timeout_ms", self.default_turn_timeout_ms)
        if not isinstance(timeout, int) or isinstance(timeout, bool) or timeout <= 0:
            raise ValueError(f"turn_timeout_ms must be a positive integer, got {timeout!r}")
        return {VAR_TIMEOUT: timeout, VAR_DEADLINE: None}

    def to_act(self, state: State) -> int | None:
        if state["variables"].get(VAR_RESULT) is not None:
            return None
        return state["position"]["current"]

    def deadline_ms(self, state: State) -> int | None:
        return state["variables"].get(VAR_DEADLINE)

    def result(self, state: State) -> dict[str, Any] | None:
        return state["variables"].get(VAR_RESULT)

    def legal_actions(self, state: State, seat: int) -> list[dict[str, Any]]:
        """Every legal play (each card set once), then pass when allowed."""
        if self.to_act(state) != seat:
            return []
        variables = state["variables"]
        previous = _previous_play(variables)
        first_play = variables[VAR_FIRST_PLAY]
        # The hand's combinations of the kinds that could be laid on the
        # previous play, kept as the same rule a play's check applies.
        candidates = legal_plays(_hand(state, seat), previous)
        actions = _plays_to_actions([play for play in candidates if _lay_refusal(play, first_play, previous) is None])
        if previous is not None:
            actions.append({"type": PASS})
        return actions

    def automatic_action(self, state: State) -> dict[str, Any]:
        """When the turn timer expires: the first play is 3C alone; a leader
        plays the lowest single; anyone else passes."""
        variables = state["variables"]
        if variables[VAR_FIRST_PLAY]:
            return {"type": PLAY, "cards": [THREE_OF_CLUBS]}
        if variables[VAR_LAST_PLAY] is None:
            lowest = min(_hand(state, state["position"]["current"]), key=card_order)
            return {"type": PLAY, "cards": [lowest]}
        return {"type": PASS}

    def view(self, state: State, seat: int | None) -> View:
        """What `seat` may see (None: a spectator)."""
        return self.views(state, [seat])[seat]

    def views(self, state: State, seats: Sequence[int | None]) -> dict[int | None, View]:
        """Each seat's view (None: a spectator's). Built from an explicit list
        of public fields plus the seat's own hand, so nothing hidden can slip
        in: never another hand, never the deck's order. The public fields are
        built once and shared by every view (a host encodes them once). The
        seat to act also gets its request (its legal actions) from the host."""
        variables = state["variables"]
        to_act = self.to_act(state)
        public: View = {
            "game": self.name,
            "players": [player["name"] for player in state["players"]],
            "to_act": to_act,
            "deadline_ms": variables[VAR_DEADLINE],
            "hand_counts": [len(_hand(state, s)) for s in range(SEATS)],
            "last_play": variables[VAR_LAST_PLAY],
            "passed": list(variables[VAR_PASSED]),
            "first_play": variables[VAR_FIRST_PLAY],
            "result": variables[VAR_RESULT],
        }
        views: dict[int | None, View] = {}
        for seat in seats:
            view = dict(public, seat=-1 if seat is None else seat)
            if seat is not None:
                view["hand"] = sort_cards(_hand(state, seat))
            views[seat] = view
        return views

    def presenter(self) -> Any:
        """Cards as glyphs, card codes as input, a line per play (imported
        here: a room playing the game never needs it)."""
        from tablehost.games.bigtwo.presentation import BigTwoPresenter

        return BigTwoPresenter()

    def bots(self) -> dict[str, Any]:
        """The greedy bot, which sheds the most cards it can."""
        from tablehost.games.bigtwo.bots import BOTS

        return dict(BOTS)


RULES = BigTwo()
__all__ = ["RULES", "BigTwo", "score_hands"]
