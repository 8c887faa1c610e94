"""A tournament as its log keeps it (actors/tournament/kept.py): the fold an
actor starts from and a front door answers from once the actor is gone,
giving the same status; standings pages that hold every player exactly once
even while results come in between pages; results pages in the order
recorded, with the byes on the last page; a tournament that never started
ends as expired."""

from __future__ import annotations

import random
from typing import Any

import msgpack
import pytest

from tablehost.actors.tournament import Standing, Tournament, TournamentError, TournamentSpec
from tablehost.actors.tournament.kept import (KeptTournament, PageExpired, StandingsPages, parse_results_token,
                                              parse_standings_token)

SPEC = TournamentSpec("t-00000000000000aa", "duel", "swiss", 2, 4, 7)


def created(**more: Any) -> dict[str, Any]:
    return {"kind": "created", "spec": SPEC.to_dict(), "name": "cup", "options": {}, "max_players": 1000,
            "no_show_after_s": 60, "organiser": {"id": "0123456789abcdef", "name": "Acme"},
            "start_by_ms": 1_800_000_000_000, **more}


def logged_tournament(players: int, rounds: int, seed: int = 3) -> list[dict[str, Any]]:
    """The log an actor would have written: registrations, the start, rounds and results."""
    core = Tournament(SPEC)
    events = [created()]
    for index in range(players):
        events.append({"kind": "core", "event": core.register(f"p{index:03d}"), "join": {"deck": "mage-basic"}})
    events.append({"kind": "start"})
    rng = random.Random(seed)
    for _ in range(rounds):
        events.append({"kind": "core", "event": core.start_round()})
        for table in core.pending_tables():
            events.append({"kind": "core", "event": core.record(_result(table, rng))})
    # As the store hands them back.
    return [msgpack.unpackb(msgpack.packb(event), raw=False) for event in events]


def _result(table: Any, rng: random.Random) -> Any:
    from tablehost.actors.tournament import GameRecord

    first = rng.randrange(2)
    points = (1.0, 0.0) if first == 0 else (0.0, 1.0)
    return GameRecord(table.table_id, table.round, table.players, points, (first, 1 - first), (1.0, 0.0),
                      (False, False))


def pages(kept: KeptTournament, keeper: StandingsPages, size: int, now: float = 0.0,
          between: Any = None) -> list[tuple[Standing, ...]]:
    """Every page of the standings, calling `between` after each page."""
    version, offset, got = None, 0, []
    while True:
        page = keeper.page(kept.core, version, offset, size, now)
        got.append(page.rows)
        if not page.next_page_token:
            return got
        version, offset = parse_standings_token(page.next_page_token)
        if between is not None:
            between()


def test_the_fold_of_the_log_keeps_settings_joins_byes_and_the_state() -> None:
    kept = KeptTournament.replay(logged_tournament(players=7, rounds=2))
    assert (kept.name, kept.organiser, kept.max_players, kept.state) == ("cup", "Acme", 1000, "running")
    assert kept.joins["p006"] == {"deck": "mage-basic"} and len(kept.joins) == 7
    assert [number for number, _ in kept.byes] == [1, 2]  # 7 players: one bye a round
    assert kept.events == len(logged_tournament(players=7, rounds=2))
    status = kept.status(StandingsPages().first(kept.core))
    assert status.start_by_ms == 0  # started: it no longer expires
    assert status.games_played == 6 and status.standings.total == 7


def test_a_log_that_does_not_begin_with_its_created_event_is_refused() -> None:
    with pytest.raises(ValueError, match="created event"):
        KeptTournament.replay([{"kind": "start"}])


def test_standings_pages_hold_every_player_once_in_place_order() -> None:
    kept = KeptTournament.replay(logged_tournament(players=250, rounds=2))
    got = pages(kept, StandingsPages(), 100)
    assert [len(page) for page in got] == [100, 100, 50]
    rows = [row for page in got for row in page]
    assert sorted(row.player for row in rows) == [f"p{index:03d}" for index in range(250)]
    assert [row.place for row in rows] == sorted(row.place for row in rows)
    assert rows == list(StandingsPages().first(kept.core, 1000).rows)


