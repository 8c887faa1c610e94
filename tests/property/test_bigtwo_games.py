"""Whole Big Two games between random legal bots, over random seeds.

Every game is played to its end, sometimes letting the turn timer move, and at
every step we check what must always hold: the 52 cards are all somewhere and nowhere
twice; every seat's and the spectator's deltas rebuild their views hash for hash; no
view or delta carries a card its viewer may not see; the legal actions offered are all
accepted and other card sets are refused without a trace; the command log replays to
the same final state.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator
from itertools import combinations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablehost.games.bigtwo.cards import FULL_DECK
from tablehost.games.bigtwo.game import RULES, score_hands
from tablehost.games.engine.errors import Reason, RuleError
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import Command, Match, MatchHeader, replay, seat_id
from tablehost.games.engine.state import player_hand_zone_id
from tablehost.games.engine.views import apply_delta, canonical_bytes, decode, diff, view_hash

PLAYERS = ["north", "east", "south", "west"]
VIEWERS: tuple[int | None, ...] = (0, 1, 2, 3, None)
TIMEOUT_MS = 1_000


def bounded(examples: int) -> settings:
    return settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])


game_seeds = st.integers(min_value=0, max_value=2**64 - 1)
bot_seeds = st.integers(min_value=0, max_value=2**32 - 1)


def play_out(seed: int, bot_seed: int, at_each_step: Callable[[Match], None] = lambda match: None) -> Match:
    """A whole game: each move a random legal action, or the turn timer's automatic
    action (every tenth move, and now and then at random). `at_each_step` sees the match before every move and at the end."""
    match = Match(RULES, TableSeed.numbered(seed), list(PLAYERS), {"turn_timeout_ms": TIMEOUT_MS}, 0, keep_events=True)
    bot = random.Random(bot_seed)
    now_ms = 0
    while match.result is None:
        at_each_step(match)
        seat = RULES.to_act(match.state)
        assert seat is not None
        # Every tenth move from the fourth on is the timer's, so every game has some.
        if len(match.commands) % 10 == 3 or bot.random() < 0.1:
            now_ms = match.deadline_ms
            match.act_automatically(match.next_expired(now_ms), now_ms)
        else:
            now_ms += bot.randrange(TIMEOUT_MS)
            match.act(seat, bot.choice(RULES.legal_actions(match.state, seat)), now_ms)
    at_each_step(match)
    return match


def hands(match: Match) -> list[list[str]]:
    return [match.state["zones"][player_hand_zone_id(seat_id(seat))]["cards"] for seat in range(len(PLAYERS))]


def wire_codes(cards: list[str]) -> Iterator[bytes]:
    """Each card as msgpack writes it: fixstr of length 2."""
    return (b"\xa2" + card.encode() for card in cards)


# --- cards, winner, scores ------------------------------------------------------------------


@given(game_seeds, bot_seeds)
@bounded(100)
def test_52_cards_are_conserved_and_never_in_two_zones_at_any_step(seed: int, bot_seed: int) -> None:
    def check(match: Match) -> None:
        everywhere = [card for zone in match.state["zones"].values() for card in zone["cards"]]
        assert len(everywhere) == 52
        assert set(everywhere) == set(FULL_DECK)

    play_out(seed, bot_seed, check)


@given(game_seeds, bot_seeds)
@bounded(100)
def test_every_game_ends_with_exactly_one_winner_and_scores_that_sum_to_zero(seed: int, bot_seed: int) -> None:
    match = play_out(seed, bot_seed)
    result = match.result
    cards_left = [len(cards) for cards in hands(match)]
    assert cards_left.count(0) == 1
    assert result["winner"] == cards_left.index(0)
    assert result["cards_left"] == cards_left
    assert result["scores"] == score_hands(cards_left)
    assert sum(result["scores"]) == 0
    assert RULES.to_act(match.state) is None and match.deadline_ms is None


# --- views, deltas, hashes, hidden cards ---------------------------------------------------


@given(game_seeds, bot_seeds)
@bounded(50)
def test_applying_every_delta_in_order_reproduces_every_view_hash_for_every_viewer(
    seed: int, bot_seed: int
) -> None:
    held: dict[int | None, dict] = {}
    previous: dict[int | None, dict] = {}

    def check(match: Match) -> None:
        for viewer in VIEWERS:
            view = match.view(viewer)
            if viewer not in held:  # the snapshot a client starts from
                held[viewer] = decode(canonical_bytes(view))
            else:
                delta = decode(canonical_bytes(diff(previous[viewer], view)))
                held[viewer] = apply_delta(held[viewer], delta)
            assert view_hash(held[viewer]) == view_hash(view)
            previous[viewer] = view

    play_out(seed, bot_seed, check)


@given(game_seeds, bot_seeds)
@bounded(50)
def test_no_view_or_delta_carries_a_card_its_viewer_may_not_see(seed: int, bot_seed: int) -> None:
    previous: dict[int | None, dict] = {}

    def check(match: Match) -> None:
        in_hands = hands(match)
        for viewer in VIEWERS:
            view = match.view(viewer)
            messages = [canonical_bytes(view)]
            if viewer in previous:
                messages.append(canonical_bytes(diff(previous[viewer], view)))
            previous[viewer] = view
            hidden = [card for seat, cards in enumerate(in_hands) if seat != viewer for card in cards]
            for code in wire_codes(hidden):
                for message in messages:
                    assert code not in message, f"viewer {viewer} sees {code!r}"
            if viewer is not None:
                assert view["hand"] == sorted(in_hands[viewer], key=FULL_DECK.index)

    play_out(seed, bot_seed, check)


# --- replay ---------------------------------------------------------------------------


@given(game_seeds, bot_seeds)
@bounded(50)
def test_replaying_the_command_log_gives_the_same_final_state_hash(seed: int, bot_seed: int) -> None:
    match = play_out(seed, bot_seed)
    logged = [Command.from_plain(decode(canonical_bytes(command.to_plain()))) for command in match.commands]
    header = MatchHeader.from_plain(decode(canonical_bytes(match.header().to_plain())))
    again = replay(RULES, header, logged, keep_events=True)
    assert again.state_hash() == match.state_hash()
    assert again.events == match.events
    assert any(command.automatic for command in match.commands)


# --- legal actions are exactly what is accepted ----------------------------------------------


def fork(match: Match) -> Match:
    """A copy to try an action on (act replaces the state and appends to the logs)."""
    clone = copy.copy(match)
    clone.commands = list(match.commands)
    clone.events = list(match.events)
    return clone


@given(game_seeds, bot_seeds)
@bounded(40)
def test_every_enumerated_legal_action_is_accepted(seed: int, bot_seed: int) -> None:
    def check(match: Match) -> None:
        seat = RULES.to_act(match.state)
        if seat is None:
            return
        for action in RULES.legal_actions(match.state, seat):
            fork(match).act(seat, action, 1)

    play_out(seed, bot_seed, check)


@given(game_seeds, bot_seeds, st.randoms(use_true_random=False))
@bounded(30)
def test_card_sets_that_are_not_listed_are_refused_without_changing_the_state(
    seed: int, bot_seed: int, sampler: random.Random
) -> None:
    def check(match: Match) -> None:
        seat = RULES.to_act(match.state)
        if seat is None:
            return
        legal = RULES.legal_actions(match.state, seat)
        listed = {frozenset(action.get("cards", ())) for action in legal if action["type"] == "play"}
        hand = hands(match)[seat]
        candidates = [
            list(cards)
            for size in (1, 2, 3, 4, 5)
            for cards in combinations(hand, size)
            if frozenset(cards) not in listed
        ]
        others = [card for card in FULL_DECK if card not in hand]
        tries = sampler.sample(candidates, min(6, len(candidates)))
        tries.append(sampler.sample(hand, 1) + sampler.sample(others, 1))  # one card not held
        before = match.state_hash()
        for cards in tries:
            sampler.shuffle(cards)
            try:
                match.act(seat, {"type": "play", "cards": cards}, 1)
            except RuleError as refusal:
                assert refusal.reason is Reason.ILLEGAL_MOVE
            else:
                raise AssertionError(f"{cards} was accepted but not listed in {legal}")
            assert match.state_hash() == before
        if {"type": "pass"} not in legal:
            try:
                match.act(seat, {"type": "pass"}, 1)
            except RuleError as refusal:
                assert refusal.reason is Reason.ILLEGAL_MOVE
            else:
                raise AssertionError("a pass was accepted but not listed")
            assert match.state_hash() == before

    play_out(seed, bot_seed, check)
