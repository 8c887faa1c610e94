"""Ratings by openskill's Plackett-Luce model: finishing order moves mu,
every game shrinks sigma, a no-show ranks last, and a round's ratings do
not depend on the order its results arrive in."""

from __future__ import annotations

import pytest

from tablehost.actors.tournament import GameRecord, Tournament, TournamentSpec
from tablehost.actors.tournament.ratings import Ratings


def record(players: tuple[str, ...], ranks: tuple[int, ...], forfeited: tuple[bool, ...] | None = None) -> GameRecord:
    forfeited = forfeited or (False,) * len(players)
    return GameRecord("t", 1, players, tuple(0.0 for _ in players), ranks, tuple(0.0 for _ in players), forfeited)


def test_the_winner_gains_the_loser_drops_and_both_grow_surer() -> None:
    model = Ratings()
    start = {"a": model.default, "b": model.default}
    rated = model.rate(start, record(("a", "b"), (1, 0)))
    assert rated["b"][0] > 25.0 > rated["a"][0]
    assert rated["a"][1] < model.default[1] and rated["b"][1] < model.default[1]


def test_a_draw_between_equals_leaves_them_equal() -> None:
    model = Ratings()
    rated = model.rate({"a": model.default, "b": model.default}, record(("a", "b"), (0, 0)))
    assert rated["a"] == rated["b"] and rated["a"][0] == pytest.approx(25.0)


def test_a_no_show_ranks_below_everyone_who_played() -> None:
    model = Ratings()
    start = {p: model.default for p in "abcd"}
    # d claims first place but did not show: it is rated last
    rated = model.rate(start, record(("a", "b", "c", "d"), (1, 2, 3, 0), (False, False, False, True)))
    assert rated["d"][0] < rated["c"][0] < rated["b"][0] < rated["a"][0]


def test_a_table_nobody_showed_at_rates_no_one() -> None:
    model = Ratings()
    assert model.rate({"a": model.default, "b": model.default}, record(("a", "b"), (1, 1), (True, True))) == {}


def test_the_ordinal_is_mu_less_three_sigma() -> None:
    assert Ratings().ordinal((30.0, 2.0)) == pytest.approx(24.0)


def test_a_rounds_ratings_do_not_depend_on_the_order_results_arrive_in() -> None:
    def rated(order: slice) -> dict[str, tuple[float, float]]:
        tournament = Tournament(TournamentSpec("r", "duel", "swiss", 2, 1, 1))
        for index in range(8):
            tournament.register(f"p{index}", (20.0 + index, 3.0 + index / 10))
        tournament.start_round()
        for table in tournament.pending_tables()[order]:
            tournament.record(GameRecord(table.table_id, 1, table.players, (1.0, 0.0), (0, 1), (1.0, 0.0),
                                         (False, False)))
        return tournament.ratings()

    assert rated(slice(None)) == rated(slice(None, None, -1))
