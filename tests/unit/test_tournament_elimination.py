"""Single elimination: the standard seeding, byes to the top seeds, the
loser out, draws broken by game score then seed, and a champion."""

from __future__ import annotations

from tablehost.actors.tournament import GameRecord, Tournament, TournamentSpec
from tablehost.actors.tournament.elimination import first_round, rounds_needed, seeding_order, table_winner


def seeded(players: int) -> Tournament:
    """Players whose registered ratings make p01 the top seed, p02 the second..."""
    tournament = Tournament(TournamentSpec("ko", "duel", "elimination", 2, 0, 5))
    for index in range(players, 0, -1):  # registration order is not seed order
        tournament.register(f"p{index:02d}", (50.0 - index, 2.0))
    return tournament


def win(table_id: str, round_number: int, players: tuple[str, ...], winner: str) -> GameRecord:
    points = tuple(1.0 if player == winner else 0.0 for player in players)
    return GameRecord(table_id, round_number, players, points, tuple(0 if p == winner else 1 for p in players),
                      points, (False,) * len(players))


def test_the_bracket_keeps_the_top_seeds_apart_until_the_final() -> None:
    assert seeding_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    order = seeding_order(16)
    assert order.index(1) < 8 <= order.index(2)  # opposite halves
    assert {order.index(1) // 4, order.index(2) // 4, order.index(3) // 4, order.index(4) // 4} == {0, 1, 2, 3}


def test_a_field_short_of_a_power_of_two_gives_byes_to_the_top_seeds() -> None:
    tournament = seeded(11)
    event = tournament.start_round()
    assert event["seeds"] == [f"p{index:02d}" for index in range(1, 12)]
    assert sorted(event["byes"]) == ["p01", "p02", "p03", "p04", "p05"]
    assert sorted(tuple(table["players"]) for table in event["tables"]) == [
        ("p06", "p11"), ("p07", "p10"), ("p08", "p09")]  # the higher seed sits first
    assert rounds_needed(11) == event["planned_rounds"] == 4


def test_the_favourites_meet_in_the_final_and_the_winner_finishes_it() -> None:
    tournament = seeded(8)
    while (event := tournament.start_round())["type"] != "finished":
        for table in tournament.pending_tables():
            favourite = min(table.players)
            tournament.record(win(table.table_id, table.round, table.players, favourite))
    final = tournament.rounds[-1].tables
    assert [table.players for table in final] == [("p01", "p02")]
    assert event["reason"] == "p01 won the tournament"
    assert [s.player for s in tournament.standings()][:2] == ["p01", "p02"]


def test_the_loser_of_each_table_is_out() -> None:
    tournament = seeded(4)
    tournament.start_round()
    for table in tournament.pending_tables():
        underdog = max(table.players)
        tournament.record(win(table.table_id, 1, table.players, underdog))
    tournament.start_round()
    (final,) = tournament.pending_tables()
    assert set(final.players) == {"p03", "p04"}


def test_a_drawn_table_goes_to_the_higher_game_score_then_to_the_higher_seed() -> None:
    seeds = {"a": 1, "b": 2}
    by_score = GameRecord("t", 1, ("a", "b"), (0.5, 0.5), (0, 0), (3.0, 7.0), (False, False))
    assert table_winner(by_score, seeds) == "b"
    level = GameRecord("t", 1, ("b", "a"), (0.5, 0.5), (0, 0), (5.0, 5.0), (False, False))
    assert table_winner(level, seeds) == "a"
    no_show = GameRecord("t", 1, ("a", "b"), (0.0, 1.0), (1, 0), (0.0, 0.0), (True, False))
    assert table_winner(no_show, seeds) == "b"
    nobody = GameRecord("t", 1, ("a", "b"), (0.0, 0.0), (1, 1), (0.0, 0.0), (True, True))
    assert table_winner(nobody, seeds) is None


def test_a_withdrawn_winner_gives_the_next_opponent_a_bye() -> None:
    tournament = seeded(4)
    tournament.start_round()
    for table in tournament.pending_tables():
        tournament.record(win(table.table_id, 1, table.players, min(table.players)))
    tournament.withdraw("p01")
    event = tournament.start_round()
    assert event["type"] == "finished" and event["reason"] == "p02 won the tournament"


def test_the_first_round_slots_are_a_power_of_two() -> None:
    assert first_round(["a", "b", "c"]) == ["a", None, "b", "c"]
    assert first_round(["a", "b"]) == ["a", "b"]
