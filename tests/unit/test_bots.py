"""Bots choose only what the host lists as legal (R-P7); the greedy bot sheds
the most cards and passes only when it must; play_seat measures each commit
and backs off after a rejection instead of retrying the same view."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablehost.clients.bots import GreedyBot, NoLegalAction, PlayStats, RandomBot, make_bot, play_seat
from tablehost.clients.sdk import CommitOutcome, GameResult
from tablehost.games.bigtwo.game import RULES as BIGTWO
from tablehost.games.engine.match import Match
from tablehost.v1 import table_pb2

PASS = {"type": "pass"}


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


@given(actions)
def test_the_greedy_bot_only_returns_a_listed_action(legal: list[dict[str, Any]]) -> None:
    assert GreedyBot().choose(view_with(*legal)) in legal


@pytest.mark.parametrize("kind", ["random", "greedy"])
def test_bots_alone_play_a_big_two_game_to_its_end_without_an_illegal_move(kind: str) -> None:
    bots = [make_bot(kind, seed) for seed in range(4)]
    match = Match(BIGTWO, 99, ["a", "b", "c", "d"], {}, 0)
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


def test_the_greedy_bot_plays_the_most_cards() -> None:
    legal = [play("3C"), play("4C", "4D"), play("5C", "6D", "7H", "8S", "9C"), play("9D"), PASS]
    assert GreedyBot().choose(view_with(*legal)) == play("5C", "6D", "7H", "8S", "9C")


def test_the_greedy_bot_breaks_ties_by_the_earliest_listed() -> None:
    legal = [play("3C"), play("4C", "4D"), play("5C", "5D"), PASS]
    assert GreedyBot().choose(view_with(*legal)) == play("4C", "4D")


def test_the_greedy_bot_passes_only_when_nothing_else_is_legal() -> None:
    assert GreedyBot().choose(view_with(play("2S"), PASS)) == play("2S")
    assert GreedyBot().choose(view_with(PASS)) == PASS


def test_a_seeded_random_bot_repeats_its_choices() -> None:
    view = view_with(*(play(card) for card in ["3C", "3D", "4H", "9S", "TC", "2S"]))
    first, second = RandomBot(7), RandomBot(7)
    assert [first.choose(view) for _ in range(20)] == [second.choose(view) for _ in range(20)]


def test_the_random_bot_reaches_every_legal_action() -> None:
    legal = [play("3C"), play("4C", "4D"), PASS]
    bot = RandomBot(1)
    assert {repr(bot.choose(view_with(*legal))) for _ in range(200)} == {repr(action) for action in legal}


@pytest.mark.parametrize("bot", [RandomBot(0), GreedyBot()])
def test_a_view_without_legal_actions_is_a_clear_error(bot: Any) -> None:
    with pytest.raises(NoLegalAction, match="seat 2"):
        bot.choose({"seat": 2, "to_act": 2})


def test_an_unknown_bot_name_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown bot 'clever'"):
        make_bot("clever")


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
