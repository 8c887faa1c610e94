"""The load runner's bots can sign in each as its own player and think
before each move, and the summary says how long each bot's JoinQueue waited
for its seat (every seat: a bot whose table was cancelled waits again). The
lobby, the table and the play are stand-ins here;
tests/integration/test_loadrun.py runs the real thing."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tablehost.clients import loadrun
from tablehost.clients.bots import PlayStats
from tablehost.clients.sdk import Assignment, TableCancelled

QUEUE_WAIT_S = 0.05


class FakeLobby:
    """Seats every join after QUEUE_WAIT_S, at table `table-N` (N: the join's number)."""

    signed_in: dict[str, str] = {}
    joins = 0

    def __init__(self, target: str, *, tls_root_cert: bytes | None = None, player_token: str = "") -> None:
        self.player_token = player_token

    async def __aenter__(self) -> FakeLobby:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        return None

    async def join_queue(self, game: str, display_name: str, **_options: Any) -> Assignment:
        FakeLobby.signed_in[display_name] = self.player_token
        FakeLobby.joins += 1
        number = FakeLobby.joins
        await asyncio.sleep(QUEUE_WAIT_S)
        return Assignment(table_id=f"table-{number}", endpoint="nowhere:1", seat=0, seat_token="t", game=game,
                          display_names=(display_name,), ticket="")


class FakeSession:
    desyncs = gaps = reconnects = stream_rejections = 0

    def __init__(self, assignment: Assignment) -> None:
        self.assignment = assignment

    @classmethod
    async def connect(cls, assignment: Assignment, _lobby: object, **_options: Any) -> FakeSession:
        return cls(assignment)

    async def close(self) -> None:
        return None


@pytest.fixture
def stand_ins(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The lobby, table and play replaced; bot 0's first table is cancelled
    before its deal. Returns the tables played, in order."""
    FakeLobby.signed_in, FakeLobby.joins = {}, 0
    played: list[str] = []
    cancelled: set[str] = set()

    async def play_seat(session: FakeSession, _bot: object, stats: PlayStats, before_move: Any = None) -> None:
        if before_move is not None:
            await before_move(session)
        if session.assignment.display_names[0].endswith("-bot-0") and not cancelled:
            cancelled.add(session.assignment.table_id)
            raise TableCancelled("a seat never came")
        stats.moves += 1
        played.append(session.assignment.table_id)

    monkeypatch.setattr(loadrun, "LobbyClient", FakeLobby)
    monkeypatch.setattr(loadrun, "TableSession", FakeSession)
    monkeypatch.setattr(loadrun, "play_seat", play_seat)
    return played


def test_each_bot_signs_in_with_its_own_token_and_every_seat_it_waited_for_is_recorded(stand_ins) -> None:
    summary = asyncio.run(loadrun.run_tables("nowhere:1", "bigtwo", 2, seats_per_table=2,
                                             player_token=lambda player: f"token-of-{player}"))

    assert summary.ok and summary.bots_finished == 4
    assert FakeLobby.signed_in == {f"random-bot-{i}": f"token-of-random-bot-{i}" for i in range(4)}
    # Bot 0 queued twice (its first table was cancelled): five seats waited for.
    assert summary.rejoins == 1 and len(summary.join_waits_s) == len(summary.seated_at_s) == 5
    assert all(wait >= QUEUE_WAIT_S * 0.9 for wait in summary.join_waits_s)
    assert max(summary.seated_at_s) >= 2 * QUEUE_WAIT_S * 0.9  # the second seat came after the first
    figures = summary.to_json_dict()
    assert figures["join_wait_p50_ms"] >= QUEUE_WAIT_S * 900 and figures["join_wait_p99_ms"] >= figures[
        "join_wait_p50_ms"]
    assert "JoinQueue wait p50" in loadrun.format_summary(summary)


def test_without_a_token_function_the_bots_call_as_their_address(stand_ins) -> None:
    asyncio.run(loadrun.run_tables("nowhere:1", "bigtwo", 1, seats_per_table=2))

    assert set(FakeLobby.signed_in.values()) == {""}


def test_runs_given_one_play_stats_add_their_moves_up(stand_ins) -> None:
    stats = PlayStats()

    async def two_runs() -> tuple[loadrun.Summary, loadrun.Summary]:
        first = await loadrun.run_tables("nowhere:1", "bigtwo", 1, seats_per_table=2, stats=stats)
        second = await loadrun.run_tables("nowhere:1", "bigtwo", 1, seats_per_table=2, stats=stats, seed=10)
        return first, second

    first, second = asyncio.run(two_runs())

    assert first.moves == 2 and second.moves == stats.moves == 4


def test_each_bot_thinks_before_its_moves_when_asked_to(stand_ins) -> None:
    thought: list[str] = []

    async def think(session: Any) -> None:
        thought.append(session.assignment.display_names[0])

    asyncio.run(loadrun.run_tables("nowhere:1", "bigtwo", 1, seats_per_table=2, before_move=think))

    # Bot 0 thought at its cancelled table too.
    assert sorted(thought) == ["random-bot-0", "random-bot-0", "random-bot-1"]
