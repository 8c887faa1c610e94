"""`tablehost drain`: take rooms out of service before an upgrade or before
a node is retired. The lobby places no new table in them and starts their
replacements; with a store their tables move to other rooms at once (the
players reconnect there, nothing acknowledged is lost), without one their
games play to the end. Each room stops once it holds no table.

It talks to the lobby through Ray, not through the front door: whoever can
reach the front door is a player, and only an operator, who can reach the
cluster, may take rooms out of service."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tablehost.actors.lobby_status import LobbyStatus

DEFAULT_TIMEOUT_S = 600.0
_POLL_S = 0.5


def add_drain_arguments(parser: argparse.ArgumentParser) -> None:
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--room", action="append", dest="rooms", metavar="ROOM_ID",
                       help="a room to drain (repeat for several; `tablehost status` lists them)")
    which.add_argument("--node", metavar="NODE_ID", help="drain every room on this Ray node")
    parser.add_argument("--address", default=os.environ.get("RAY_ADDRESS", "auto"),
                        help="the Ray cluster the host runs on (default: $RAY_ADDRESS, else auto)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S,
                        help=f"seconds to wait for the rooms to empty and stop (default {DEFAULT_TIMEOUT_S:g})")


def _rooms_left(status: LobbyStatus, room_ids: tuple[str, ...]) -> dict[str, int]:
    """Of `room_ids`, those the lobby still lists, with their tables."""
    rooms = {room.room_id: room for node in status.nodes for room in node.rooms}
    return {room_id: rooms[room_id].tables for room_id in room_ids if room_id in rooms}


def drain_rooms(lobby: Any, room_ids: list[str], node_id: str, timeout_s: float,
                say: Callable[[str], None] = print) -> int:
    """Drain through `lobby` (the lobby actor's handle) and wait until every
    room drained has stopped: 0 when they have, 1 if some had not within
    `timeout_s`, 2 if the lobby refused the request (nothing was changed)."""
    import ray

    from tablehost.actors.drains import DrainRefused

    answer = ray.get(lobby.drain.remote(room_ids, node_id))
    if isinstance(answer, DrainRefused):
        say(f"tablehost drain: {answer.error}")
        return 2
    draining = answer.rooms
    how = "moving to other rooms" if answer.tables_move else "playing to their end (the host has no store)"
    say(f"draining {', '.join(draining)}: {answer.tables} tables {how}")
    deadline = time.monotonic() + timeout_s
    shown: dict[str, int] = {}
    while left := _rooms_left(ray.get(lobby.status.remote()), draining):
        if left != shown:
            say("  " + ", ".join(f"{room_id}: {tables} tables" for room_id, tables in sorted(left.items())))
            shown = left
        if time.monotonic() >= deadline:
            say(f"tablehost drain: still draining after {timeout_s:g} s: {', '.join(sorted(left))}")
            return 1
        time.sleep(_POLL_S)
    say(f"drained and stopped: {', '.join(draining)}")
    return 0


def run_drain(args: argparse.Namespace) -> int:
    import ray

    from tablehost.actors.lobby import LOBBY_NAME, NAMESPACE

    ray.init(address=args.address, namespace=NAMESPACE, log_to_driver=False, configure_logging=False)
    try:
        lobby = ray.get_actor(LOBBY_NAME, namespace=NAMESPACE)
    except ValueError:
        print(f"tablehost drain: no tablehost lobby on the Ray cluster at {args.address}", file=sys.stderr)
        return 2
    return drain_rooms(lobby, args.rooms or [], args.node or "", args.timeout)
