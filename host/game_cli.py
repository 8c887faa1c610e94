"""`tablehost bots`, `play` and `demo`: the commands that play a game
through a host, by bots or by a person in the terminal. Each looks its game
up as a host would (built-in, or added with --game-module) and seats the
game's own bots."""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablehost.host.cli_refusals import one_line
from tablehost.host.client_flags import add_tls_ca_argument, parse_join_data, tls_root_cert
from tablehost.host.config import HostConfig
from tablehost.host.config_flags import game_module_paths


@dataclass(frozen=True)
class _GameChoice:
    """A game the tools were asked for, as they need it: the seats of one
    table, the bots that can play it (the random bot and the game's own)
    and how it is shown to people."""

    seats: int
    bots: dict[str, Any]
    game_bots: tuple[str, ...]
    presenter: Any
    example_join: dict[str, Any]

    def join_data(self, command: str, text: str) -> dict[str, Any]:
        """`--join-data`, or the game's example when none is given."""
        return parse_join_data(command, text) if text else dict(self.example_join)

    @property
    def bot_rotation(self) -> list[str]:
        """The bots seated in turn as opponents: the game's own, then the
        random one (Big Two: greedy, random, greedy)."""
        return [*self.game_bots, *(["random"] if "random" not in self.game_bots else [])]


def _choose_game(command: str, game: str, seats: int, module_paths: tuple[str, ...]) -> _GameChoice:
    """Look `game` up among the built-in games and those `module_paths` add
    (as `tablehost serve --game-module` does), with a table of `seats` seats
    (0: the game's default). Exits with the reason and the choices when the
    game or the seat count is not one it can play."""
    from tablehost.clients.bots import bot_factories
    from tablehost.clients.presentation import presenter_for
    from tablehost.games.registry import GameCatalog, UnknownGame

    try:
        catalog = GameCatalog.load(module_paths, (os.getcwd(),))
    except (ImportError, AttributeError, ValueError) as error:
        raise SystemExit(f"tablehost {command}: cannot load the games: {error}") from None
    try:
        rules = catalog.rules(game)
    except UnknownGame:
        raise SystemExit(f"tablehost {command}: unknown game {game!r}; choose from {', '.join(catalog.names)} "
                         "or add one with --game-module MODULE:ATTR") from None
    try:
        table_seats = rules.table_seats(seats)
    except ValueError as error:
        raise SystemExit(f"tablehost {command}: {error}") from None
    game_bots = dict(rules.bots())
    return _GameChoice(table_seats, bot_factories(game_bots), tuple(game_bots), presenter_for(rules.presenter()),
                       rules.example_join())


