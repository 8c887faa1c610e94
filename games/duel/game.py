"""Duel, a Hearthstone-like game for two, on the engine: setup, the
mulligan, turns, the player actions and the rules object the host uses.

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

Effect order, deterministic and the same on every replay:
1. An action's own steps run in order: a minion card is paid for, enters
   the board at the right end, fires CARD_PLAYED, runs its battlecry, then
   fires MINION_SUMMONED; a spell is paid for, goes to the graveyard, fires
   CARD_PLAYED, then resolves; an attack fires ATTACK_DECLARED (secrets
   may answer or redirect it), then both sides deal their damage, the
   attacker's first.
2. A timing fires as soon as its event happens (depth first): the active
   player's cards run first, then the opponent's; within a side minions
   left to right, then secrets in the order played, then the weapon
   (abilities.py). Every random choice comes from the recorded PRNG.
3. Deaths wait for the end of the step: then every dead minion leaves at
   once and their deaths resolve active side first, left to right,
   deathrattle before MINION_DIED, repeated until nobody is dying
   (deaths.py). Only then is a hero at 0 health found: it loses, and
   both at once is a draw.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from typing import Any

from tablehost.games.duel import abilities, board, effects, legal
from tablehost.games.duel import timings as duel_timings
from tablehost.games.duel.catalog import LUCKY_COIN, spec_of
from tablehost.games.duel.cards import MINION, SECRET, WEAPON, Source
from tablehost.games.duel.deaths import game_result, resolve_deaths
from tablehost.games.duel.decks import DECK_SIZE, checked_deck
from tablehost.games.duel.view import seat_views
from tablehost.games.engine.draw import DrawPlugin, create_draw_card_action
from tablehost.games.engine.engine import Context
from tablehost.games.engine.errors import Reason, RuleError
from tablehost.games.engine.flow import Phase, begin_turn, finish_phase
from tablehost.games.engine.joins import JoinShape, Text, TextList
from tablehost.games.engine.plugin import Action, ActionHandler, Plugin
from tablehost.games.engine.rules import GameRules, Request
from tablehost.games.engine.state import State, add_zone, create_zone, move_card
from tablehost.games.engine.views import View

MAX_NAME_LENGTH = 64

DEFAULT_TURN_TIMEOUT_MS = 90_000
DEFAULT_HERO_HEALTH = 25
MAX_HERO_HEALTH = 1_000
OPENING_HAND = (3, 4)  # the first player's, the second's
# The deck of a player who names none (the CLI's bots and terminal client).
EXAMPLE_DECK = "mage-basic"

# Stages of a game, in order.
MULLIGAN_STAGE = "mulligan"
PLAY_STAGE = "play"
OVER_STAGE = "over"

VAR_TIMEOUT = "duel.turn_timeout_ms"
VAR_HERO_HEALTH = "duel.hero_health"
VAR_STAGE = "duel.stage"
VAR_FIRST = "duel.first"
VAR_DEADLINE = "duel.deadline_ms"
VAR_MULLIGAN_DONE = "duel.mulligan_done"

# Events, in the order a move causes them.
MULLIGAN_DONE = "MULLIGAN_DONE"
COIN_GIVEN = "COIN_GIVEN"
PLAYED = "PLAYED"
ATTACKED = "ATTACKED"
ATTACK_CALLED_OFF = "ATTACK_CALLED_OFF"
HERO_POWER_USED = "HERO_POWER_USED"
TURN_ENDED = "TURN_ENDED"


def _refresh(ctx: Context, seat: int) -> None:
    """The start of a turn, in the seed's order: draw, capacity, mana,
    then what may act this turn."""
    state = ctx.state
    effects.draw_cards(ctx, seat, 1)
    hero = board.hero(state, seat)
    hero["capacity"] = min(board.MANA_LIMIT, hero["capacity"] + 1)
    hero["mana"] = hero["capacity"]
    hero["attacks"] = 0
    hero["hero_power_used"] = False
    for minion_id in board.board(state, seat):
        record = board.minion(state, minion_id)
        record["asleep"] = False
        record["attacks"] = 0
    resolve_deaths(ctx)


TURN_PHASES = (Phase("refresh", body=_refresh), Phase("play", interactive=True))


def _variables(state: State) -> dict[str, Any]:
    return state["variables"]


def _setup(ctx: Context) -> None:
    state = ctx.state
    variables = _variables(state)
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
        ctx.run(create_draw_card_action(board.player_id(state, seat), OPENING_HAND[order],
                                        board.deck_zone(state, seat), board.hand_zone(state, seat)))
    variables[VAR_DEADLINE] = ctx.now_ms + variables[VAR_TIMEOUT]


def _seat_of(action: Action) -> int:
    if action.seat is None:
        raise RuleError(Reason.NOT_YOUR_SEAT, f"a {action.type} is a player's action")
    return action.seat


def _require_stage(state: State, stage: str) -> None:
    current = _variables(state)[VAR_STAGE]
    if current != stage:
        raise RuleError(Reason.ILLEGAL_MOVE, f"that is for the {stage} and the game is in its {current}")


def _require_fields(action: Action, required: Set[str], optional: Set[str] = frozenset()) -> None:
    fields = set(action.payload)
    if not required <= fields <= required | optional:
        wanted = ", ".join(sorted(required)) or "nothing"
        extra = f" (and optionally {', '.join(sorted(optional))})" if optional else ""
        raise RuleError(Reason.MALFORMED, f"a {action.type} carries {wanted}{extra}, got {sorted(fields)}")


def _refuse_if(refusal: str | None) -> None:
    if refusal is not None:
        raise RuleError(Reason.ILLEGAL_MOVE, refusal)


# -- the mulligan ------------------------------------------------------------------


def _mulligan(action: Action, ctx: Context) -> None:
    state = ctx.state
    seat = _seat_of(action)
    _require_stage(state, MULLIGAN_STAGE)
    _require_fields(action, {"cards"})
    returned = action.payload["cards"]
    if not isinstance(returned, list) or not all(isinstance(card, str) for card in returned):
        raise RuleError(Reason.MALFORMED, "a mulligan's cards are a list of card ids")
    done = _variables(state)[VAR_MULLIGAN_DONE]
    if done[seat]:
        raise RuleError(Reason.NOT_YOUR_TURN, "you have chosen your mulligan")
    hand = board.hand(state, seat)
    if len(set(returned)) != len(returned) or not set(returned) <= set(hand):
        raise RuleError(Reason.ILLEGAL_MOVE, "return only cards of your opening hand, each once")
    if returned:
        deck_zone, hand_zone = board.deck_zone(state, seat), board.hand_zone(state, seat)
        ctx.run(create_draw_card_action(action.player_id, len(returned), deck_zone, hand_zone))
        for card_id in returned:
            move_card(state, card_id, hand_zone, deck_zone)
        ctx.random("mulligan.shuffle").shuffle(board.deck(state, seat))
    done[seat] = True
    ctx.emit(MULLIGAN_DONE, {"seat": seat, "returned": len(returned)})
    if all(done):
        _begin_play(ctx)


def _begin_play(ctx: Context) -> None:
    state = ctx.state
    variables = _variables(state)
    first = variables[VAR_FIRST]
    second = board.opponent(first)
    effects.create_card(state, second, LUCKY_COIN.name, board.hand_zone(state, second))
    ctx.emit(COIN_GIVEN, {"seat": second})
    variables[VAR_STAGE] = PLAY_STAGE
    _start_turn(ctx, first)


# -- turns ------------------------------------------------------------------------


def _start_turn(ctx: Context, seat: int) -> None:
    variables = _variables(ctx.state)
    variables[VAR_DEADLINE] = ctx.now_ms + variables[VAR_TIMEOUT]
    begin_turn(ctx, seat, TURN_PHASES)
    _after_step(ctx)


def _after_step(ctx: Context) -> None:
    """Close the game when the last step ended it."""
    variables = _variables(ctx.state)
    if game_result(ctx.state) is not None:
        variables[VAR_STAGE] = OVER_STAGE
        variables[VAR_DEADLINE] = None
        ctx.state["position"]["phase"] = ""


def _end_turn(action: Action, ctx: Context) -> None:
    state = ctx.state
    seat = _begin_turn_action(action, ctx, set())
    ctx.emit(TURN_ENDED, {"seat": seat})
    finish_phase(ctx, seat, TURN_PHASES)
    _thaw(state, seat)
    resolve_deaths(ctx)
    if game_result(state) is None:
        _start_turn(ctx, board.opponent(seat))
    _after_step(ctx)


def _thaw(state: State, seat: int) -> None:
    """At the end of its owner's turn a character thaws, unless it was
    frozen during that turn (then it misses the owner's next turn too)."""
    this_turn = board.turn_number(state)
    for character in board.characters(state, seat):
        record = board.character(state, character)
        if record["frozen_turn"] is not None and record["frozen_turn"] < this_turn:
            record["frozen_turn"] = None


def _begin_turn_action(action: Action, ctx: Context, required: Set[str], optional: Set[str] = frozenset()) -> int:
    """The checks every action of a turn shares; returns the acting seat."""
    _require_stage(ctx.state, PLAY_STAGE)
    _require_fields(action, required, optional)
    seat = _seat_of(action)
    if seat != board.current_seat(ctx.state):
        raise RuleError(Reason.NOT_YOUR_TURN, "it is not your turn")
    return seat


# -- playing a card, attacking, the hero power ------------------------------------


def _play(action: Action, ctx: Context) -> None:
    state = ctx.state
    seat = _begin_turn_action(action, ctx, {"card"}, {"target"})
    card_id, target = action.payload["card"], action.payload.get("target")
    _refuse_if(legal.play_refusal(state, seat, card_id, target))
    spec = spec_of(board.card_name(state, card_id))
    board.hero(state, seat)["mana"] -= spec.cost
    hand_zone = board.hand_zone(state, seat)
    source = Source(seat, card_id)
    ctx.emit(PLAYED, {"seat": seat, "card": card_id, "name": spec.name, "target": target})
    played = duel_timings.CardPlayed(seat, card_id, spec.kind, target)
    if spec.kind == MINION:
        effects.enter_board(state, seat, card_id, spec, hand_zone, None)
        ctx.fire(duel_timings.CARD_PLAYED, played)
        if spec.on_play is not None:
            spec.on_play(ctx, source, target)
        ctx.fire(duel_timings.MINION_SUMMONED, duel_timings.MinionSummoned(seat, card_id))
    elif spec.kind == WEAPON:
        effects.equip(ctx, seat, card_id, spec, hand_zone)
        ctx.fire(duel_timings.CARD_PLAYED, played)
    elif spec.kind == SECRET:
        move_card(state, card_id, hand_zone, board.secrets_zone(state, seat))
        ctx.fire(duel_timings.CARD_PLAYED, played)
    else:
        move_card(state, card_id, hand_zone, board.graveyard_zone(state, seat))
        ctx.fire(duel_timings.CARD_PLAYED, played)
        if spec.on_play is not None:
            spec.on_play(ctx, source, target)
    resolve_deaths(ctx)
    _after_step(ctx)


def _attack(action: Action, ctx: Context) -> None:
    state = ctx.state
    seat = _begin_turn_action(action, ctx, {"attacker", "target"})
    attacker, target = action.payload["attacker"], action.payload["target"]
    _refuse_if(legal.attack_refusal(state, seat, attacker, target))
    record = board.character(state, attacker)
    record["attacks"] += 1
    if board.is_minion(state, attacker):
        record["stealth"] = False
    ctx.emit(ATTACKED, {"seat": seat, "attacker": attacker, "target": target})
    declared = duel_timings.AttackDeclared(seat, attacker, target)
    ctx.fire(duel_timings.ATTACK_DECLARED, declared)
    resolve_deaths(ctx)
    target = declared.target
    if game_result(state) is None:
        if board.alive(state, attacker) and board.alive(state, target):
            _strike(ctx, seat, attacker, target)
        else:
            ctx.emit(ATTACK_CALLED_OFF, {"attacker": attacker, "target": target})
    _after_step(ctx)


def _strike(ctx: Context, seat: int, attacker: str, target: str) -> None:
    """Both deal their damage (a hero under attack strikes nothing back);
    a hero's weapon loses a durability."""
    state = ctx.state
    blow = board.attack_of(state, attacker)
    counter = board.attack_of(state, target) if board.is_minion(state, target) else 0
    effects.deal_damage(ctx, attacker, target, blow)
    effects.deal_damage(ctx, target, attacker, counter)
    equipped = board.weapon(state, seat)
    if board.is_hero(state, attacker) and equipped is not None:
        equipped["durability"] -= 1
    resolve_deaths(ctx)


def _hero_power(action: Action, ctx: Context) -> None:
    state = ctx.state
    seat = _begin_turn_action(action, ctx, set(), {"target"})
    target = action.payload.get("target")
    _refuse_if(legal.hero_power_refusal(state, seat, target))
    spec = legal.hero_power_of(state, seat)
    hero = board.hero(state, seat)
    hero["mana"] -= spec.cost
    hero["hero_power_used"] = True
    ctx.emit(HERO_POWER_USED, {"seat": seat, "name": spec.name, "target": target})
    if spec.on_play is not None:
        spec.on_play(ctx, Source(seat, board.player_id(state, seat)), target)
    resolve_deaths(ctx)
    _after_step(ctx)


PLUGIN = Plugin(
    id="duel",
    name="Duel",
    version="1.0.0",
    actions=(
        ActionHandler(legal.MULLIGAN, _mulligan, by_player=True),
        ActionHandler(legal.PLAY, _play, by_player=True),
        ActionHandler(legal.ATTACK, _attack, by_player=True),
        ActionHandler(legal.HERO_POWER, _hero_power, by_player=True),
        ActionHandler(legal.END_TURN, _end_turn, by_player=True),
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
        variables = _variables(state)
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
        if _variables(state)[VAR_STAGE] != PLAY_STAGE:
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
        variables = _variables(state)
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
