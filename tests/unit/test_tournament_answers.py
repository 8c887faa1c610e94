"""What a tournament answers (actors/tournament/answers.py) reaches the wire
field for field: a status with its page of standings, a page of results with
the byes, and a watcher's table and status from an update."""

from __future__ import annotations

from tablehost.actors.tournament.answers import CurrentRound, Update
from tablehost.actors.tournament.kept import KeptTournament, StandingsPages
from tablehost.actors.tournament_tables import PlacedTable
from tablehost.host.tournament_feed import FannedUpdate, TournamentFeed, Watcher
from tablehost.host.tournament_wire import results_to_proto, status_to_proto

from test_tournament_paging import logged_tournament


def test_a_status_and_its_standings_page_are_sent_as_recorded() -> None:
    kept = KeptTournament.replay(logged_tournament(players=7, rounds=2))
    status = kept.status(StandingsPages().page(kept.core, None, 0, 3, now=0.0))
    sent = status_to_proto(status)
    assert (sent.tournament_id, sent.state, sent.round, sent.games_played, sent.organiser) == (
        status.tournament_id, "running", 2, 6, "Acme")
    assert [s.player for s in sent.standings] == [s.player for s in status.standings.rows]
    assert list(sent.standings[0].tiebreaks) == list(status.standings.rows[0].tiebreaks)
    assert sent.standings_total == 7 and sent.next_page_token == status.standings.next_page_token != ""
    brief = status_to_proto(status, standings=False)
    assert not brief.standings and brief.next_page_token == "" and brief.standings_total == 7


def test_a_results_page_is_sent_with_places_and_the_byes() -> None:
    kept = KeptTournament.replay(logged_tournament(players=7, rounds=2))
    page = kept.results(0, 100)
    sent = results_to_proto(kept.tournament_id, page)
    assert [r.table_id for r in sent.results] == [r.table_id for r in page.results]
    assert list(sent.results[0].places) == list(page.results[0].ranks) and sent.results_total == 6
    assert list(zip(sent.byes_round, sent.byes_player)) == list(page.byes) and sent.next_page_token == ""


def test_a_watcher_is_sent_its_own_table_and_seat_token_then_the_status() -> None:
    kept = KeptTournament.replay(logged_tournament(players=4, rounds=1))
    table = kept.core.current_round.tables[0]
    placed = PlacedTable(table.table_id, "127.0.0.1:1", "duel", table.players, "c0ffee", ("token-0", "token-1"))
    current = CurrentRound(1, (), {t.table_id: t.players for t in kept.core.current_round.tables},
                           {table.table_id: placed})
    update = Update(3, kept.status(StandingsPages().first(kept.core)), current)
    watcher = Watcher(table.players[1])
    TournamentFeed._deliver(watcher, FannedUpdate(update))
    seated, status = watcher.queue.get_nowait(), watcher.queue.get_nowait()
    assignment = seated.round_started.table
    assert (assignment.table_id, assignment.seat, assignment.seat_token) == (table.table_id, 1, "token-1")
    assert status.status.round == 1 and not status.status.standings  # a running tournament's: without standings
