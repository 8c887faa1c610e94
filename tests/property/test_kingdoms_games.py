"""Whole Kingdoms games between random legal players, 2 to 8 of them,
over random seeds: every game ends with exactly one result; at every step
every card is in exactly one zone, nobody is above their maximum health,
and no view carries a card its viewer may not see (another's hand, the
deck); the command log replays to the same final state hash; and a table
of silent players, every request left to its timer, ends too."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import Command, Match, replay
from tablehost.games.engine.views import canonical_bytes, decode
from tablehost.games.kingdoms import table
from tablehost.games.kingdoms.cards import CARDS
from tablehost.games.kingdoms.game import RULES

OPTIONS = {"turn_timeout_ms": 1_000, "response_timeout_ms": 500}

game_seeds = st.integers(min_value=0, max_value=2**64 - 1)
bot_seeds = st.integers(min_value=0, max_value=2**32 - 1)
player_counts = st.integers(min_value=2, max_value=8)


def bounded(examples: int) -> settings:
    return settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def play_out(seed: int, bot_seed: int, players: int,
             at_each_step: Callable[[Match], None] = lambda match: None) -> Match:
    """A whole game: each move a random listed action of a random asked
    seat (its default when none is listed), or now and then the timer's."""
    match = Match(RULES, TableSeed.numbered(seed), [f"n{seat}" for seat in range(players)], dict(OPTIONS), 0)
    bot = random.Random(bot_seed)
    now_ms = 0
    while match.result is None:
        at_each_step(match)
        if bot.random() < 0.05:
            now_ms = match.deadline_ms
            match.act_automatically(match.next_expired(now_ms), now_ms)
        else:
            request = bot.choice(match.requests)
            now_ms += 1
            match.act(request.seat, bot.choice(request.legal_actions or [request.default]), now_ms)
    at_each_step(match)
    return match


def wire(card_id: str) -> bytes:
    """A card id as msgpack writes it (a fixstr)."""
    encoded = card_id.encode()
    return bytes([0xA0 | len(encoded)]) + encoded


@given(game_seeds, bot_seeds, player_counts)
@bounded(20)
def test_every_card_stays_in_one_zone_and_nobody_exceeds_their_maximum_health(
    seed: int, bot_seed: int, players: int
) -> None:
    def check(match: Match) -> None:
        state = match.state
        everywhere = [card for zone in state["zones"].values() for card in zone["cards"]]
        assert sorted(everywhere) == sorted(CARDS)
        for seat in range(players):
            record = table.player(state, seat)
            assert record["health"] <= record["max_health"]
            assert len(table.equipment(state, seat)) <= 3

    play_out(seed, bot_seed, players, check)


@given(game_seeds, bot_seeds, player_counts)
@bounded(20)
def test_every_game_ends_with_exactly_one_result_that_fits_the_identities(
    seed: int, bot_seed: int, players: int
) -> None:
    match = play_out(seed, bot_seed, players)
    result = match.result
    assert [event.type for event in match.events].count("GAME_OVER") == 1
    assert match.requests == [] and match.deadline_ms is None
    identities = result["identities"]
    if result["draw"]:
        assert result["winners"] == [] and result["scores"] == [0] * players
    else:
        side = {"lord": {"lord", "loyalist"}, "rebel": {"rebel"}, "renegade": {"renegade"}}[result["side"]]
        assert result["winners"] and all(identities[seat] in side for seat in result["winners"])
        winners = len(result["winners"])
        assert sorted(result["scores"]) == sorted([1] * winners + [-1] * (players - winners))


@given(game_seeds, bot_seeds, player_counts)
@bounded(12)
def test_replaying_the_command_log_gives_the_same_final_state_hash(seed: int, bot_seed: int, players: int) -> None:
    match = play_out(seed, bot_seed, players)
    logged = [Command.from_plain(decode(canonical_bytes(command.to_plain()))) for command in match.commands]
    again = replay(RULES, decode(canonical_bytes(match.header())), logged)
    assert again.state_hash() == match.state_hash()
    assert again.events == match.events


@given(game_seeds, bot_seeds, player_counts)
@bounded(12)
def test_no_view_carries_a_hand_card_of_another_seat_or_the_deck(seed: int, bot_seed: int, players: int) -> None:
    def check(match: Match) -> None:
        state = match.state
        for viewer in (*range(players), None):
            encoded = canonical_bytes(match.view(viewer))
            hidden = list(table.cards_in(state, table.DECK))
            for seat in range(players):
                if seat != viewer:
                    hidden += table.hand(state, seat)
            for card in hidden:
                assert wire(card) not in encoded, f"viewer {viewer} sees {card}"
            if viewer is not None:
                identities = [p["identity"] for p in match.view(viewer)["players"]]
                for seat, identity in enumerate(identities):
                    record = table.player(state, seat)
                    public = record["identity"] == "lord" or not record["alive"]
                    assert identity == (record["identity"] if public else None)

    play_out(seed, bot_seed, players, check)


@given(game_seeds, player_counts)
@bounded(8)
def test_a_table_of_silent_players_ends_too(seed: int, players: int) -> None:
    """Every request left to its timer: nobody uses a card, so the game
    ends by the deck running out or at round 9999; the rounds in between
    are skipped by moving the round counter on after the first two."""
    match = Match(RULES, TableSeed.numbered(seed), [f"n{seat}" for seat in range(players)], dict(OPTIONS), 0)
    moved_on = False
    for _ in range(5_000):
        if match.result is not None:
            break
        if not moved_on and match.state["position"]["round"] == 3:
            state = copy.deepcopy(match.state)
            state["position"]["round"] = 9_997
            match.state, moved_on = state, True
        now_ms = match.deadline_ms
        match.act_automatically(match.next_expired(now_ms), now_ms)
    assert match.result is not None and match.result["draw"]
