"""The `tablehost` command: serve, bots, play, demo, status, admin, drain, verify, tournament, organiser, loadtest.

A request the host refuses (any gRPC call of the lobby, tournament or admin
services, from any command) ends the command with one line on stderr,
`tablehost <command>: <STATUS>: <the host's reason>`, and exit status 1:
the person learns what to change, not where in our code it surfaced."""

from __future__ import annotations

import argparse
import os
import asyncio
import functools
import json
import logging
import signal
import sys
from collections.abc import Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablehost.actors.log_format import LOG_FORMATS, configure_logging
from tablehost.host.config import HostConfig


async def _serve(config: HostConfig) -> None:
    from tablehost.actors.process_tuning import tune_garbage_collection
    from tablehost.host.server import FrontDoor

    host = FrontDoor(config)
    await host.start()
    tune_garbage_collection()
    print(f"listening on {host.target}", flush=True)
    if host.metrics is not None:
        print(f"metrics on http://{host.metrics.address}/metrics (rooms: /targets)", flush=True)
    if host.web is not None:
        print(f"web table on {host.web.scheme}://{host.web.address}/", flush=True)
    print(f"admin on {host.admin_target}", flush=True)
    if host.console is not None:
        print(f"console on http://{host.console.address}/", flush=True)
    if host.admin_token_file is not None:
        print(f"no TABLEHOST_ADMIN_SECRET: this run's admin token is in {host.admin_token_file}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    await host.stop()


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
        return _join_data(command, text) if text else dict(self.example_join)

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


def _tls_root_cert(command: str, path: str | None) -> bytes | None:
    """`--tls-ca`: the PEM certificates a client trusts to connect over TLS
    (None: plaintext)."""
    if not path:
        return None
    try:
        pem = Path(path).read_bytes()
    except OSError as error:
        raise SystemExit(f"tablehost {command}: cannot read --tls-ca {path}: {error}") from None
    if b"-----BEGIN CERTIFICATE-----" not in pem:
        raise SystemExit(f"tablehost {command}: --tls-ca {path} holds no PEM certificate")
    return pem


def _join_data(command: str, text: str) -> dict[str, Any]:
    """`--join-data` as a map: a player's options for the game, given as JSON."""
    if not text:
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise SystemExit(f"tablehost {command}: --join-data is not JSON: {error}") from None
    if not isinstance(data, dict):
        raise SystemExit(f"tablehost {command}: --join-data is a JSON object, got {text!r}")
    return data


async def _bots(args: argparse.Namespace) -> int:
    from tablehost.clients.loadrun import format_summary, run_tables
    from tablehost.host.config_flags import game_module_paths

    chosen = _choose_game("bots", args.game, args.seats, game_module_paths(args.game_module))
    if args.bot not in chosen.bots:
        choices = ", ".join(sorted(chosen.bots))
        raise SystemExit(f"tablehost bots: {args.game} has no bot {args.bot!r}; choose from {choices}")
    summary = await run_tables(
        args.target, args.game, args.tables, bot=args.bot, seed=args.seed, timeout_s=args.timeout,
        seats_per_table=chosen.seats, bots=chosen.bots, variant=args.variant,
        join_data=chosen.join_data("bots", args.join_data), tls_root_cert=_tls_root_cert("bots", args.tls_ca),
        record_dir=_record_dir(args.record_dir),
    )
    if summary.bots_finished == 0 and summary.refusal is not None:
        code, details = summary.refusal
        print(f"tablehost bots: {code}: {_one_line(details)}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(summary.to_json_dict()))
    else:
        print(format_summary(summary))
    return 0 if summary.ok else 1


def _player_token(args: argparse.Namespace) -> int:
    """Print a token for `args.player`, signed with TABLEHOST_PLAYER_AUTH_SECRET."""
    import time

    from tablehost.host.identity import player_token

    secret = os.environ.get("TABLEHOST_PLAYER_AUTH_SECRET", "").encode()
    if len(secret) < 32:
        raise SystemExit("tablehost player-token: set TABLEHOST_PLAYER_AUTH_SECRET (at least 32 bytes), the secret "
                         "the host's --player-auth hmac checks tokens with")
    if args.days <= 0:
        raise SystemExit(f"tablehost player-token: --days takes a positive number, got {args.days}")
    try:
        print(player_token(secret, args.player, time.time_ns() // 1_000_000 + round(args.days * 86_400_000)))
    except ValueError as error:
        raise SystemExit(f"tablehost player-token: {error}") from None
    return 0


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


async def _status(args: argparse.Namespace) -> int:
    from rich.console import Console

    from tablehost.host.admin_cli import admin_token_for_cli
    from tablehost.host.status_view import fetch_status, print_status, status_json

    tls_root_cert = _tls_root_cert("status", args.tls_ca)
    status = await fetch_status(args.target, admin_token_for_cli(args.token_file), tls_root_cert=tls_root_cert)
    if args.json:
        print(status_json(status))
    else:
        print_status(status, Console(highlight=False))
    return 0


async def _play(args: argparse.Namespace) -> int:
    from tablehost.clients.sdk import SessionDisconnected
    from tablehost.clients.terminal import play_in_terminal
    from tablehost.host.config_flags import game_module_paths

    chosen = _choose_game("play", args.game, args.seats, game_module_paths(args.game_module))
    rotation = chosen.bot_rotation
    opponents = [rotation[index % len(rotation)] for index in range(chosen.seats - 1)]
    try:
        await play_in_terminal(
            args.target, args.game, chosen.presenter, opponents=opponents, bots=chosen.bots, autopilot=rotation[0],
            display_name=args.name, variant=args.variant, join_data=chosen.join_data("play", args.join_data),
            tls_root_cert=_tls_root_cert("play", args.tls_ca),
        )
    except SessionDisconnected as error:
        # The table's room refused the seat or could not be reached again:
        # the reason is all the person can act on.
        print(f"tablehost play: {_one_line(str(error))}", file=sys.stderr)
        return 1
    return 0


async def _demo(config: HostConfig, args: argparse.Namespace) -> int:
    from tablehost.host.demo import DemoTables, run_demo
    from tablehost.host.server import FrontDoor

    chosen = _choose_game("demo", args.game, args.seats, config.game_modules)
    tls_root_cert = _tls_root_cert("demo", args.tls_ca)
    if config.tls_cert_pem and tls_root_cert is None:
        raise SystemExit("tablehost demo: with --tls-cert its clients need --tls-ca (the certificate to trust)")
    demo = DemoTables(args.game, chosen.seats, chosen.bot_rotation, chosen.bots, tables=args.tables,
                      variant=args.variant, join_data=chosen.join_data("demo", args.join_data),
                      tls_root_cert=tls_root_cert)
    host = FrontDoor(config)
    await host.start()
    print(f"listening on {host.target}", flush=True)
    try:
        return await run_demo(host.target, demo, chosen.presenter, args.pace)
    finally:
        await host.stop()


async def _tournament(args: argparse.Namespace) -> int:
    from tablehost.host.tournament_cli import run_tournament_command

    join_data = _join_data(f"tournament {args.action}", getattr(args, "join_data", "") or "")
    return await run_tournament_command(args, _tls_root_cert(f"tournament {args.action}", args.tls_ca), join_data)


async def _loadtest(args: argparse.Namespace) -> int:
    from tablehost.host.loadtest.run import run_loadtest
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    from tablehost.clients.sdk import open_channel
    from tablehost.host.loadtest.settings import settings_from_args

    settings = settings_from_args(args, _tls_root_cert("loadtest", args.tls_ca))
    if settings.target:
        # A target that refuses (or is not there) stops the run before any
        # agent starts, rather than every player failing against it.
        async with open_channel(settings.target, settings.tls_root_cert) as channel:
            await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
    return await run_loadtest(settings)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _refusal_line(command: str, error: BaseException) -> str | None:
    """`tablehost <command>: <STATUS>: <details>` for a gRPC call the host
    refused (a grpc.aio error, or the SDK's LobbyError wrapping one); None
    for any other error."""
    import grpc

    from tablehost.clients.sdk import LobbyError

    if isinstance(error, LobbyError):
        code, details = error.code, error.details
    elif isinstance(error, grpc.aio.AioRpcError):
        code, details = error.code(), error.details() or ""
    else:
        return None
    return f"tablehost {command}: {code.name}: {_one_line(details)}"


def _run(command: str, steps: Coroutine[Any, Any, int | None]) -> int:
    """Run one command's coroutine to its exit status; a request the host
    refused ends it with one line on stderr and status 1 (module docstring)."""
    try:
        return asyncio.run(steps) or 0
    except Exception as error:
        line = _refusal_line(command, error)
        if line is None:
            raise
        print(line, file=sys.stderr)
        return 1


def _add_tls_ca_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tls-ca", metavar="FILE",
                        help="connect over TLS, trusting the PEM certificate(s) in FILE (a host with --tls-cert)")


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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="tablehost", description="A distributed host for turn-based card games.")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run a host: front door, lobby and rooms")
    HostConfig.add_arguments(serve)

    demo = commands.add_parser("demo", help="start a local host and watch bots play a game through it")
    HostConfig.add_arguments(demo, serving=False)
    demo.add_argument("--game", default="bigtwo", help="a registered game (default: bigtwo)")
    _add_game_arguments(demo, game_modules=False)
    demo.add_argument("--tables", type=int, default=1)
    demo.add_argument("--pace", type=float, default=0.2, help="seconds each bot thinks before a move")
    _add_tls_ca_argument(demo)

    bots = commands.add_parser("bots", help="run bot players against a host until each table finishes a game")
    bots.add_argument("--target", default="127.0.0.1:50051")
    bots.add_argument("--game", default="bigtwo", help="a registered game (default: bigtwo)")
    _add_game_arguments(bots)
    bots.add_argument("--tables", type=int, default=1)
    bots.add_argument("--bot", default="random",
                      help="random, or one of the game's own bots (Big Two and Duel: greedy; Kingdoms: rules)")
    bots.add_argument("--seed", type=int, default=0)
    bots.add_argument("--timeout", type=float, default=120.0, help="seconds before unfinished bots count as errors")
    bots.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    bots.add_argument("--record-dir", metavar="DIR",
                      help="each bot saves its game as it received it here, for `tablehost verify`")
    _add_tls_ca_argument(bots)

    from tablehost.host.admin_cli import add_admin_commands, add_admin_target_arguments

    status = commands.add_parser("status", help="show a running host: rooms per node, tables, free slots, queues")
    add_admin_target_arguments(status, _add_tls_ca_argument)
    status.add_argument("--json", action="store_true", help="print the status as one JSON object")
    add_admin_commands(commands, _add_tls_ca_argument)

    from tablehost.host.drain import add_drain_arguments

    drain = commands.add_parser("drain", help="take rooms out of service: their tables move or finish, then they stop")
    add_drain_arguments(drain)

    from tablehost.host.verify import add_verify_arguments

    verify = commands.add_parser("verify", help="check finished games as players received them: deal, commands, hashes")
    add_verify_arguments(verify)

    token = commands.add_parser("player-token", help="a player token for a host with --player-auth hmac "
                                                     "(what the game's account service issues)")
    token.add_argument("player", help="the player's id: 1 to 64 of A-Z a-z 0-9 . _ @ -")
    token.add_argument("--days", type=float, default=1.0, help="how long it is valid (default: 1 day)")

    play = commands.add_parser("play", help="play a game in the terminal against bots")
    play.add_argument("game", help="a registered game, e.g. bigtwo")
    play.add_argument("--target", default="127.0.0.1:50051")
    play.add_argument("--name", default="you")
    _add_tls_ca_argument(play)
    _add_game_arguments(play)

    from tablehost.host.tournament_cli import add_tournament_commands

    add_tournament_commands(commands, functools.partial(HostConfig.add_arguments, serving=False), _add_tls_ca_argument)

    from tablehost.host.organiser_cli import add_organiser_commands

    add_organiser_commands(commands)

    from tablehost.host.loadtest.settings import add_loadtest_arguments

    loadtest = commands.add_parser("loadtest", help="load a host from Ray agents on every node; a report and a plot")
    HostConfig.add_arguments(loadtest, serving=False)  # for the host it starts without --target
    add_loadtest_arguments(loadtest)
    _add_tls_ca_argument(loadtest)

    args = parser.parse_args(argv)
    log_format = getattr(args, "log_format", "text")
    # An unknown TABLEHOST_LOG_FORMAT is refused with the other settings (HostConfig.from_args).
    configure_logging(log_format if log_format in LOG_FORMATS else "text", logging.WARNING)
    hosts_here = args.command in ("serve", "demo", "loadtest") or (
        args.command == "tournament" and args.action == "simulate" and not args.target)
    if hosts_here and args.address is None:
        # Before anything imports ray: a local Ray listens on 127.0.0.1 only (host/server.py).
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    if hosts_here:
        from tablehost.actors.process_tuning import raise_open_files_limit

        raise_open_files_limit()
    if args.command == "serve":
        logging.getLogger("tablehost").setLevel(logging.INFO)
        asyncio.run(_serve(HostConfig.from_args(args)))
    elif args.command == "demo":
        sys.exit(_run("demo", _demo(HostConfig.from_args(args), args)))
    elif args.command == "bots":
        sys.exit(_run("bots", _bots(args)))
    elif args.command == "status":
        sys.exit(_run("status", _status(args)))
    elif args.command == "admin-token":
        from tablehost.host.admin_cli import print_admin_token

        sys.exit(print_admin_token(args))
    elif args.command == "admin":
        from tablehost.host.admin_cli import run_admin_action

        sys.exit(_run(f"admin {args.action}", run_admin_action(args, _tls_root_cert("admin", args.tls_ca))))
    elif args.command == "drain":
        from tablehost.host.drain import run_drain

        sys.exit(run_drain(args))
    elif args.command == "verify":
        from tablehost.host.verify import run_verify

        sys.exit(run_verify(args))
    elif args.command == "player-token":
        sys.exit(_player_token(args))
    elif args.command == "play":
        sys.exit(_run("play", _play(args)))
    elif args.command == "tournament":
        sys.exit(_run(f"tournament {args.action}", _tournament(args)))
    elif args.command == "organiser":
        from tablehost.host.organiser_cli import run_organiser_command

        sys.exit(run_organiser_command(args))
    elif args.command == "loadtest":
        sys.exit(_run("loadtest", _loadtest(args)))


if __name__ == "__main__":
    main()