def test_pages_cut_while_results_come_in_are_of_the_standings_of_the_first_page() -> None:
    events = logged_tournament(players=120, rounds=1)
    kept = KeptTournament.replay(events)
    kept.core.start_round()
    pending = iter(kept.core.pending_tables())
    rng = random.Random(9)
    before = StandingsPages().first(kept.core, 1000).rows

    def a_result_arrives() -> None:
        kept.core.record(_result(next(pending), rng))

    keeper = StandingsPages()
    got = tuple(row for page in pages(kept, keeper, 25, between=a_result_arrives) for row in page)
    assert got == before  # each player once, as the standings stood at the first page
    assert keeper.first(kept.core, 1000).rows != before  # while the standings moved on


def test_a_page_of_standings_no_longer_kept_is_refused_so_the_reader_starts_again() -> None:
    kept = KeptTournament.replay(logged_tournament(players=30, rounds=1))
    keeper = StandingsPages(kept=2, kept_for_s=60.0)
    first = keeper.page(kept.core, None, 0, 10, now=0.0)
    version, offset = parse_standings_token(first.next_page_token)
    kept.core.register("late-1")
    assert keeper.page(kept.core, version, offset, 10, now=30.0).rows  # kept: used within the minute
    with pytest.raises(PageExpired, match="page again from the start"):
        keeper.page(kept.core, version, offset, 10, now=200.0)
    # At most `kept` earlier standings are kept: the oldest goes first.
    tokens = []
    for index in range(3):
        tokens.append(keeper.page(kept.core, None, 0, 10, now=300.0).next_page_token)
        kept.core.register(f"later-{index}")
    with pytest.raises(PageExpired):
        keeper.page(kept.core, *parse_standings_token(tokens[0]), 10, now=300.0)
    assert keeper.page(kept.core, *parse_standings_token(tokens[2]), 10, now=300.0).rows


def test_results_pages_follow_the_order_recorded_with_the_byes_on_the_last_page() -> None:
    kept = KeptTournament.replay(logged_tournament(players=9, rounds=3))
    every = kept.results(0, 1000)
    assert every.total == 12 and len(every.byes) == 3 and every.next_page_token == ""
    got, offset, byes = (), 0, ()
    while True:
        page = kept.results(offset, 5)
        got += page.results
        if not page.next_page_token:
            byes = page.byes
            break
        assert page.byes == ()
        offset = parse_results_token(page.next_page_token)
    assert got == every.results and byes == every.byes


@pytest.mark.parametrize("token", ["", "s1", "s1.", "s-1.0", "sx.1", "r1", "s1.2.3", "s" + "1" * 13 + ".0"])
def test_a_standings_page_token_not_given_by_the_host_is_refused(token: str) -> None:
    with pytest.raises(ValueError, match="not a page token"):
        parse_standings_token(token)
    with pytest.raises(ValueError, match="not a page token"):
        parse_results_token(token.replace("s", "r", 1) + "x")


def test_a_tournament_ends_as_expired_only_before_its_first_round() -> None:
    core = Tournament(SPEC)
    core.register("a")
    event = core.end("expired")
    assert event == {"type": "finished", "reason": "expired"} and core.finished
    with pytest.raises(TournamentError, match="has finished: expired"):
        core.register("b")
    with pytest.raises(TournamentError, match="has finished"):
        core.end("expired")
    assert Tournament.replay(SPEC, [{"type": "registered", "player": "a", "rating": None}, event]).finish_reason == (
        "expired")
    running = Tournament(SPEC)
    for player in ("a", "b"):
        running.register(player)
    running.start_round()
    with pytest.raises(TournamentError, match="being played"):
        running.end("expired")


def test_the_core_version_counts_the_events_applied_so_a_replay_reaches_the_same() -> None:
    events = logged_tournament(players=5, rounds=1)
    kept = KeptTournament.replay(events)
    again = KeptTournament.replay(events)
    assert kept.core.version == again.core.version == sum(1 for event in events if event["kind"] == "core")
