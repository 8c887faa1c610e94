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
import csv
import io
import json
import os
from typing import Any

from tablehost.v1 import tournament_pb2 as pb

FORMAT_CHOICES = ("swiss", "round_robin", "elimination", "table_rounds")
# What a 2-seat game's tournament has always defaulted to.
TWO_SEAT_FORMAT = "swiss"
LARGER_TABLE_FORMAT = "table_rounds"


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


def format_for_table(seats: int) -> str:
    """The format that fits a table of `seats`: Swiss pairs 2-seat games;
    larger tables play table rounds, seated by standings."""
    return TWO_SEAT_FORMAT if seats == 2 else LARGER_TABLE_FORMAT


def game_rules(args: argparse.Namespace, command: str) -> Any:
    """The rules of `--game` as this tool knows them: the built-in games and
    those of --game-module (and TABLEHOST_GAME_MODULES), as `serve` loads
    them. Raises UnknownGame for a game it does not know."""
    from tablehost.games.registry import GameCatalog
    from tablehost.host.config import game_module_paths

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


def status_dict(status: pb.TournamentStatus) -> dict[str, Any]:
    return {
        "tournament_id": status.tournament_id, "name": status.name, "game": status.game,
        "format": pb.TournamentFormat.Name(status.format).lower(), "state": status.state, "round": status.round,
        "rounds": status.rounds, "players": status.players, "tables_pending": status.tables_pending,
        "finish_reason": status.finish_reason, "games_played": status.games_played, "tiebreak_names": list(status.tiebreak_names),
        "organiser": status.organiser, "start_by_ms": status.start_by_ms, "standings_total": status.standings_total,
        "standings": [{"place": s.place, "player": s.player, "points": s.points, "tiebreaks": list(s.tiebreaks),
                       "games": s.games, "wins": s.wins, "byes": s.byes, "rating": round(s.rating, 3),
                       "withdrawn": s.withdrawn} for s in status.standings],
    }


def describe(status: pb.TournamentStatus) -> str:
    from tablehost.host.organisers import when

    line = (f"{status.tournament_id} {status.name!r}: {status.game}, {pb.TournamentFormat.Name(status.format).lower()}, "
            f"{status.state}, round {status.round} of {status.rounds}, {status.players} players, "
            f"{status.tables_pending} tables pending")
    if status.state == "registering" and status.start_by_ms:
        line += f", expires unless started by {when(status.start_by_ms)}"
    return line + (f" ({status.finish_reason})" if status.finish_reason else "")


def standings_table(status: pb.TournamentStatus, limit: int = 0) -> str:
    # The rating tie-break is the rating column already.
    shown = [i for i, name in enumerate(status.tiebreak_names) if name != "rating"]
    rows = [["place", "player", "points", *(status.tiebreak_names[i] for i in shown), "games", "wins", "byes",
             "rating"]]
    for standing in status.standings[:limit or None]:
        rows.append([str(standing.place), standing.player + (" (withdrawn)" if standing.withdrawn else ""),
                     f"{standing.points:g}", *(f"{standing.tiebreaks[i]:g}" for i in shown), str(standing.games),
                     str(standing.wins), str(standing.byes), f"{standing.rating:.2f}"])
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows)


def results_rows(results: pb.TournamentResults) -> list[dict[str, Any]]:
    """One row per player per table (and per bye): what a spreadsheet wants."""
    rows = []
    for result in results.results:
        for seat, player in enumerate(result.players):
            rows.append({"round": result.round, "table_id": result.table_id, "seat": seat, "player": player,
                         "points": result.points[seat], "place": result.places[seat], "score": result.scores[seat],
                         "forfeited": result.forfeited[seat]})
    for number, player in zip(results.byes_round, results.byes_player):
        rows.append({"round": number, "table_id": "", "seat": -1, "player": player, "points": "", "place": "",
                     "score": "", "forfeited": False})
    return rows


def export_csv(results: pb.TournamentResults) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=["round", "table_id", "seat", "player", "points", "place", "score",
                                             "forfeited"])
    writer.writeheader()
    writer.writerows(results_rows(results))
    return out.getvalue()


def standings_csv(status: pb.TournamentStatus) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["place", "player", "points", *status.tiebreak_names, "games", "wins", "byes", "rating",
                     "withdrawn"])
    for s in status.standings:
        writer.writerow([s.place, s.player, s.points, *s.tiebreaks, s.games, s.wins, s.byes, s.rating, s.withdrawn])
    return out.getvalue()


def export_json(status: pb.TournamentStatus, results: pb.TournamentResults) -> str:
    return json.dumps({"tournament": status_dict(status), "results": [
        {"table_id": r.table_id, "round": r.round, "players": list(r.players), "points": list(r.points),
         "places": list(r.places), "scores": list(r.scores), "forfeited": list(r.forfeited)}
        for r in results.results],
        "byes": [{"round": n, "player": p} for n, p in zip(results.byes_round, results.byes_player)]}, indent=1) + "\n"
