"""Standings: points, then Buchholz, Sonneborn-Berger, score difference and
rating (table rounds: the opponents' points, score difference, rating); a
bye counts as a game against a virtual opponent with the player's own
points; places are shared only on a full tie."""

from __future__ import annotations

from tablehost.actors.tournament.ledger import Ledger
from tablehost.actors.tournament.records import GameRecord, Table
from tablehost.actors.tournament.standings import TABLE_TIEBREAKS, TWO_SEAT_TIEBREAKS, compute, tiebreak_names


def game(ledger: Ledger, round_number: int, players: tuple[str, ...], ranks: tuple[int, ...],
         scores: tuple[float, ...]) -> None:
    points = tuple(sum(1 for o in ranks if o > r) + 0.5 * (ranks.count(r) - 1) for r in ranks)
    table = Table(f"t.r{round_number}.{players[0]}", round_number, players)
    ledger.seat(table)
    ledger.result(GameRecord(table.table_id, round_number, players, points, ranks, scores, (False,) * len(players)))


def two_rounds_of_five() -> Ledger:
    """Round 1: a beats b 10-4, c and d draw 5-5, e has a bye.
    Round 2: a and c draw 6-6, e beats b 3-1, d has a bye."""
    ledger = Ledger()
    game(ledger, 1, ("a", "b"), (0, 1), (10.0, 4.0))
    game(ledger, 1, ("c", "d"), (0, 0), (5.0, 5.0))
    ledger.bye("e", 1.0)
    game(ledger, 2, ("a", "c"), (0, 0), (6.0, 6.0))
    game(ledger, 2, ("e", "b"), (0, 1), (3.0, 1.0))
    ledger.bye("d", 1.0)
    return ledger


def test_two_seat_tiebreaks_count_byes_as_a_virtual_opponent_with_the_players_own_points() -> None:
    standings = compute("abcde", two_rounds_of_five(), lambda player: 0.0, set(), 2, 1.0)
    rows = {s.player: (s.points, s.tiebreaks) for s in standings}
    assert tiebreak_names(2) == TWO_SEAT_TIEBREAKS == ("buchholz", "sonneborn_berger", "score_difference", "rating")
    assert rows["a"] == (1.5, (1.0, 0.5, 6.0, 0.0))  # opponents b (0) and c (1); half of c's for the draw
    assert rows["b"] == (0.0, (3.5, 0.0, -8.0, 0.0))
    assert rows["c"] == (1.0, (3.0, 1.5, 0.0, 0.0))
    assert rows["d"] == (1.5, (2.5, 2.0, 0.0, 0.0))  # the bye: an opponent of d's own 1.5 points, beaten
    assert rows["e"] == (2.0, (2.0, 2.0, 2.0, 0.0))
    assert [(s.place, s.player) for s in standings] == [(1, "e"), (2, "d"), (3, "a"), (4, "c"), (5, "b")]
    assert [(s.games, s.wins, s.byes) for s in standings] == [(1, 1, 1), (1, 0, 1), (2, 1, 0), (2, 0, 0),
                                                             (2, 0, 0)]


def test_places_are_shared_only_on_a_full_tie_and_the_player_id_orders_the_rest() -> None:
    ledger = Ledger()
    ratings = {"zed": 1.0, "amy": 1.0, "bob": 1.0, "cat": 2.0}
    standings = compute(["zed", "amy", "bob", "cat"], ledger, ratings.__getitem__, {"bob"}, 2, 1.0)
    assert [(s.place, s.player, s.withdrawn) for s in standings] == [
        (1, "cat", False), (2, "amy", False), (2, "bob", True), (2, "zed", False)]


def test_table_round_tiebreaks_are_the_opponents_points_and_the_score_against_the_tables_mean() -> None:
    ledger = Ledger()
    game(ledger, 1, ("a", "b", "c"), (0, 1, 2), (9.0, 6.0, 3.0))
    ledger.bye("d", 1.0)
    standings = {s.player: s for s in compute("abcd", ledger, lambda player: 0.5, set(), 3, 1.0)}
    assert tiebreak_names(3) == TABLE_TIEBREAKS == ("opponents_points", "score_difference", "rating")
    assert standings["a"].points == 2.0 and standings["a"].tiebreaks == (1.0, 4.5, 0.5)
    assert standings["c"].tiebreaks == (3.0, -4.5, 0.5)
    assert standings["d"].tiebreaks == (2.0, 0.0, 0.5)  # two empty seats, each an opponent with d's point
