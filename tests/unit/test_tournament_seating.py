"""Table rounds: table sizes for any field, seats balanced per player,
repeat meetings avoided, byes to the lowest-ranked."""

from __future__ import annotations

import itertools
from collections import Counter
from random import Random

import pytest

from tablehost.actors.tournament import GameRecord, Tournament, TournamentSpec
from tablehost.actors.tournament.table_rounds import choose_byes, penalty, seat_round, table_sizes


@pytest.mark.parametrize(("players", "seats", "min_seats", "sizes", "sitting_out"), [
    (16, 4, 3, [4, 4, 4, 4], 0),
    (13, 4, 3, [4, 3, 3, 3], 0),
    (17, 4, 3, [4, 4, 3, 3, 3], 0),
    (13, 4, 0, [4, 4, 4], 1),
    (5, 4, 3, [4], 1),  # two short tables would need 6
    (2, 4, 3, [], 2),
    (3, 4, 3, [3], 0),
    (17, 8, 3, [6, 6, 5], 0),
    (10, 5, 5, [5, 5], 0),
])
def test_table_sizes_are_as_equal_as_the_game_allows_and_the_rest_sit_out(
        players: int, seats: int, min_seats: int, sizes: list[int], sitting_out: int) -> None:
    assert table_sizes(players, seats, min_seats) == (sizes, sitting_out)


def test_penalty_counts_each_earlier_meeting_of_a_pair_at_the_table() -> None:
    met = Counter({frozenset(("a", "b")): 2, frozenset(("c", "d")): 1, frozenset(("a", "z")): 5})
    assert penalty(("a", "b", "c", "d"), met) == 3


def test_seating_splits_the_players_who_met_last_round() -> None:
    players = [f"p{i:02d}" for i in range(16)]
    last_round = [players[i:i + 4] for i in range(0, 16, 4)]
    met = Counter(frozenset(pair) for table in last_round for pair in itertools.combinations(table, 2))
    sat = {player: [1 if position == i % 4 else 0 for position in range(4)] for i, player in enumerate(players)}
    tables = seat_round(players, [4, 4, 4, 4], lambda a, b: met[frozenset((a, b))], lambda p: sat[p], Random(1))
    assert sorted(p for table in tables for p in table) == players
    assert sum(penalty(table, met) for table in tables) == 0
    for table in tables:  # nobody sits where they sat last round
        assert all(sat[player][position] == 0 for position, player in enumerate(table))


def test_each_player_takes_the_position_they_sat_in_least() -> None:
    players = ["a", "b", "c", "d"]
    sat = {"a": [1, 1, 1, 0], "b": [0, 1, 1, 1], "c": [1, 0, 1, 1], "d": [1, 1, 0, 1]}
    (table,) = seat_round(players, [4], lambda a, b: 0, lambda p: sat[p], Random(2))
    assert table == ("b", "c", "d", "a")


def test_byes_go_to_the_lowest_ranked_with_the_fewest_byes() -> None:
    ranked = [f"p{i}" for i in range(9)]
    had = {"p8": 1}
    fresh = [0, 0, 0, 0]
    assert choose_byes(ranked, [4, 4], lambda p: had.get(p, 0), lambda p: fresh, 1) == ["p7"]


def test_a_tournament_seats_thirteen_at_short_tables_or_gives_a_bye() -> None:
    for min_seats, sizes, byes in ((3, [4, 3, 3, 3], 0), (0, [4, 4, 4], 1)):
        tournament = Tournament(TournamentSpec("tr", "bigtwo", "table_rounds", 4, 3, 1, min_seats=min_seats))
        for index in range(13):
            tournament.register(f"p{index:02d}")
        event = tournament.start_round()
        assert [len(table["players"]) for table in event["tables"]] == sizes and len(event["byes"]) == byes


def test_table_rounds_group_players_of_similar_points() -> None:
    tournament = Tournament(TournamentSpec("tr", "bigtwo", "table_rounds", 4, 2, 1))
    for index in range(16):
        tournament.register(f"p{index:02d}")
    tournament.start_round()
    for index, table in enumerate(tournament.pending_tables()):
        ranks = tuple((seat - index) % 4 for seat in range(4))  # table i's winner sat at position i
        tournament.record(GameRecord(table.table_id, 1, table.players, tuple(3.0 - r for r in ranks), ranks,
                                     tuple(4.0 - r for r in ranks), (False,) * 4))
    tournament.start_round()
    points = {s.player: s.points for s in tournament.standings()}
    # the four winners (who met nobody of their own score) sit together, and so on down
    assert all(len({points[p] for p in table.players}) == 1 for table in tournament.pending_tables())
