"""Whole Duel games between random legal players, over random seeds and
decks: every game ends with one result, and at every step what must always
hold does: no hero above its maximum health, no board above 7 minions, no
hand above 10 cards, every card in exactly one zone, no hidden card (a
hand, a deck, an unrevealed secret) in a view its viewer may not see, and
the command log replays to the same final state hash."""

from __future__ import annotations

import random
from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablehost.games.duel import board
from tablehost.games.duel.decks import DECKS
from tablehost.games.duel.game import RULES
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import Command, Match, MatchHeader, replay
from tablehost.games.engine.views import canonical_bytes, decode

TIMEOUT_MS = 1_000
VIEWERS: tuple[int | None, ...] = (0, 1, None)

game_seeds = st.integers(min_value=0, max_value=2**64 - 1)
bot_seeds = st.integers(min_value=0, max_value=2**32 - 1)
decks = st.tuples(st.sampled_from(sorted(DECKS)), st.sampled_from(sorted(DECKS)))


def bounded(examples: int) -> settings:
    return settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def play_out(seed: int, bot_seed: int, chosen: tuple[str, str],
             at_each_step: Callable[[Match], None] = lambda match: None) -> Match:
    """A whole game: each move a random legal action of a random asked seat,
    or now and then the timer's automatic action."""
    match = Match(RULES, TableSeed.numbered(seed), ["ann", "bo"], {"turn_timeout_ms": TIMEOUT_MS}, 0,
                  [{"deck": name} for name in chosen], keep_events=True)
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
            match.act(request.seat, bot.choice(request.legal_actions), now_ms)
    at_each_step(match)
    return match


def wire(card_id: str) -> bytes:
    """A card id as msgpack writes it (a fixstr), so `p0.1` never matches inside `p0.12`."""
    encoded = card_id.encode()
    return bytes([0xA0 | len(encoded)]) + encoded


@given(game_seeds, bot_seeds, decks)
@bounded(40)
def test_health_board_and_hand_stay_within_their_limits_and_every_card_is_in_one_zone(
    seed: int, bot_seed: int, chosen: tuple[str, str]
) -> None:
    def check(match: Match) -> None:
        state = match.state
        for seat in (0, 1):
            hero = board.hero(state, seat)
            assert hero["health"] <= hero["max_health"] == 25
            assert len(board.board(state, seat)) <= board.BOARD_LIMIT
            assert len(board.hand(state, seat)) <= board.HAND_LIMIT
            assert 0 <= hero["capacity"] <= board.MANA_LIMIT
            for minion_id in board.board(state, seat):
                record = board.minion(state, minion_id)
                assert record["health"] <= record["max_health"]
        everywhere = [card for zone in state["zones"].values() for card in zone["cards"]]
        assert sorted(everywhere) == sorted(state["variables"][board.VAR_CARDS])
        assert set(board.board(state, 0) + board.board(state, 1)) == set(state["variables"][board.VAR_MINIONS])

    play_out(seed, bot_seed, chosen, check)


@given(game_seeds, bot_seeds, decks)
@bounded(40)
def test_every_game_ends_with_exactly_one_result_that_matches_the_heroes(
    seed: int, bot_seed: int, chosen: tuple[str, str]
) -> None:
    match = play_out(seed, bot_seed, chosen)
    fallen = [seat for seat in (0, 1) if board.hero(match.state, seat)["health"] <= 0]
    result = match.result
    assert fallen
    if len(fallen) == 2:
        assert result["winner"] == -1 and result["draw"] and result["scores"] == [0, 0]
    else:
        assert result["winner"] == 1 - fallen[0] and sorted(result["scores"]) == [-1, 1]
    assert [event.type for event in match.events].count("GAME_OVER") == 1
    assert match.requests == [] and match.deadline_ms is None


@given(game_seeds, bot_seeds, decks)
@bounded(30)
def test_replaying_the_command_log_gives_the_same_final_state_hash(
    seed: int, bot_seed: int, chosen: tuple[str, str]
) -> None:
    match = play_out(seed, bot_seed, chosen)
    logged = [Command.from_plain(decode(canonical_bytes(command.to_plain()))) for command in match.commands]
    again = replay(RULES, MatchHeader.from_plain(decode(canonical_bytes(match.header().to_plain()))), logged,
                   keep_events=True)
    assert again.state_hash() == match.state_hash()
    assert again.events == match.events


@given(game_seeds, bot_seeds, decks)
@bounded(25)
def test_no_view_carries_a_card_its_viewer_may_not_see(seed: int, bot_seed: int, chosen: tuple[str, str]) -> None:
    def check(match: Match) -> None:
        state = match.state
        for viewer in VIEWERS:
            encoded = canonical_bytes(match.view(viewer))
            hidden = board.deck(state, 0) + board.deck(state, 1)
            for seat in (0, 1):
                if seat != viewer:
                    hidden += board.hand(state, seat) + board.secrets(state, seat)
            for card in hidden:
                assert wire(card) not in encoded, f"viewer {viewer} sees {card}"

    play_out(seed, bot_seed, chosen, check)
