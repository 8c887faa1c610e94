"""The `tablehost` command: serve, bots, play, demo."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys

from tablehost.host.config import HostConfig


async def _serve(config: HostConfig) -> None:
    from tablehost.actors.process_tuning import tune_garbage_collection
    from tablehost.host.server import Host

    host = Host(config)
    await host.start()
    tune_garbage_collection()
    print(f"listening on {host.target}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    await host.stop()


async def _bots(args: argparse.Namespace) -> int:
    from tablehost.clients.loadrun import format_summary, run_tables

    summary = await run_tables(args.target, args.game, args.tables, bot=args.bot, seed=args.seed)
    if args.json:
        print(json.dumps(summary.to_json_dict()))
    else:
        print(format_summary(summary))
    return 0 if summary.ok else 1


async def _status(args: argparse.Namespace) -> int:
    import grpc
    from rich.console import Console

    from tablehost.host.status_view import fetch_status, print_status, status_json

    try:
        status = await fetch_status(args.target)
    except grpc.aio.AioRpcError as error:
        print(f"tablehost status: {args.target}: {error.code().name}: {error.details()}", file=sys.stderr)
        return 1
    if args.json:
        print(status_json(status))
    else:
        print_status(status, Console(highlight=False))
    return 0


async def _play(args: argparse.Namespace) -> None:
    from tablehost.clients.terminal import play_in_terminal

    await play_in_terminal(args.target, args.game, display_name=args.name)


async def _demo(config: HostConfig, tables: int, pace_s: float) -> int:
    from tablehost.host.demo import run_demo
    from tablehost.host.server import Host

    host = Host(config)
    await host.start()
    print(f"listening on {host.target}", flush=True)
    try:
        return await run_demo(host.target, tables, pace_s)
    finally:
        await host.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="tablehost", description="A distributed host for turn-based card games.")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run a host: front door, lobby and rooms")
    HostConfig.add_arguments(serve)

    demo = commands.add_parser("demo", help="start a local host and watch bots play through it")
    HostConfig.add_arguments(demo)
    demo.add_argument("--tables", type=int, default=1)
    demo.add_argument("--pace", type=float, default=0.2, help="seconds each bot thinks before a move")

    bots = commands.add_parser("bots", help="run bot players against a host until each table finishes a game")
    bots.add_argument("--target", default="127.0.0.1:50051")
    bots.add_argument("--game", default="bigtwo")
    bots.add_argument("--tables", type=int, default=1)
    bots.add_argument("--bot", choices=("random", "greedy"), default="random")
    bots.add_argument("--seed", type=int, default=0)
    bots.add_argument("--json", action="store_true", help="print the summary as one JSON object")

    status = commands.add_parser("status", help="show a running host: rooms per node, tables, free slots, queues")
    status.add_argument("--target", default="127.0.0.1:50051")
    status.add_argument("--json", action="store_true", help="print the status as one JSON object")

    play = commands.add_parser("play", help="play a game in the terminal against three bots")
    play.add_argument("game", choices=("bigtwo",))
    play.add_argument("--target", default="127.0.0.1:50051")
    play.add_argument("--name", default="you")

    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(message)s")
    if args.command in ("serve", "demo"):
        from tablehost.actors.process_tuning import raise_open_files_limit

        raise_open_files_limit()
    if args.command == "serve":
        logging.getLogger("tablehost").setLevel(logging.INFO)
        asyncio.run(_serve(HostConfig.from_args(args)))
    elif args.command == "demo":
        sys.exit(asyncio.run(_demo(HostConfig.from_args(args), args.tables, args.pace)))
    elif args.command == "bots":
        sys.exit(asyncio.run(_bots(args)))
    elif args.command == "status":
        sys.exit(asyncio.run(_status(args)))
    elif args.command == "play":
        asyncio.run(_play(args))


if __name__ == "__main__":
    main()
