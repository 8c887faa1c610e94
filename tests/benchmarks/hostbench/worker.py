"""Entry point of the benchmark's client-side processes:

    python -m hostbench.worker players --target HOST:PORT [--own-connections] [--prefix P]
    python -m hostbench.worker echo-server [--lifetime S]
    python -m hostbench.worker echo-clients --target HOST:PORT --groups N --rounds R [--acks]
    python -m hostbench.worker bots --target HOST:PORT --tables N [--seed S]
    python -m hostbench.worker attack --target HOST:PORT --idle-streams N --kinds K1,K2
    python -m hostbench.worker burn --share F

(run with tests/benchmarks and the project root on PYTHONPATH, as children.Child does).
Each runs in a process of its own so that what the load costs never lands in the
host's figures, and is ended by the benchmark by PID.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from typing import Any, Protocol

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

ECHO_TIMEOUT_S = 120.0
CHILD_LIFETIME_S = 1800.0


def main(argv: list[str] | None = None) -> int:
    from hostbench.children import raise_nofile_limit

    parser = argparse.ArgumentParser(prog="hostbench.worker")
    modes = parser.add_subparsers(dest="mode", required=True)
    players = modes.add_parser("players")
    players.add_argument("--target", required=True)
    players.add_argument("--prefix", default="player")
    players.add_argument("--own-connections", action="store_true")
    server = modes.add_parser("echo-server")
    server.add_argument("--lifetime", type=float, default=CHILD_LIFETIME_S)
    clients = modes.add_parser("echo-clients")
    clients.add_argument("--target", required=True)
    clients.add_argument("--groups", type=int, required=True)
    clients.add_argument("--rounds", type=int, required=True)
    clients.add_argument("--group-base", type=int, default=0)
    clients.add_argument("--acks", action="store_true")
    bots = modes.add_parser("bots")
    bots.add_argument("--target", required=True)
    bots.add_argument("--tables", type=int, required=True)
    bots.add_argument("--seed", type=int, default=0)
    bots.add_argument("--timeout", type=float, default=240.0)
    attack = modes.add_parser("attack")
    attack.add_argument("--target", required=True)
    attack.add_argument("--idle-streams", type=int, required=True)
    attack.add_argument("--kinds", required=True)
    burn = modes.add_parser("burn")
    burn.add_argument("--share", type=float, required=True, help="the share of one core to keep busy (0-1)")
    args = parser.parse_args(argv)

    raise_nofile_limit()
    if args.mode == "attack":
        from hostbench.attacks import Attackers

        return between_go_and_stop(Attackers(args.target, args.idle_streams, tuple(args.kinds.split(","))))
    if args.mode == "burn":
        from hostbench.burner import Burner

        return between_go_and_stop(Burner(args.share))
    if args.mode == "players":
        from hostbench.players import give_each_channel_its_own_connection, serve_commands

        if args.own_connections:
            give_each_channel_its_own_connection()
        asyncio.run(serve_commands(args.target, args.prefix))
        return 0
    if args.mode == "bots":
        return asyncio.run(bots_on_signal(args.target, args.tables, args.seed, args.timeout))
    if args.mode == "echo-server":
        from hostbench.echo import serve

        asyncio.run(serve(args.lifetime))
        return 0
    import grpc.aio  # noqa: F401  (imported before "ready", like the bots)

    from hostbench.echo import run_clients

    print(json.dumps({"ready": True}), flush=True)
    sys.stdin.readline()  # "go": every client process of the floor starts together
    result = asyncio.run(run_clients(args.target, args.groups, args.rounds, ECHO_TIMEOUT_S, args.acks, args.group_base))
    print(json.dumps(result), flush=True)
    return 0 if not result["errors"] else 1


class BesideTheBots(Protocol):
    """What runs beside the bots for as long as they play (attackers, burners)."""

    def start(self) -> None: ...

    def finish(self) -> dict[str, Any]: ...


def between_go_and_stop(beside: BesideTheBots) -> int:
    """As a benchmark child: ready, then run `beside` from a "go" line on stdin until
    the next line, and print what it reports with the CPU seconds this process used
    (all its threads, gRPC's included) and the wall seconds it ran for."""
    print(json.dumps({"ready": True}), flush=True)
    sys.stdin.readline()
    cpu_started, wall_started = time.process_time(), time.monotonic()
    beside.start()
    sys.stdin.readline()
    report = beside.finish()
    print(json.dumps({**report, "cpu_s": round(time.process_time() - cpu_started, 3),
                      "wall_s": round(time.monotonic() - wall_started, 3)}), flush=True)
    return 0


async def bots_on_signal(target: str, tables: int, seed: int, timeout_s: float) -> int:
    """Exactly what `tablehost bots --json` runs (clients.loadrun.run_tables, random
    bots), but only once a "go" line arrives on stdin: the benchmark starts two such
    processes, waits until both have imported everything, then starts them together,
    so neither plays while the other is still starting. Prints the same JSON summary,
    plus the CPU the process used while playing."""
    from tablehost.clients.loadrun import run_tables

    print(json.dumps({"ready": True}), flush=True)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.readline)
    cpu_started = time.process_time()
    summary = await run_tables(target, "bigtwo", tables, bot="random", seed=seed, timeout_s=timeout_s,
                               seats_per_table=4)
    answer = summary.to_json_dict()
    answer["client_cpu_s"] = round(time.process_time() - cpu_started, 4)
    print(json.dumps(answer), flush=True)
    return 0 if summary.ok else 1


if __name__ == "__main__":
    sys.exit(main())
