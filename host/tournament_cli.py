"""`tablehost tournament …`: create, join, start, status, standings, export
and simulate, over the front door's Tournaments service. A call the host
refuses ends the command with one line (host/cli.py says how).

`create` proves the organiser with the token the host's operator issued
(`--organiser-token`, or TABLEHOST_ORGANISER_TOKEN); `simulate` makes one
itself for a host it starts. Standings and exports read every page.

Without --format, a tournament takes the format that fits its game's
table: Swiss for a 2-seat table (Duel), table rounds seated by standings
for a larger one (Big Two's 4 seats, Kingdoms' table)."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from tablehost.host.tournament_formats import FORMAT_CHOICES, chosen_format, game_rules
from tablehost.host.tournament_output import describe, export_csv, export_json, standings_table, status_dict

def add_tournament_commands(commands: Any, add_host_arguments: Any, add_tls: Any) -> None:
    """The `tournament` command and its subcommands. `add_host_arguments`
    adds `serve`'s flags (simulate starts a host of its own unless given
    --target); `add_tls` adds --tls-ca."""
    tournament = commands.add_parser("tournament", help="hosted tournaments: create, join, follow, export, simulate")
    actions = tournament.add_subparsers(dest="action", required=True)

    def with_target(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
        parser.add_argument("--target", default="127.0.0.1:50051")
        add_tls(parser)
        return parser

    create = with_target(actions.add_parser("create", help="create a tournament (prints its id and organiser key)"))
    _add_shape(create)
    create.add_argument("--game-module", action="append", default=[], metavar="MODULE:ATTRIBUTE",
                        help="know a game the host added with --game-module (its table size picks the format)")
    create.add_argument("--name", default="tournament")
    create.add_argument("--max-players", type=int, default=0)
    create.add_argument("--no-show-after", type=int, default=0, metavar="S",
                        help="a player not at its table S seconds after it opened forfeits (default 60)")
    create.add_argument("--start-within", type=int, default=0, metavar="S",
                        help="not started within S seconds, the tournament expires (default: the host's, 24 h)")
    _add_organiser_token(create)

    join = with_target(actions.add_parser("join", help="register a player (prints the player's key)"))
    join.add_argument("tournament_id")
    join.add_argument("--player", required=True)
    join.add_argument("--join-data", default="", metavar="JSON", help="the player's options for the game (a deck)")

    start = with_target(actions.add_parser("start", help="close registration and pair the first round"))
    start.add_argument("tournament_id")
    start.add_argument("--key", required=True, help="the organiser key `create` printed")

    for name, what in (("status", "where the tournament stands"), ("standings", "the standings")):
        shown = with_target(actions.add_parser(name, help=what))
        shown.add_argument("tournament_id")
        shown.add_argument("--json", action="store_true")

    export = with_target(actions.add_parser("export", help="every result and the standings, as JSON or CSV"))
    export.add_argument("tournament_id")
    export.add_argument("--format", choices=("json", "csv"), default="json")

    simulate = actions.add_parser("simulate", help="a whole tournament of bots, with progress and final standings")
    add_host_arguments(simulate)
    _add_shape(simulate)
    simulate.add_argument("--players", type=int, required=True)
    simulate.add_argument("--target", default="", help="a running host (default: start one here)")
    simulate.add_argument("--bot", default="", help="the bots' kind (default: the game's own, else random)")
    simulate.add_argument("--join-data", default="", metavar="JSON", help="every player's options (a deck)")
    simulate.add_argument("--out", default="", metavar="DIR", help="write results.json, results.csv, standings.csv")
    simulate.add_argument("--no-progress", action="store_true", help="print a line per round instead of a bar")
    _add_organiser_token(simulate, "with --target (a host started here is given one)")
    add_tls(simulate)


def _add_organiser_token(parser: argparse.ArgumentParser, when: str = "") -> None:
    parser.add_argument("--organiser-token", default=os.environ.get("TABLEHOST_ORGANISER_TOKEN", ""),
                        metavar="TOKEN", help="the organiser's token, from the host's operator (`tablehost organiser "
                                              f"issue`); default $TABLEHOST_ORGANISER_TOKEN{', ' + when if when else ''}")


def _add_shape(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", default="duel")
    parser.add_argument("--format", dest="tournament_format", choices=FORMAT_CHOICES, default=None,
                        help="default: swiss for a 2-seat game, table_rounds for larger tables (Big Two)")
    parser.add_argument("--rounds", type=int, default=0, help="0: the format's natural count")
    parser.add_argument("--seats", type=int, default=0, help="table_rounds: players per table")
    parser.add_argument("--turn-timeout-ms", type=int, default=0)


async def run_tournament_command(args: argparse.Namespace, tls_root_cert: bytes | None, join_data: Any) -> int:
    from tablehost.clients.tournament import TournamentClient

    if args.action == "simulate":
        from tablehost.host.tournament_simulation import simulate

        return await simulate(args, tls_root_cert, join_data)
    async with TournamentClient(args.target, tls_root_cert=tls_root_cert,
                                organiser_token=getattr(args, "organiser_token", "")) as client:
        return await _one_call(client, args, join_data)


async def _create(client: Any, args: argparse.Namespace) -> None:
    from tablehost.games.registry import UnknownGame

    try:
        rules = game_rules(args, "tournament create")
    except UnknownGame:
        rules = None  # the host may know it (a game module of its own): it answers for it
    created = await client.create(args.name, args.game, chosen_format(args, rules, "tournament create"), args.rounds,
                                  args.seats, args.turn_timeout_ms, args.max_players, args.no_show_after,
                                  args.start_within)
    print(json.dumps({"tournament_id": created.tournament_id, "organiser_key": created.organiser_key,
                      "organiser": created.organiser, "start_by_ms": created.start_by_ms}))


async def _one_call(client: Any, args: argparse.Namespace, join_data: Any) -> int:
    if args.action == "create":
        await _create(client, args)
    elif args.action == "join":
        registration = await client.register(args.tournament_id, args.player, join_data)
        print(json.dumps({"player": registration.player, "player_key": registration.player_key}))
    elif args.action == "start":
        print(describe(await client.start(args.tournament_id, args.key)))
    elif args.action == "status" and not args.json:
        print(describe(await client.status(args.tournament_id)))
    elif args.action in ("status", "standings"):
        status = await client.full_status(args.tournament_id)
        print(json.dumps(status_dict(status)) if args.json else standings_table(status))
    elif args.action == "export":
        results = await client.all_results(args.tournament_id)
        status = await client.full_status(args.tournament_id)
        print(export_json(status, results) if args.format == "json" else export_csv(results), end="")
    return 0
