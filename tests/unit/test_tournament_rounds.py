"""A tournament's rounds played without Ray: the rounds runner pairs each
round, opens its tables through a stand-in for the lobby, records what the
lobby says of each table, and keeps every change in the tournament's log,
whose replay is the same tournament; what each way a table ends records."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tablehost.actors.store.event_log import LocalEventLog
from tablehost.actors.table_results import TableState
from tablehost.actors.tournament import table_outcomes
from tablehost.actors.tournament.log_events import CoreEvent, CreatedEvent, StartEvent
from tablehost.actors.tournament.kept import KeptTournament
from tablehost.actors.tournament.records import Table, TournamentSpec
from tablehost.actors.tournament.rounds import RoundRunner
from tablehost.actors.tournament.running import RunningTournament
from tablehost.actors.tournament_tables import PlacedTable, PlacingRefused, TournamentTable

TABLE = Table("t-0123456789abcdef.r1.t0", 1, ("ann", "bob", "cat"))


def _created(rounds: int = 2) -> CreatedEvent:
    spec = TournamentSpec("t-0123456789abcdef", "duel", "swiss", seats=2, rounds=rounds, seed=1, deal_key="00" * 32)
    return CreatedEvent(spec, "t", max_players=8, no_show_after_s=60)


class FakeLobby:
    """Opens every table (but refuses each table once first), and says the
    first seat won each once asked for results."""

    def __init__(self) -> None:
        self.rounds: list[int] = []
        self.asked: list[str] = []

    def round_started(self, number: int, deadline_s: float) -> None:
        self.rounds.append(number)

    def round_ended(self) -> None:
        self.rounds.append(0)

    async def place_tables(self, tables: list[TournamentTable]) -> list[Any]:
        answers: list[Any] = []
        for table in tables:
            if table.table_id not in self.asked:
                answers.append(PlacingRefused(table.table_id, "no free slot"))
            else:
                answers.append(PlacedTable(table.table_id, "127.0.0.1:1", "duel",
                                           tuple(name for name, _ in table.players), "c", ("s0", "s1")))
            self.asked.append(table.table_id)
        return answers

    async def table_results(self, table_ids: list[str], timeout_s: float) -> dict[str, TableState]:
        return {table_id: TableState("adjudicated", places=(0, 1)) for table_id in table_ids}


def test_a_tournament_is_played_to_its_end_and_its_log_replays_it(tmp_path: Path) -> None:
    event_log = LocalEventLog(str(tmp_path))
    lobby = FakeLobby()

    async def play() -> RunningTournament:
        running = RunningTournament(_created(), event_log)
        for player in ("ann", "bob", "cat", "dan"):
            await running.persist(CoreEvent(running.core.register(player)))
        running.kept.started = True
        await running.persist(StartEvent())
        await RoundRunner(running, rules=None, lobby=lobby).run()  # type: ignore[arg-type]
        return running

    running = asyncio.run(play())
    assert running.core.finished and running.core.finish_reason == "all 2 planned rounds were played"
    assert [record.points for record in running.core.history()] == [(1.0, 0.0)] * 4
    assert lobby.rounds == [1, 0, 2, 0]
    replayed = KeptTournament.replay(event_log.read("t-0123456789abcdef"))
    assert replayed.core.standings() == running.core.standings()
    assert replayed.events == running.kept.events


def test_a_restarted_actor_finds_its_log_and_writes_no_second_created_event(tmp_path: Path) -> None:
    event_log = LocalEventLog(str(tmp_path))

    async def register() -> None:
        running = RunningTournament(_created(), event_log)
        await running.persist(CoreEvent(running.core.register("ann")))

    asyncio.run(register())
    again = RunningTournament(_created(rounds=5), event_log)
    assert again.core.players() == ["ann"] and again.core.spec.rounds == 2
    assert len(event_log.read("t-0123456789abcdef")) == 2


def test_a_seat_that_never_showed_up_forfeits_a_played_game() -> None:
    class Placed:
        def __init__(self, place: int, points: float) -> None:
            self.place, self.points, self.score = place, points, 10.0 * points

    record = table_outcomes.played(TABLE, [Placed(0, 2.0), Placed(1, 1.0), Placed(2, 0.0)], no_show=[0])
    assert record.points == (0.0, 1.0, 0.0) and record.ranks == (2, 1, 2)
    assert record.forfeited == (True, False, False)


def test_players_who_came_share_first_place_at_a_table_its_no_shows_ended() -> None:
    record = table_outcomes.ended_by_no_shows(TABLE, [2])
    assert record.points == (1.5, 1.5, 0.0) and record.ranks == (0, 0, 2)


def test_adjudicated_places_score_the_seats_placed_below_plus_half_those_tied() -> None:
    record = table_outcomes.adjudicated(TABLE, [1, 0, 1])
    assert record.points == (0.5, 2.0, 0.5) and record.ranks == (1, 0, 1)
    assert table_outcomes.forfeited(TABLE).points == (0.0, 0.0, 0.0)
