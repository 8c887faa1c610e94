"""`tablehost tournament simulate`: a whole tournament of bot players through
the real stack (front door, tournament actor, lobby placement, rooms, table
streams), with a progress bar and the final standings.

Without --target it starts a host here (an embedded Ray, or the cluster of
--address) and, holding that host's secret and store, issues itself an
organiser token; with --target it needs one (--organiser-token). Every
player is a client of that front door in this process, watching the
tournament and playing the tables it is given. Without --format it plays
the format that fits the game's table (tournament_formats)."""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from tablehost.clients.bots import PlayStats, bot_factories, make_bot
from tablehost.clients.sdk import LobbyClient
from tablehost.clients.tournament import PlayerReport, TournamentClient, play_tournament
from tablehost.games.registry import UnknownGame
from tablehost.host.tournament_formats import chosen_format, game_rules
from tablehost.host.tournament_output import export_csv, export_json, standings_csv, standings_table

# Registrations in flight at once (each a call to the tournament actor).
REGISTER_CONCURRENCY = 64
# Every player registers from this one client, which the host counts against
# one client's rate: each registration keeps asking this long.
REGISTER_PATIENCE_S = 600.0
# The organiser a simulation's own host issues itself, and for how long.
SIMULATION_ORGANISER = "tablehost tournament simulate"
SIMULATION_TOKEN_MS = 24 * 3600 * 1000


async def simulate(args: argparse.Namespace, tls_root_cert: bytes | None, join_data: Any) -> int:
    if args.players < 2:
        raise SystemExit("tablehost tournament simulate: --players must be at least 2")
    try:
        # Its bots play here, so the game must be one this tool knows.
        rules = game_rules(args, "tournament simulate")
    except UnknownGame as error:
        raise SystemExit(f"tablehost tournament simulate: {error}; add it with --game-module MODULE:ATTR") from None
    tournament_format = chosen_format(args, rules, "tournament simulate")
    host = None
    target, organiser_token = args.target, args.organiser_token
    if not target:
        from tablehost.host import config_flags
        from tablehost.host.server import FrontDoor

        config = config_flags.config_from_args(args)
        host = FrontDoor(config)
        await host.start()
        target = host.target
        organiser_token = _issue_own_token(config) or organiser_token
    try:
        summary = await _run(args, rules, tournament_format, target, tls_root_cert, join_data, organiser_token)
        if host is not None:
            # Where the host here put its rooms (over the nodes of --address).
            lobby = await host.lobby.status.remote()
            summary["rooms_per_node"] = sorted(len(node.rooms) for node in lobby.nodes if node.alive)
    finally:
        if host is not None:
            await host.stop()
    print(json.dumps(summary))
    if args.out:
        (Path(args.out) / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    clean = not (summary["forfeited_tables"] or summary["lost_results"] or summary["duplicate_results"])
    return 0 if clean and summary["state"] == "finished" else 1


def _issue_own_token(config: Any) -> str:
    """An organiser token from the host started here (its secret, its
    store's registry), or "" for a host without a store (it creates no
    tournaments, and says so)."""
    from tablehost.actors.store.event_log import open_event_log
    from tablehost.host.organisers import OrganiserRegistry, now_ms

    if config.store is None:
        return ""
    registry = OrganiserRegistry(open_event_log(config.store))
    try:
        token, _ = registry.issue(config.token_secret, SIMULATION_ORGANISER, SIMULATION_TOKEN_MS, now_ms())
    finally:
        registry.log.close()
    return token


async def _run(args: argparse.Namespace, rules: Any, tournament_format: str, target: str,
               tls_root_cert: bytes | None, join_data: Any, organiser_token: str) -> dict[str, Any]:
    """Play the tournament; print its standings, write its exports; its summary."""
    factories = bot_factories(dict(rules.bots()))
    kind = args.bot or next(iter(rules.bots()), "random")
    join = join_data or rules.example_join()
    console = Console(stderr=True)
    async with TournamentClient(target, tls_root_cert=tls_root_cert, organiser_token=organiser_token) as client, \
            LobbyClient(target, tls_root_cert=tls_root_cert) as lobby:
        created = await client.create(f"simulation of {args.players}", args.game, tournament_format,
                                      args.rounds, args.seats, args.turn_timeout_ms)
        tournament_id = created.tournament_id
        players = [f"p{index:05d}" for index in range(args.players)]
        keys = await _register_all(client, tournament_id, players, join)
        stats = PlayStats()
        started_at = time.monotonic()
        tasks = [asyncio.create_task(play_tournament(client, lobby, tournament_id, player, keys[player],
                                                     make_bot(kind, factories, (args.seed or 0) + index), stats))
                 for index, player in enumerate(players)]
        try:
            await client.start(tournament_id, created.organiser_key)
            rounds = await _follow(client, tournament_id, console, args.no_progress, started_at)
            reports: list[PlayerReport] = await asyncio.gather(*tasks)
        finally:
            # A refused call ends the run: its players stop with it, their
            # failures taken here rather than left for the event loop to report.
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        elapsed = time.monotonic() - started_at
        status = await client.full_status(tournament_id)
        results = await client.all_results(tournament_id)
    games = len(results.results)
    recorded = [r.table_id for r in results.results]
    told = {table_id for report in reports for table_id in report.tables}
    summary = {
        "tournament_id": tournament_id, "game": args.game, "format": tournament_format,
        "players": args.players, "rounds": status.round, "games": games, "seconds": round(elapsed, 2),
        "games_per_s": round(games / elapsed, 2) if elapsed else 0.0, "moves": stats.moves, "rejects": stats.rejects,
        "forfeited_tables": sum(1 for r in results.results if any(r.forfeited)),
        "round_seconds": rounds, "p50_ms": stats.percentile_ms(50), "p99_ms": stats.percentile_ms(99),
        "tables_played_by_players": sum(len(r.tables) for r in reports),
        # A table a player was sent to whose result is missing, or a result counted twice.
        "lost_results": len(told - set(recorded)), "duplicate_results": len(recorded) - len(set(recorded)),
        "state": status.state, "finish_reason": status.finish_reason,
    }
    print(standings_table(status, limit=20))
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "results.json").write_text(export_json(status, results))
        (out / "results.csv").write_text(export_csv(results))
        (out / "standings.csv").write_text(standings_csv(status))
    return summary


