"""Bots choose only what the host lists as legal, or the request's default
when it lists nothing, so the random bot plays any game; bots are made by
name from the factories a game offers beside the random one; play_seat
measures each commit and backs off after a rejection instead of retrying
the same view. (Big Two's greedy bot: test_bigtwo_bots.py.)"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablehost.clients.bots import NoLegalAction, PlayStats, RandomBot, bot_factories, make_bot, play_seat
from tablehost.clients.sdk import CommitOutcome, GameResult
from tablehost.games.bigtwo.bots import GreedyBot
from tablehost.games.bigtwo.game import RULES as BIGTWO
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import Match
from tablehost.v1 import table_pb2
from tests.testgames.trio import RULES as TRIO

PASS = {"type": "pass"}
BIGTWO_BOTS = bot_factories(BIGTWO.bots())


def play(*cards: str) -> dict[str, Any]:
    return {"type": "play", "cards": list(cards)}


def view_with(*actions: dict[str, Any]) -> dict[str, Any]:
    """A view in which the game asks seat 0 to choose among `actions`."""
    return {"seat": 0, "request": {"legal_actions": list(actions), "deadline_ms": None}}


actions = st.lists(
    st.one_of(
        st.just(PASS),
        st.lists(st.sampled_from(["3C", "3D", "4H", "9S", "TC", "2S"]), min_size=1, max_size=5, unique=True).map(
            lambda cards: play(*cards)
        ),
    ),
    min_size=1,
    max_size=12,
)


@given(actions, st.integers(min_value=0, max_value=2**32))
def test_the_random_bot_only_returns_a_listed_action(legal: list[dict[str, Any]], seed: int) -> None:
    assert RandomBot(seed).choose(view_with(*legal)) in legal


@pytest.mark.parametrize("kind", ["random", "greedy"])
def test_bots_alone_play_a_big_two_game_to_its_end_without_an_illegal_move(kind: str) -> None:
    bots = [make_bot(kind, BIGTWO_BOTS, seed) for seed in range(4)]
    match = Match(BIGTWO, TableSeed.numbered(99), ["a", "b", "c", "d"], {}, 0)
    for now in range(1, 10_000):
        if match.result is not None:
            break
        seat = BIGTWO.to_act(match.state)
        assert seat is not None
        view = match.view(seat)
        choice = bots[seat].choose(view)
        assert choice in view["request"]["legal_actions"]
        match.act(seat, choice, now)  # raises RuleError on an illegal move
    assert match.result is not None


@pytest.mark.parametrize("seed", range(5))
def test_random_bots_play_a_game_that_asks_several_seats_at_once_to_its_end(seed: int) -> None:
    """The three-seat test game asks every seat together, then one out of turn."""
    bots = [RandomBot(seed * 10 + seat) for seat in range(3)]
    match = Match(TRIO, TableSeed.numbered(seed), ["a", "b", "c"], {}, 0, [{"league": "a"}] * 3)
    for now in range(1, 100):
        if match.result is not None:
            break
        asked = [request.seat for request in match.requests]
        assert asked
        for seat in asked:  # every asked seat answers, in any order
            if match.request_for(seat) is not None:
                match.act(seat, bots[seat].choose(match.view(seat)), now)
    assert match.result is not None


def test_a_seeded_random_bot_repeats_its_choices() -> None:
    view = view_with(*(play(card) for card in ["3C", "3D", "4H", "9S", "TC", "2S"]))
    first, second = RandomBot(7), RandomBot(7)
    assert [first.choose(view) for _ in range(20)] == [second.choose(view) for _ in range(20)]


def test_the_random_bot_reaches_every_legal_action() -> None:
    legal = [play("3C"), play("4C", "4D"), PASS]
    bot = RandomBot(1)
    assert {repr(bot.choose(view_with(*legal))) for _ in range(200)} == {repr(action) for action in legal}


@pytest.mark.parametrize("bot", [RandomBot(0), GreedyBot()])
def test_a_view_without_legal_actions_or_default_is_a_clear_error(bot: Any) -> None:
    with pytest.raises(ValueError, match="seat 2"):
        bot.choose({"seat": 2, "to_act": 2})
    with pytest.raises(ValueError, match="seat 2"):
        bot.choose({"seat": 2, "request": {"legal_actions": [], "deadline_ms": None, "default": None}})


def test_the_random_bot_says_which_view_lists_nothing() -> None:
    with pytest.raises(NoLegalAction, match="seat 2 lists no legal actions and no default"):
        RandomBot(0).choose({"seat": 2})


@pytest.mark.parametrize("bot", [RandomBot(0), GreedyBot()])
def test_a_request_that_lists_nothing_but_a_default_gets_the_default(bot: Any) -> None:
    """A choice too large to list (which 2 of 8 cards to discard): the default is always valid."""
    discard = {"type": "discard", "cards": ["3C", "4D"]}
    view = {"seat": 1, "request": {"legal_actions": [], "deadline_ms": 5, "default": discard,
                                   "choice": {"pick": 2, "from": "hand"}}}
    assert bot.choose(view) == discard


def test_bots_are_made_by_name_from_the_random_bot_and_the_games_own() -> None:
    assert sorted(BIGTWO_BOTS) == ["greedy", "random"]
    assert isinstance(make_bot("greedy", BIGTWO_BOTS, 3), GreedyBot)
    assert isinstance(make_bot("random", BIGTWO_BOTS, 3), RandomBot)
    assert sorted(bot_factories()) == ["random"], "a game without bots of its own is played by the random bot"


def test_a_seed_makes_the_same_random_bot() -> None:
    view = view_with(*(play(card) for card in ["3C", "3D", "4H", "9S", "TC", "2S"]))
    first, second = make_bot("random", BIGTWO_BOTS, 5), make_bot("random", BIGTWO_BOTS, 5)
    assert [first.choose(view) for _ in range(20)] == [second.choose(view) for _ in range(20)]


def test_an_unknown_bot_name_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match="unknown bot 'clever'; choose from greedy, random"):
        make_bot("clever", BIGTWO_BOTS)
    with pytest.raises(ValueError, match="choose from random$"):
        make_bot("greedy", bot_factories())


class ScriptedSession:
    """Stands in for a TableSession: hands out turns and outcomes from a script."""

    def __init__(self, turns: list[dict[str, Any] | None], outcomes: list[CommitOutcome]) -> None:
        self.turns, self.outcomes = turns, outcomes
        self.seq = 0
        self.waited_after: list[int] = []
        self.committed: list[dict[str, Any]] = []

    async def wait_for_request(self, after_seq: int = -1, timeout: float | None = None) -> dict[str, Any] | None:
        self.waited_after.append(after_seq)
        self.seq += 1
        return self.turns.pop(0)

    async def commit(self, action: dict[str, Any], act_id: str | None = None, timeout: float = 10.0) -> CommitOutcome:
        self.committed.append(action)
        return self.outcomes.pop(0)

    async def wait_game_over(self, timeout: float | None = None) -> GameResult:
        return GameResult(winner=0, scores=[3, -1, -1, -1], result={}, seq=self.seq)


def test_play_seat_commits_until_the_game_ends_and_measures_each_round_trip() -> None:
    turn = view_with(play("3C"), play("3C", "3D"))
    accepted = CommitOutcome("x", True, 1, round_trip_s=0.002)
    session = ScriptedSession([turn, turn, None], [accepted, accepted])
    stats = PlayStats()
    result = asyncio.run(play_seat(session, GreedyBot(), stats))  # type: ignore[arg-type]
    assert result.winner == 0
    assert session.committed == [play("3C", "3D"), play("3C", "3D")]
    assert stats.moves == 2 and stats.rejects == 0
    assert stats.round_trips_us.get_total_count() == 2
    assert stats.percentile_ms(50) == pytest.approx(2.0, rel=0.01)


def test_after_a_rejection_play_seat_waits_for_a_newer_view() -> None:
    turn = view_with(play("3C"))
    rejected = CommitOutcome("x", False, reason=table_pb2.REJECT_REASON_NOT_YOUR_TURN, message="it is seat 1's turn")
    accepted = CommitOutcome("y", True, 5)
    session = ScriptedSession([turn, turn, None], [rejected, accepted])
    stats = PlayStats()
    asyncio.run(play_seat(session, RandomBot(0), stats))  # type: ignore[arg-type]
    assert stats.rejects == 1 and stats.moves == 1
    assert session.waited_after == [-1, 1, -1], "the retry must wait for a view newer than the rejected one"


def test_play_seat_chooses_from_the_view_as_it_is_after_the_player_thought_and_skips_a_turn_gone_meanwhile() -> None:
    asked = view_with(play("3C"))
    after_thinking = view_with(play("3C"), play("3C", "3D"))
    session = ScriptedSession([asked, asked, None], [CommitOutcome("x", True, 1)])
    session.view, session.game_over = asked, False  # type: ignore[attr-defined]
    thoughts: list[int] = []

    async def think(seat: Any) -> None:
        thoughts.append(len(thoughts))
        # The first time the table changed while the player thought; the second, its timer played the turn.
        seat.view = after_thinking if len(thoughts) == 1 else {"seat": 0}

    stats = PlayStats()
    asyncio.run(play_seat(session, GreedyBot(), stats, before_move=think))  # type: ignore[arg-type]
    assert thoughts == [0, 1]
    assert session.committed == [play("3C", "3D")], "the bot must choose from the view after thinking"
    assert stats.moves == 1 and session.waited_after == [-1, -1, -1]
