"""Scenario helpers shared by the Kingdoms tests (no tests of their own).

A scenario is a real match whose players chose the generals the test
names (every offer is rewritten to that one general) and kept their hands,
resting in the lord's play phase. Skills are then taken away unless the
test keeps them, so a card test sees the card alone. Hands are set by
moving named cards from the deck (or discard pile) and putting the old
hand under the deck, so every card stays accounted for. The state is
replaced by a rewritten copy, so the match computes its requests afresh."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import Match
from tablehost.games.engine.plugin import Trigger
from tablehost.games.engine.state import State
from tablehost.games.kingdoms import cards, machine, table
from tablehost.games.kingdoms import timings as kt
from tablehost.games.kingdoms.game import RULES, Kingdoms

PLAIN_GENERAL = "Lü Meng"  # his skill acts only in the discard phase
END_PLAY = {"type": "end_play"}
PASS = {"type": "pass"}


class Harness(Kingdoms):
    """Kingdoms with extra triggers (a test's own handlers) and a log of
    every timing fired, as (timing, data fields)."""

    def __init__(self, triggers: Sequence[Trigger] = (), log_timings: Sequence[str] = kt.ALL_TIMINGS) -> None:
        self.extra = tuple(triggers)
        self.log: list[tuple[str, dict[str, Any]]] = []
        self.log_timings = tuple(log_timings)

    def engine(self):  # type: ignore[no-untyped-def]
        engine = super().engine()
        for timing in self.log_timings:
            engine.add_trigger(Trigger(timing, self._recorder(timing)))
        for trigger in self.extra:
            engine.add_trigger(trigger)
        return engine

    def _recorder(self, timing: str) -> Callable[[Any, Any], None]:
        def record(ctx: Any, data: Any) -> None:
            fields = {name: getattr(data, name) for name in getattr(data, "__slots__", ())}
            self.log.append((timing, fields))

        return record

    def timings(self) -> list[str]:
        return [timing for timing, _ in self.log]


def new_match(seed: int = 1, seats: int = 5, rules: Kingdoms = RULES, options: dict[str, Any] | None = None) -> Match:
    return Match(rules, TableSeed.numbered(seed), [f"n{seat}" for seat in range(seats)], options or {}, 0,
                 keep_events=True)


def choose_generals(match: Match, generals: dict[int, str] | None = None, keep_hands: bool = True) -> None:
    """Answer the general questions, and the lucky-card one by keeping the
    hand unless `keep_hands` is False: each seat takes the general
    `generals` names for it (PLAIN_GENERAL otherwise)."""
    generals = generals or {}
    answered = ("general", "lucky") if keep_hands else ("general",)
    while True:
        frame = machine.waiting(match.state)
        if frame is None or frame["ask"]["kind"] not in answered:
            return
        for seat in list(frame["ask"]["seats"]):
            if frame["ask"]["kind"] == "general":
                wanted = generals.get(seat, PLAIN_GENERAL)
                rewrite(match, lambda state, s=seat, w=wanted: table.player(state, s).update(offered=[w]))
                match.act(seat, {"type": "choose_general", "general": wanted}, 1)
            else:
                match.act(seat, {"type": "keep_hand"}, 1)
            frame = machine.waiting(match.state)
            if frame is None or frame["ask"]["kind"] not in answered:
                return


def started(seed: int = 1, seats: int = 5, rules: Kingdoms = RULES, generals: dict[int, str] | None = None,
            keep_skills: bool = False, options: dict[str, Any] | None = None) -> Match:
    """A match in the lord's first play phase."""
    match = new_match(seed, seats, rules, options)
    choose_generals(match, generals)
    if not keep_skills:
        rewrite(match, lambda state: [player.update(skills=[]) for player in state["players"]])
    return match


def rewrite(match: Match, change: Callable[[State], Any]) -> Any:
    state = copy.deepcopy(match.state)
    made = change(state)
    match.state = state
    return made


def lord(match: Match) -> int:
    return table.lord(match.state)


def seat_after(match: Match, seat: int, steps: int = 1) -> int:
    return (seat + steps) % table.seats(match.state)


def take_named(state: State, name: str, exclude: Sequence[str] = ()) -> str:
    """A card of that name from the deck, else the discard pile, else a hand."""
    hands = [zone_id for zone_id in state["zones"] if zone_id.endswith(":hand")]
    for zone_id in (table.DECK, table.DISCARD, *hands):
        for card_id in table.cards_in(state, zone_id):
            if cards.card(card_id).name == name and card_id not in exclude:
                return card_id
    raise LookupError(f"no {name} left in the deck, the discard pile or a hand")


def set_hand(match: Match, seat: int, names: Sequence[str]) -> list[str]:
    """`seat`'s hand becomes exactly the named cards; returns their ids."""

    def change(state: State) -> list[str]:
        for card_id in list(table.hand(state, seat)):
            table.move(state, card_id, table.DECK)
        made: list[str] = []
        for name in names:
            card_id = take_named(state, name)
            table.move(state, card_id, table.hand_zone(state, seat))
            made.append(card_id)
        return made

    return rewrite(match, change)


def place(match: Match, seat: int, name: str, zone: Callable[[State, int], str]) -> str:
    """Put a card of that name into one of `seat`'s zones (equipment, judgement)."""
    return rewrite(match, lambda state: _place(state, seat, name, zone))


def _place(state: State, seat: int, name: str, zone: Callable[[State, int], str]) -> str:
    card_id = take_named(state, name)
    table.move(state, card_id, zone(state, seat))
    return card_id


def stack_deck(match: Match, names: Sequence[str]) -> list[str]:
    """The deck's top cards become the named ones, in order."""

    def change(state: State) -> list[str]:
        chosen: list[str] = []
        for name in names:
            chosen.append(take_named(state, name, chosen) if name in cards.SPECS else _by_suit(state, name, chosen))
        deck = table.cards_in(state, table.DECK)
        for card_id in chosen:
            table.move(state, card_id, table.DECK)
            deck.remove(card_id)
        deck[:0] = chosen
        return chosen

    return rewrite(match, change)


def _by_suit(state: State, wanted: str, exclude: Sequence[str]) -> str:
    """A card described as "heart", "spade 5" ... from the deck or discard pile."""
    suit, _, number = wanted.partition(" ")
    for zone_id in (table.DECK, table.DISCARD):
        for card_id in table.cards_in(state, zone_id):
            card = cards.card(card_id)
            if card.suit == suit and (not number or card.number == int(number)) and card_id not in exclude:
                return card_id
    raise LookupError(f"no {wanted} card left")


def health(match: Match, seat: int) -> int:
    return table.player(match.state, seat)["health"]


def set_health(match: Match, seat: int, value: int) -> None:
    rewrite(match, lambda state: table.player(state, seat).update(health=value))


def use(match: Match, seat: int, card: str, targets: Sequence[int] = ()) -> None:
    match.act(seat, {"type": "use", "card": card, "targets": list(targets)}, 2)


def respond(match: Match, seat: int, card: str) -> None:
    match.act(seat, {"type": "respond", "card": card}, 2)


def asked(match: Match) -> tuple[str, list[int]] | None:
    frame = machine.waiting(match.state)
    return None if frame is None else (frame["ask"]["kind"], list(frame["ask"]["seats"]))


def all_card_ids(state: State) -> list[str]:
    return [card for zone in state["zones"].values() for card in zone["cards"]]


def names(state: State, card_ids: Sequence[str]) -> list[str]:
    return [cards.card(card_id).name for card_id in card_ids]


def scene(match: Match, hands: dict[int, Sequence[str]] | None = None) -> dict[int, list[str]]:
    """Every seat's hand becomes the named cards (empty when not named);
    returns each seat's new ids."""
    hands = hands or {}
    return {seat: set_hand(match, seat, hands.get(seat, ())) for seat in range(table.seats(match.state))}


def expire(match: Match) -> None:
    """Let the earliest deadline pass: the host takes the default."""
    now = match.deadline_ms
    match.act_automatically(match.next_expired(now), now)


def end_turn(match: Match) -> None:
    """The current player ends their play phase; the discard phase's timer
    discards for them."""
    match.act(table.current_seat(match.state), END_PLAY, 5)
    while asked(match) is not None and asked(match)[0] == "discard":
        expire(match)


def everyone_passes(match: Match, kind: str = "nullify") -> None:
    """While the game asks `kind`, every asked seat passes (a card test
    that is not about Nullification lets every trick stand)."""
    while asked(match) is not None and asked(match)[0] == kind:
        for seat in asked(match)[1]:
            match.act(seat, PASS, 2)
            if asked(match) is None or asked(match)[0] != kind:
                break
