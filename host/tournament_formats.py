"""Which tournament format a game's table takes, as the CLI chooses it:
Swiss for a 2-seat table (Duel), table rounds seated by standings for a
larger one (Big Two's 4 seats, Kingdoms' table), unless --format says."""

from __future__ import annotations

import argparse
import os
from typing import Any

FORMAT_CHOICES = ("swiss", "round_robin", "elimination", "table_rounds")
# What a 2-seat game's tournament has always defaulted to.
TWO_SEAT_FORMAT = "swiss"
LARGER_TABLE_FORMAT = "table_rounds"


def format_for_table(seats: int) -> str:
    """The format that fits a table of `seats`: Swiss pairs 2-seat games;
    larger tables play table rounds, seated by standings."""
    return TWO_SEAT_FORMAT if seats == 2 else LARGER_TABLE_FORMAT


def game_rules(args: argparse.Namespace, command: str) -> Any:
    """The rules of `--game` as this tool knows them: the built-in games and
    those of --game-module (and TABLEHOST_GAME_MODULES), as `serve` loads
    them. Raises UnknownGame for a game it does not know."""
    from tablehost.games.registry import GameCatalog
    from tablehost.host.config_flags import game_module_paths

    try:
        catalog = GameCatalog.load(game_module_paths(list(getattr(args, "game_module", None) or [])), (os.getcwd(),))
    except (ImportError, AttributeError, ValueError) as error:
        raise SystemExit(f"tablehost {command}: cannot load the games: {error}") from None
    return catalog.rules(args.game)


def chosen_format(args: argparse.Namespace, rules: Any, command: str) -> str:
    """--format, or the one that fits the game's table (`--seats`, else its
    usual size). Without the game's rules (a game only the host knows) it
    is Swiss, as it always was; the host refuses it for a larger table and
    says why."""
    if args.tournament_format:
        return str(args.tournament_format)
    if rules is None:
        return TWO_SEAT_FORMAT
    try:
        return format_for_table(rules.table_seats(args.seats))
    except ValueError as error:
        raise SystemExit(f"tablehost {command}: {error}") from None
