"""Duel, a Hearthstone-like game for two, on the engine: its setup, its
plugin and the rules object the host uses.

Setup: the first player is drawn from the table's seeded PRNG; each
player's deck (checked join data, decks.py) is shuffled; the first player
draws 3 cards, the second 4; both are asked at once which to return
(returned cards are replaced from the deck, then shuffled into it, so a
returned card never comes straight back; a mulligan left to its deadline
keeps the hand). When both have chosen, the second player gets the Lucky
Coin and the first player's turn begins.

A turn (the engine's flow): TURN_START (cards' start-of-turn text), then
the refresh: draw a card (or take fatigue 1, 2, 3, ...; a hand of 10 burns
the card), capacity +1 up to 10, mana refilled, minions woken, attacks and
the hero power ready; then the play phase, which waits for the player.
Ending the turn (or its timer, 90 s by default) fires TURN_END (cards'
end-of-turn text), thaws what has been frozen since before the turn, and
starts the opponent's turn.

Turns and the mulligan are turns.py; playing a card, attacking and the hero
power (and the order their effects resolve in) actions.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tablehost.games.duel import abilities, actions, board, legal, turns
from tablehost.games.duel.deaths import game_result
from tablehost.games.duel.decks import DECK_SIZE, checked_deck
from tablehost.games.duel.turns import (MULLIGAN_STAGE, PLAY_STAGE, VAR_DEADLINE, VAR_FIRST, VAR_HERO_HEALTH,
                                        VAR_MULLIGAN_DONE, VAR_STAGE, VAR_TIMEOUT, variables_of)
from tablehost.games.duel.view import seat_views
from tablehost.games.engine.draw import DrawPlugin, create_draw_card_action
from tablehost.games.engine.engine import Context
from tablehost.games.engine.joins import JoinShape, Text, TextList
from tablehost.games.engine.plugin import ActionHandler, Plugin
from tablehost.games.engine.rules import GameRules, Request
from tablehost.games.engine.state import State, add_zone, create_zone, seat_player_id
from tablehost.games.engine.views import View

MAX_NAME_LENGTH = 64

DEFAULT_TURN_TIMEOUT_MS = 90_000
DEFAULT_HERO_HEALTH = 25
MAX_HERO_HEALTH = 1_000
OPENING_HAND = (3, 4)  # the first player's, the second's
# The deck of a player who names none (the CLI's bots and terminal client).
EXAMPLE_DECK = "mage-basic"


def _setup(ctx: Context) -> None:
    state = ctx.state
    variables = variables_of(state)
    variables.update({
        board.VAR_CARDS: {}, board.VAR_MINIONS: {}, board.VAR_WEAPONS: {},
        VAR_STAGE: MULLIGAN_STAGE, VAR_DEADLINE: None, VAR_MULLIGAN_DONE: [False] * board.SEATS,
    })
    first = ctx.random("first_player").below(board.SEATS)
    variables[VAR_FIRST] = first
    state["position"]["current"] = first
    for seat, player in enumerate(state["players"]):
        for kind, zone_id in board.ZONE_KINDS:
            add_zone(state, create_zone(zone_id(state, seat), kind, player["id"]))
        health = variables[VAR_HERO_HEALTH]
        player["data"] = {
            "class": player["join"]["class"], "deck": player["join"]["deck"],
            "health": health, "max_health": health, "armor": 0, "mana": 0, "capacity": 0, "fatigue": 0,
            "hero_power_used": False, "attacks": 0, "frozen_turn": None,
        }
        cards = board.deck(state, seat)
        for index, name in enumerate(player["join"]["cards"]):
            card_id = f"{player['id']}.{index:02d}"
            variables[board.VAR_CARDS][card_id] = name
            cards.append(card_id)
        ctx.random("deck.shuffle").shuffle(cards)
    for order, seat in enumerate((first, board.opponent(first))):
        ctx.run(create_draw_card_action(seat_player_id(state, seat), OPENING_HAND[order],
                                        board.deck_zone(state, seat), board.hand_zone(state, seat)))
    variables[VAR_DEADLINE] = ctx.now_ms + variables[VAR_TIMEOUT]



PLUGIN = Plugin(
    id="duel",
    name="Duel",
    version="1.0.0",
    actions=(
        ActionHandler(legal.MULLIGAN, turns.mulligan, by_player=True),
        ActionHandler(legal.PLAY, actions.play, by_player=True),
        ActionHandler(legal.ATTACK, actions.attack, by_player=True),
        ActionHandler(legal.HERO_POWER, actions.hero_power, by_player=True),
        ActionHandler(legal.END_TURN, turns.end_turn, by_player=True),
    ),
    setup=_setup,
    triggers=abilities.TRIGGERS,
)


def _positive_int(options: Mapping[str, Any], name: str, default: int, most: int | None = None) -> int:
    value = options.get(name, default)
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0 or (most is not None and value > most):
        bound = f" up to {most}" if most is not None else ""
        raise ValueError(f"{name} must be a positive integer{bound}, got {value!r}")
    return value


class Duel(GameRules):
    """Duel as the host sees it: both seats are asked at once for the
    mulligan, then one seat at a time; join data names each player's deck.

    Options: `turn_timeout_ms` (default 90 000; also the mulligan's
    deadline) and `hero_health` (default 25)."""

    name = "duel"
    min_seats = board.SEATS
    max_seats = board.SEATS
    variants = {"": "standard rules: 2 seats, 30-card decks, heroes at 25 health"}
    default_turn_timeout_ms = DEFAULT_TURN_TIMEOUT_MS
    plugins = (DrawPlugin, PLUGIN)

    def initial_variables(self, options: dict[str, Any]) -> dict[str, Any]:
        return {
            VAR_TIMEOUT: _positive_int(options, "turn_timeout_ms", self.default_turn_timeout_ms),
            VAR_HERO_HEALTH: _positive_int(options, "hero_health", DEFAULT_HERO_HEALTH, MAX_HERO_HEALTH),
        }

    # Names of decks, classes and cards are far shorter; a list twice a
    # deck's size is told its size by checked_deck rather than cut short.
    join_shapes = (
        JoinShape({"deck": Text(MAX_NAME_LENGTH)}),
        JoinShape({"class": Text(MAX_NAME_LENGTH), "cards": TextList(2 * DECK_SIZE, MAX_NAME_LENGTH),
                   "deck": Text(MAX_NAME_LENGTH)}, optional=frozenset({"deck"})),
    )

    def check_join(self, join: Mapping[str, Any]) -> dict[str, Any]:
        """`{"deck": "mage-basic"}` or `{"class": "mage", "cards": [...]}`; see decks.py."""
        return checked_deck(join)

    def example_join(self) -> dict[str, Any]:
        return {"deck": EXAMPLE_DECK}

    def requests(self, state: State) -> list[Request]:
        variables = variables_of(state)
        stage = variables[VAR_STAGE]
        deadline = variables[VAR_DEADLINE]
        if stage == MULLIGAN_STAGE:
            keep = {"type": legal.MULLIGAN, "cards": []}
            return [Request(seat, legal.mulligan_choices(board.hand(state, seat)), deadline, keep)
                    for seat in range(board.SEATS) if not variables[VAR_MULLIGAN_DONE][seat]]
        if stage == PLAY_STAGE:
            seat = board.current_seat(state)
            return [Request(seat, legal.legal_turn_actions(state, seat), deadline, {"type": legal.END_TURN})]
        return []

    def to_act(self, state: State) -> int | None:
        if variables_of(state)[VAR_STAGE] != PLAY_STAGE:
            return None
        return board.current_seat(state)

    def legal_actions(self, state: State, seat: int) -> list[dict[str, Any]]:
        request = next((r for r in self.requests(state) if r.seat == seat), None)
        return [] if request is None else request.legal_actions

    def result(self, state: State) -> dict[str, Any] | None:
        return game_result(state)

    def view(self, state: State, seat: int | None) -> View:
        return self.views(state, [seat])[seat]

    def views(self, state: State, seats: Sequence[int | None]) -> dict[int | None, View]:
        """Each seat's view; see view.py for what each may see."""
        variables = variables_of(state)
        return seat_views(state, seats, {
            "game": self.name,
            "stage": variables[VAR_STAGE],
            "first": variables[VAR_FIRST],
            "to_act": self.to_act(state),
            "deadline_ms": variables[VAR_DEADLINE],
            "mulligan_done": list(variables[VAR_MULLIGAN_DONE]),
        })

    def presenter(self) -> Any:
        """The board, hand and actions in words (imported here: a room never needs it)."""
        from tablehost.games.duel.presentation import DuelPresenter

        return DuelPresenter()

    def bots(self) -> dict[str, Any]:
        """The greedy bot (the random one comes with the tools)."""
        from tablehost.games.duel.bots import BOTS

        return dict(BOTS)


RULES = Duel()
__all__ = ["RULES", "Duel"]
