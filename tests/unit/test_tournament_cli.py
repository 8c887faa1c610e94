"""`tablehost tournament create` and `simulate` without --format take the
format that fits the game's table: Swiss for 2 seats (as they always did),
table rounds for more. Through a real host in tests/integration/test_cli.py."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from tablehost.games.registry import UnknownGame
from tablehost.host.tournament_formats import chosen_format, game_rules


def shape(game: str, seats: int = 0, tournament_format: str | None = None, **more: Any) -> argparse.Namespace:
    return argparse.Namespace(game=game, seats=seats, tournament_format=tournament_format, game_module=[], **more)


def fitting(game: str, seats: int = 0) -> str:
    args = shape(game, seats)
    return chosen_format(args, game_rules(args, "tournament create"), "tournament create")


def test_a_two_seat_game_keeps_swiss_and_larger_tables_play_table_rounds() -> None:
    assert fitting("duel") == "swiss"
    assert fitting("bigtwo") == "table_rounds"
    assert fitting("kingdoms") == "table_rounds"
    assert fitting("kingdoms", seats=2) == "swiss", "the table asked for decides, not the game"


def test_a_format_asked_for_is_kept() -> None:
    args = shape("bigtwo", tournament_format="swiss")
    assert chosen_format(args, game_rules(args, "tournament create"), "tournament create") == "swiss"


def test_a_game_only_the_host_knows_keeps_swiss_for_the_host_to_judge() -> None:
    with pytest.raises(UnknownGame):
        game_rules(shape("mahjong"), "tournament create")
    assert chosen_format(shape("mahjong"), None, "tournament create") == "swiss"


def test_a_table_the_game_cannot_seat_is_refused_with_the_reason() -> None:
    with pytest.raises(SystemExit, match="tournament create: bigtwo is played by 4 players, not 3"):
        fitting("bigtwo", seats=3)
