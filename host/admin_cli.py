"""`tablehost status`, `tablehost admin ...` and `tablehost admin-token`: the
operator's commands, calling a front door's admin listener with an admin
token (host/admin_auth.py).

The token is TABLEHOST_ADMIN_TOKEN, else the file --token-file names
(default: the file a local `tablehost serve` without an admin secret
writes). Every action asks for a reason: it is written to the audit log and
told to the players concerned."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tablehost.host.admin_auth import DEFAULT_TOKEN_FILE

DEFAULT_ADMIN_TARGET = "127.0.0.1:50052"
TOKEN_VARIABLE = "TABLEHOST_ADMIN_TOKEN"
SECRET_VARIABLE = "TABLEHOST_ADMIN_SECRET"
DRAIN_POLL_S = 0.5


def add_admin_target_arguments(parser: argparse.ArgumentParser,
                               add_tls_ca_argument: Callable[[argparse.ArgumentParser], None]) -> None:
    parser.add_argument("--target", default=DEFAULT_ADMIN_TARGET, help="a front door's admin listener")
    parser.add_argument("--token-file", default=str(DEFAULT_TOKEN_FILE),
                        help=f"the admin token, unless {TOKEN_VARIABLE} is set (default: {DEFAULT_TOKEN_FILE})")
    add_tls_ca_argument(parser)


def add_admin_commands(commands: Any, add_tls_ca_argument: Callable[[argparse.ArgumentParser], None]) -> None:
    token = commands.add_parser("admin-token", help=f"an admin token signed with {SECRET_VARIABLE}")
    token.add_argument("admin", help="who holds it (in the audit log): 1 to 64 of A-Z a-z 0-9 . _ @ -")
    token.add_argument("--days", type=float, default=1.0, help="how long it is valid (default: 1 day)")

    admin = commands.add_parser("admin", help="administer a running host: tables and tournaments")
    actions = admin.add_subparsers(dest="action", required=True)
    tables = actions.add_parser("tables", help="list running tables")
    tables.add_argument("--game", default="", help="only this game's")
    tables.add_argument("--limit", type=int, default=100)
    tables.add_argument("--json", action="store_true", help="print the list as one JSON object")
    close = actions.add_parser("close-table", help="end a running table now; its players are told why")
    close.add_argument("table_id")
    remove_seat = actions.add_parser("remove-seat", help="take a seat from its player; the game goes on")
    remove_seat.add_argument("table_id")
    remove_seat.add_argument("seat", type=int)
    adjudicate = actions.add_parser("adjudicate", help="decide a table's result and close it")
    adjudicate.add_argument("table_id")
    adjudicate.add_argument("--places", required=True, metavar="P,P,...",
                            help="each seat's place, 0 = first, tied seats sharing one: e.g. 1,0,3,2")
    for name, what in (("pause", "start no new round until resumed"), ("resume", "start rounds again"),
                       ("cancel", "end a tournament now; its open tables close")):
        action = actions.add_parser(name, help=what)
        action.add_argument("tournament_id")
    drain = actions.add_parser("drain", help="take rooms out of service and wait until they have stopped")
    which = drain.add_mutually_exclusive_group(required=True)
    which.add_argument("--room", action="append", dest="rooms", metavar="ROOM_ID",
                       help="a room to drain (repeat for several; `tablehost status` lists them)")
    which.add_argument("--node", metavar="NODE_ID", help="drain every room on this Ray node")
    drain.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for the rooms to stop")
    remove_player = actions.add_parser("remove-player", help="withdraw a player from a tournament and its table")
    remove_player.add_argument("tournament_id")
    remove_player.add_argument("player")
    for action in actions.choices.values():
        add_admin_target_arguments(action, add_tls_ca_argument)
        if action is not tables:
            action.add_argument("--reason", required=True, help="why: for the audit log and the players concerned")


def admin_token_for_cli(token_file: str) -> str:
    """The token to call with: TABLEHOST_ADMIN_TOKEN, else the file's."""
    token = os.environ.get(TOKEN_VARIABLE, "").strip()
    if token:
        return token
    try:
        return Path(token_file).read_text().strip()
    except OSError as error:
        raise SystemExit(f"no admin token: set {TOKEN_VARIABLE}, or point --token-file at one "
                         f"(`tablehost admin-token NAME` writes one; {error.strerror}: {token_file})") from None


