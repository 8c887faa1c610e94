"""Round robin by Berger tables: everyone meets everyone exactly once, odd
fields give each player one bye, seats alternate and stay balanced."""

from __future__ import annotations

from collections import Counter

import pytest

from tablehost.actors.tournament import GameRecord, Tournament, TournamentSpec
from tablehost.actors.tournament.round_robin import berger_round, schedule_rounds


def play_through(players: int) -> Tournament:
    tournament = Tournament(TournamentSpec("rr", "duel", "round_robin", 2, 0, 3))
    for index in range(players):
        tournament.register(f"p{index:02d}")
    while tournament.start_round()["type"] != "finished":
        for table in tournament.pending_tables():
            tournament.record(GameRecord(table.table_id, table.round, table.players, (1.0, 0.0), (0, 1),
                                         (1.0, 0.0), (False, False)))
    return tournament


@pytest.mark.parametrize("players", range(2, 13))
def test_every_pair_meets_exactly_once_and_odd_fields_give_each_player_one_bye(players: int) -> None:
    tournament = play_through(players)
    assert tournament.rounds_played == schedule_rounds(players) == (players - 1 if players % 2 == 0 else players)
    meetings = Counter(frozenset(table.players) for played in tournament.rounds for table in played.tables)
    assert len(meetings) == players * (players - 1) // 2 and set(meetings.values()) == {1}
    byes = Counter(player for played in tournament.rounds for player in played.byes)
    assert byes == (Counter(tournament.players()) if players % 2 else Counter())
    assert tournament.finish_reason == f"all {schedule_rounds(players)} planned rounds were played"


@pytest.mark.parametrize("players", range(2, 13))
def test_each_player_sits_first_in_half_their_games_give_or_take_one(players: int) -> None:
    tournament = play_through(players)
    first = Counter(table.players[0] for played in tournament.rounds for table in played.tables)
    second = Counter(table.players[1] for played in tournament.rounds for table in played.tables)
    assert all(abs(first[player] - second[player]) <= 1 for player in tournament.players())


def test_seats_alternate_from_round_to_round_between_the_fixed_games() -> None:
    order = [f"p{index}" for index in range(10)]
    seat_of_p1 = []
    for number in range(1, 10):
        tables, _ = berger_round(order, number)
        seat_of_p1.append(next(table.index("p1") for table in tables if "p1" in table))
    changes = sum(1 for a, b in zip(seat_of_p1, seat_of_p1[1:]) if a != b)
    assert changes >= len(seat_of_p1) - 2  # one repeat at most, around the game against the fixed position


def test_a_withdrawn_players_scheduled_opponent_gets_a_bye() -> None:
    tournament = Tournament(TournamentSpec("rr", "duel", "round_robin", 2, 0, 3))
    for index in range(4):
        tournament.register(f"p{index}")
    tournament.start_round()
    for table in tournament.pending_tables():
        tournament.record(GameRecord(table.table_id, 1, table.players, (0.5, 0.5), (0, 0), (0.0, 0.0),
                                     (False, False)))
    tournament.withdraw("p2")
    tournament.start_round()
    current = tournament.current_round
    assert current is not None and len(current.tables) == 1
    (opponent,) = current.byes
    assert "p2" not in current.tables[0].players and opponent not in current.tables[0].players
    assert next(s for s in tournament.standings() if s.player == opponent).points == 1.5


def test_fixed_rounds_shorter_than_the_schedule_stop_early() -> None:
    tournament = Tournament(TournamentSpec("rr", "duel", "round_robin", 2, 2, 3))
    for index in range(6):
        tournament.register(f"p{index}")
    assert tournament.start_round()["planned_rounds"] == 2