async def _register_all(client: TournamentClient, tournament_id: str, players: list[str],
                        join: dict[str, Any]) -> dict[str, str]:
    keys: dict[str, str] = {}
    gate = asyncio.Semaphore(REGISTER_CONCURRENCY)

    async def register(player: str) -> None:
        async with gate:
            keys[player] = (await client.register(tournament_id, player, join,
                                                  patient_s=REGISTER_PATIENCE_S)).player_key

    await asyncio.gather(*(register(player) for player in players))
    return keys


async def _follow(client: TournamentClient, tournament_id: str, console: Console, plain: bool,
                  started_at: float) -> list[float]:
    """Follow the tournament as a spectator until it is over; returns each
    round's seconds. Shows rounds, tables finished and games/s as it goes."""
    round_seconds: list[float] = []
    round_started = time.monotonic()
    current, games_before_round, games = 0, 0, 0
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
               TimeElapsedColumn())
    with Progress(*columns, console=console, disable=plain) as progress:
        rounds_bar = progress.add_task("rounds", total=None, rate="")
        tables_bar = progress.add_task("tables", total=None, rate="")
        async for event in client.watch(tournament_id):
            if event.WhichOneof("event") != "status":
                continue
            status = event.status
            if status.round > current:
                if current:
                    round_seconds.append(round(time.monotonic() - round_started, 2))
                    games_before_round = games
                    if plain:
                        console.print(f"round {current} done in {round_seconds[-1]} s")
                current, round_started = status.round, time.monotonic()
            games = status.games_played
            this_round = games - games_before_round
            rate = f"{games / max(1e-9, time.monotonic() - started_at):.1f} games/s"
            progress.update(rounds_bar, completed=min(current, status.rounds or current), total=status.rounds or None,
                            rate=f"round {current}")
            progress.update(tables_bar, completed=this_round, total=this_round + status.tables_pending, rate=rate)
            if status.state == "finished":
                round_seconds.append(round(time.monotonic() - round_started, 2))
                break
    return round_seconds