def print_admin_token(args: argparse.Namespace) -> int:
    from tablehost.host.admin_auth import MIN_ADMIN_SECRET_BYTES, admin_token

    secret = os.environ.get(SECRET_VARIABLE, "").encode()
    if len(secret) < MIN_ADMIN_SECRET_BYTES:
        raise SystemExit(f"tablehost admin-token: set {SECRET_VARIABLE} (at least {MIN_ADMIN_SECRET_BYTES} bytes), "
                         "the secret the host checks admin tokens with")
    if args.days <= 0:
        raise SystemExit(f"tablehost admin-token: --days takes a positive number, got {args.days}")
    try:
        print(admin_token(secret, args.admin, time.time_ns() // 1_000_000 + round(args.days * 86_400_000)))
    except ValueError as error:
        raise SystemExit(f"tablehost admin-token: {error}") from None
    return 0


async def run_admin_action(args: argparse.Namespace, tls_root_cert: bytes | None) -> int:
    """One `tablehost admin` action; a refusal raises grpc's error (the CLI
    prints its status and reason)."""
    from tablehost.clients.sdk import open_channel
    from tablehost.host.admin_auth import admin_metadata
    from tablehost.v1 import admin_pb2 as pb
    from tablehost.v1 import admin_pb2_grpc

    metadata = admin_metadata(admin_token_for_cli(args.token_file))
    async with open_channel(args.target, tls_root_cert) as channel:
        stub = admin_pb2_grpc.AdminStub(channel)
        if args.action == "drain":
            return await _drain(stub, pb, args, metadata)
        if args.action == "tables":
            listing = await stub.ListTables(pb.ListTablesRequest(game=args.game, limit=max(args.limit, 0)),
                                            metadata=metadata, timeout=30)
            _print_tables(listing, args.json)
            return 0
        call, request = _action_request(args, stub, pb)
        done = await call(request, metadata=metadata, timeout=30)
        print(done.summary)
        return 0


async def _drain(stub: Any, pb: Any, args: argparse.Namespace, metadata: tuple[tuple[str, str], ...]) -> int:
    """Drain, then follow Status until every room drained has stopped: 0 once
    they have, 1 if some had not within the timeout."""
    started = await stub.Drain(pb.DrainRequest(room_ids=args.rooms or [], node_id=args.node or "", reason=args.reason),
                               metadata=metadata, timeout=30)
    how = "moving to other rooms" if started.tables_move else "playing to their end (the host has no store)"
    print(f"draining {', '.join(started.room_ids)}: {started.tables} tables {how}")
    deadline = time.monotonic() + args.timeout
    while True:
        status = await stub.Status(pb.StatusRequest(), metadata=metadata, timeout=30)
        listed = {room.room_id: room.tables for node in status.nodes for room in node.rooms}
        left = {room_id: listed[room_id] for room_id in started.room_ids if room_id in listed}
        if not left:
            print(f"drained and stopped: {', '.join(started.room_ids)}")
            return 0
        if time.monotonic() >= deadline:
            print(f"tablehost admin drain: still draining after {args.timeout:g} s: {', '.join(sorted(left))}",
                  file=sys.stderr)
            return 1
        await asyncio.sleep(DRAIN_POLL_S)


def _action_request(args: argparse.Namespace, stub: Any, pb: Any) -> tuple[Any, Any]:
    if args.action == "close-table":
        return stub.CloseTable, pb.CloseTableRequest(table_id=args.table_id, reason=args.reason)
    if args.action == "remove-seat":
        if args.seat < 0:
            raise SystemExit(f"tablehost admin remove-seat: a seat is 0 or more, not {args.seat}")
        return stub.RemoveSeat, pb.RemoveSeatRequest(table_id=args.table_id, seat=args.seat, reason=args.reason)
    if args.action == "adjudicate":
        try:
            places = [int(place) for place in args.places.split(",")]
        except ValueError:
            raise SystemExit(f"tablehost admin adjudicate: --places takes numbers like 1,0,3,2, not {args.places!r}")
        if any(place < 0 for place in places):
            raise SystemExit("tablehost admin adjudicate: a place is 0 (first) or more")
        return stub.AdjudicateTable, pb.AdjudicateTableRequest(table_id=args.table_id, places=places,
                                                               reason=args.reason)
    if args.action == "remove-player":
        return stub.RemovePlayer, pb.RemovePlayerRequest(tournament_id=args.tournament_id, player=args.player,
                                                         reason=args.reason)
    method = {"pause": stub.PauseTournament, "resume": stub.ResumeTournament, "cancel": stub.CancelTournament}
    return method[args.action], pb.TournamentActionRequest(tournament_id=args.tournament_id, reason=args.reason)


def _print_tables(listing: Any, as_json: bool) -> None:
    if as_json:
        import json

        from google.protobuf.json_format import MessageToDict

        print(json.dumps(MessageToDict(listing, preserving_proto_field_name=True)))
        return
    for table in listing.tables:
        where = "moving" if table.resuming else table.room_id
        tournament = f"  tournament {table.tournament_id}" if table.tournament_id else ""
        print(f"{table.table_id}  {table.game}  {where}  {', '.join(table.players)}{tournament}")
    shown = len(listing.tables)
    print(f"{shown} of {listing.total} running tables" if listing.total > shown else f"{shown} running tables",
          file=sys.stderr)