def _record_dir(path: str | None) -> Path | None:
    """`--record-dir`: where each bot saves its game for `tablehost verify` (made if missing)."""
    if not path:
        return None
    folder = Path(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise SystemExit(f"tablehost bots: cannot use --record-dir {path}: {error}") from None
    return folder


async def run_bots_command(args: argparse.Namespace) -> int:
    from tablehost.clients.loadrun import format_summary, run_tables

    chosen = _choose_game("bots", args.game, args.seats, game_module_paths(args.game_module))
    if args.bot not in chosen.bots:
        choices = ", ".join(sorted(chosen.bots))
        raise SystemExit(f"tablehost bots: {args.game} has no bot {args.bot!r}; choose from {choices}")
    summary = await run_tables(
        args.target, args.game, args.tables, bot=args.bot, seed=args.seed, timeout_s=args.timeout,
        seats_per_table=chosen.seats, bots=chosen.bots, variant=args.variant,
        join_data=chosen.join_data("bots", args.join_data), tls_root_cert=tls_root_cert("bots", args.tls_ca),
        record_dir=_record_dir(args.record_dir),
    )
    if summary.bots_finished == 0 and summary.refusal is not None:
        code, details = summary.refusal
        print(f"tablehost bots: {code}: {one_line(details)}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(summary.to_json_dict()))
    else:
        print(format_summary(summary))
    return 0 if summary.ok else 1


async def run_play_command(args: argparse.Namespace) -> int:
    from tablehost.clients.sdk import SessionDisconnected
    from tablehost.clients.terminal import play_in_terminal

    chosen = _choose_game("play", args.game, args.seats, game_module_paths(args.game_module))
    rotation = chosen.bot_rotation
    opponents = [rotation[index % len(rotation)] for index in range(chosen.seats - 1)]
    try:
        await play_in_terminal(
            args.target, args.game, chosen.presenter, opponents=opponents, bots=chosen.bots, autopilot=rotation[0],
            display_name=args.name, variant=args.variant, join_data=chosen.join_data("play", args.join_data),
            tls_root_cert=tls_root_cert("play", args.tls_ca),
        )
    except SessionDisconnected as error:
        # The table's room refused the seat or could not be reached again:
        # the reason is all the person can act on.
        print(f"tablehost play: {one_line(str(error))}", file=sys.stderr)
        return 1
    return 0


async def run_demo_command(config: HostConfig, args: argparse.Namespace) -> int:
    from tablehost.host.demo import DemoTables, run_demo
    from tablehost.host.server import FrontDoor

    chosen = _choose_game("demo", args.game, args.seats, config.game_modules)
    root_cert = tls_root_cert("demo", args.tls_ca)
    if config.tls_cert_pem and root_cert is None:
        raise SystemExit("tablehost demo: with --tls-cert its clients need --tls-ca (the certificate to trust)")
    demo = DemoTables(args.game, chosen.seats, chosen.bot_rotation, chosen.bots, tables=args.tables,
                      variant=args.variant, join_data=chosen.join_data("demo", args.join_data),
                      tls_root_cert=root_cert)
    host = FrontDoor(config)
    await host.start()
    print(f"listening on {host.target}", flush=True)
    try:
        return await run_demo(host.target, demo, chosen.presenter, args.pace)
    finally:
        await host.stop()


def _add_game_arguments(parser: argparse.ArgumentParser, *, game_modules: bool = True) -> None:
    """What every tool that plays a game takes: the table's size, the
    game's variant, the players' join data and where to find the game."""
    parser.add_argument("--seats", type=int, default=0, help="seats per table (default: the game's usual table)")
    parser.add_argument("--variant", default="", help="a variant the game declares (default: its standard rules)")
    parser.add_argument("--join-data", default="", metavar="JSON",
                        help="each player's options for the game, as a JSON object (e.g. a deck)")
    if game_modules:  # serve's own flag already (demo): the same meaning
        parser.add_argument("--game-module", action="append", default=[], metavar="MODULE:ATTRIBUTE",
                            help="know a game the host added with --game-module (repeatable)")


def add_demo_arguments(parser: argparse.ArgumentParser) -> None:
    """Demo's own flags, after the host's (config_flags.add_arguments)."""
    parser.add_argument("--game", default="bigtwo", help="a registered game (default: bigtwo)")
    _add_game_arguments(parser, game_modules=False)
    parser.add_argument("--tables", type=int, default=1)
    parser.add_argument("--pace", type=float, default=0.2, help="seconds each bot thinks before a move")
    add_tls_ca_argument(parser)


def add_bots_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--target", default="127.0.0.1:50051")
    parser.add_argument("--game", default="bigtwo", help="a registered game (default: bigtwo)")
    _add_game_arguments(parser)
    parser.add_argument("--tables", type=int, default=1)
    parser.add_argument("--bot", default="random",
                        help="random, or one of the game's own bots (Big Two and Duel: greedy; Kingdoms: rules)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds before unfinished bots count as errors")
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    parser.add_argument("--record-dir", metavar="DIR",
                        help="each bot saves its game as it received it here, for `tablehost verify`")
    add_tls_ca_argument(parser)


def add_play_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="a registered game, e.g. bigtwo")
    parser.add_argument("--target", default="127.0.0.1:50051")
    parser.add_argument("--name", default="you")
    add_tls_ca_argument(parser)
    _add_game_arguments(parser)
