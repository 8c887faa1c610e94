"""`tablehost status`: ask a front door's admin listener for the host's
state and print it for an operator (or as JSON for a script)."""

from __future__ import annotations

import json

from google.protobuf.json_format import MessageToDict
from rich.console import Console
from rich.table import Table as RichTable

from tablehost.clients.sdk import open_channel
from tablehost.host.admin_auth import admin_metadata
from tablehost.v1 import admin_pb2, admin_pb2_grpc


async def fetch_status(target: str, admin_token: str, timeout_s: float = 10.0,
                       tls_root_cert: bytes | None = None) -> admin_pb2.HostStatus:
    """The host's status from a front door's admin listener (over TLS
    trusting `tls_root_cert` when given)."""
    async with open_channel(target, tls_root_cert) as channel:
        return await admin_pb2_grpc.AdminStub(channel).Status(
            admin_pb2.StatusRequest(), metadata=admin_metadata(admin_token), timeout=timeout_s)


def status_json(status: admin_pb2.HostStatus) -> str:
    return json.dumps(MessageToDict(status, preserving_proto_field_name=True, always_print_fields_with_no_presence=True))


def print_status(status: admin_pb2.HostStatus, console: Console) -> None:
    console.print(
        f"[bold]{status.tables}[/] tables running in [bold]{status.rooms}[/] rooms "
        f"({status.tables_per_room} per room, {status.free_slots} free slots); "
        f"{status.tables_started} started so far; {status.waiting} players waiting in queues, "
        f"{status.private_tables} private tables filling; {status.front_doors} front doors"
        + (f"; [yellow]{status.tables_awaiting_room} tables waiting for a room[/]" if status.tables_awaiting_room else "")
    )
    rooms = RichTable("node", "CPUs", "room", "state", "tables", "endpoint", "pid", title="rooms per node")
    for node in status.nodes:
        label = node.node_id[:12] + ("" if node.alive else " (gone)")
        if not node.rooms:
            rooms.add_row(label, f"{node.cpus:g}", "-", "", "", "", "")
        for room in node.rooms:
            rooms.add_row(label, f"{node.cpus:g}", room.room_id, room.state, f"{room.tables}/{room.capacity}",
                          room.endpoint, str(room.pid) if room.pid else "")
            label = ""
    console.print(rooms)
    queues = RichTable("game", "variant", "seats", "partition", "waiting", "being seated", title="queues")
    for queue in status.queues:
        queues.add_row(queue.game, queue.variant or "(standard)", str(queue.seats), queue.partition or "-",
                       str(queue.waiting), str(queue.proposed))
    if status.queues:
        console.print(queues)
    else:
        console.print("no players waiting in any queue")
