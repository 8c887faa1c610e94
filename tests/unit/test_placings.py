"""How a finished game places its seats for a tournament (GameRules.placings)."""

from __future__ import annotations

import pytest

from tablehost.games.bigtwo.game import RULES as BIGTWO
from tablehost.games.duel.game import RULES as DUEL
from tablehost.games.engine.rules import Placing
from tablehost.games.kingdoms.game import RULES as KINGDOMS


def test_a_two_seat_game_scores_a_win_a_draw_and_a_loss_as_one_half_and_nothing() -> None:
    assert DUEL.placings({"winner": 1, "draw": False, "scores": [-1, 1]}) == [Placing(1, 0.0, -1.0), Placing(0, 1.0, 1.0)]
    assert DUEL.placings({"winner": -1, "draw": True, "scores": [0, 0]}) == [Placing(0, 0.5, 0.0), Placing(0, 0.5, 0.0)]


def test_a_big_two_table_is_placed_by_its_scores_with_ties_sharing_a_place() -> None:
    placings = BIGTWO.placings({"winner": 2, "cards_left": [3, 3, 0, 10], "scores": [-3, -3, 26, -20]})
    assert [p.place for p in placings] == [1, 1, 0, 3]
    assert [p.points for p in placings] == [1.5, 1.5, 3.0, 0.0]
    assert sum(p.points for p in placings) == 6  # 4 seats: 3 + 2 + 1 + 0 shared out


def test_kingdoms_winners_share_first_place() -> None:
    placings = KINGDOMS.placings({"winner": 0, "winners": [0, 3], "scores": [1, -1, -1, 1, -1]})
    assert [p.place for p in placings] == [0, 2, 2, 0, 2]


def test_a_result_without_scores_is_refused() -> None:
    with pytest.raises(ValueError, match="no scores"):
        DUEL.placings({"winner": 0})
