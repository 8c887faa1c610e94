"""The `tablehost` command: serve, bots, play, demo, status, admin, drain, verify, tournament, organiser, loadtest.

A request the host refuses (any gRPC call of the lobby, tournament or admin
services, from any command) ends the command with one line on stderr,
`tablehost <command>: <STATUS>: <the host's reason>`, and exit status 1:
the person learns what to change, not where in our code it surfaced."""

from __future__ import annotations

import argparse
import asyncio
import functools
import logging
import os
import signal
import sys

from tablehost.actors.log_format import LOG_FORMATS, configure_logging
from tablehost.host.cli_refusals import run_command
from tablehost.host.client_flags import add_tls_ca_argument, parse_join_data, tls_root_cert
from tablehost.host import config_flags
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


async def _status(args: argparse.Namespace) -> int:
    from rich.console import Console

    from tablehost.host.admin_cli import admin_token_for_cli
    from tablehost.host.status_view import fetch_status, print_status, status_json

    root_cert = tls_root_cert("status", args.tls_ca)
    status = await fetch_status(args.target, admin_token_for_cli(args.token_file), tls_root_cert=root_cert)
    if args.json:
        print(status_json(status))
    else:
        print_status(status, Console(highlight=False))
    return 0


async def _tournament(args: argparse.Namespace) -> int:
    from tablehost.host.tournament_cli import run_tournament_command

    join_data = parse_join_data(f"tournament {args.action}", getattr(args, "join_data", "") or "")
    return await run_tournament_command(args, tls_root_cert(f"tournament {args.action}", args.tls_ca), join_data)


async def _loadtest(args: argparse.Namespace) -> int:
    from tablehost.host.loadtest.run import run_loadtest
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    from tablehost.clients.sdk import open_channel
    from tablehost.host.loadtest.settings import settings_from_args

    settings = settings_from_args(args, tls_root_cert("loadtest", args.tls_ca))
    if settings.target:
        # A target that refuses (or is not there) stops the run before any
        # agent starts, rather than every player failing against it.
        async with open_channel(settings.target, settings.tls_root_cert) as channel:
            await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
    return await run_loadtest(settings)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="tablehost", description="A distributed host for turn-based card games.")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run a host: front door, lobby and rooms")
    config_flags.add_arguments(serve)

    from tablehost.host.game_cli import add_bots_arguments, add_demo_arguments, add_play_arguments

    demo = commands.add_parser("demo", help="start a local host and watch bots play a game through it")
    config_flags.add_arguments(demo, serving=False)
    add_demo_arguments(demo)

    bots = commands.add_parser("bots", help="run bot players against a host until each table finishes a game")
    add_bots_arguments(bots)

    from tablehost.host.admin_cli import add_admin_commands, add_admin_target_arguments

    status = commands.add_parser("status", help="show a running host: rooms per node, tables, free slots, queues")
    add_admin_target_arguments(status, add_tls_ca_argument)
    status.add_argument("--json", action="store_true", help="print the status as one JSON object")
    add_admin_commands(commands, add_tls_ca_argument)

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
    add_play_arguments(play)

    from tablehost.host.tournament_cli import add_tournament_commands

    add_tournament_commands(commands, functools.partial(config_flags.add_arguments, serving=False), add_tls_ca_argument)

    from tablehost.host.organiser_cli import add_organiser_commands

    add_organiser_commands(commands)

    from tablehost.host.loadtest.settings import add_loadtest_arguments

    loadtest = commands.add_parser("loadtest", help="load a host from Ray agents on every node; a report and a plot")
    config_flags.add_arguments(loadtest, serving=False)  # for the host it starts without --target
    add_loadtest_arguments(loadtest)
    add_tls_ca_argument(loadtest)

    args = parser.parse_args(argv)
    log_format = getattr(args, "log_format", "text")
    # An unknown TABLEHOST_LOG_FORMAT is refused with the other settings (config_flags.config_from_args).
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
        asyncio.run(_serve(config_flags.config_from_args(args)))
    elif args.command == "demo":
        from tablehost.host.game_cli import run_demo_command

        sys.exit(run_command("demo", run_demo_command(config_flags.config_from_args(args), args)))
    elif args.command == "bots":
        from tablehost.host.game_cli import run_bots_command

        sys.exit(run_command("bots", run_bots_command(args)))
    elif args.command == "status":
        sys.exit(run_command("status", _status(args)))
    elif args.command == "admin-token":
        from tablehost.host.admin_cli import print_admin_token

        sys.exit(print_admin_token(args))
    elif args.command == "admin":
        from tablehost.host.admin_cli import run_admin_action

        sys.exit(run_command(f"admin {args.action}", run_admin_action(args, tls_root_cert("admin", args.tls_ca))))
    elif args.command == "drain":
        from tablehost.host.drain import run_drain

        sys.exit(run_drain(args))
    elif args.command == "verify":
        from tablehost.host.verify import run_verify

        sys.exit(run_verify(args))
    elif args.command == "player-token":
        sys.exit(_player_token(args))
    elif args.command == "play":
        from tablehost.host.game_cli import run_play_command

        sys.exit(run_command("play", run_play_command(args)))
    elif args.command == "tournament":
        sys.exit(run_command(f"tournament {args.action}", _tournament(args)))
    elif args.command == "organiser":
        from tablehost.host.organiser_cli import run_organiser_command

        sys.exit(run_organiser_command(args))
    elif args.command == "loadtest":
        sys.exit(run_command("loadtest", _loadtest(args)))


if __name__ == "__main__":
    main()
