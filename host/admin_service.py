"""The admin service (tablehost.v1.Admin) of a front door: the operator's
view of the whole host, read from the lobby actor in one call."""

from __future__ import annotations

from typing import Any

import grpc
import ray
from grpc import aio

from tablehost.host.waiting import WaitingRoom
from tablehost.v1 import admin_pb2 as pb
from tablehost.v1 import admin_pb2_grpc


def host_status(status: dict[str, Any], waiting_here: int) -> pb.HostStatus:
    """The lobby's status map as the wire message."""
    return pb.HostStatus(
        nodes=[
            pb.NodeStatus(
                node_id=node["node_id"], cpus=node["cpus"], alive=node["alive"],
                rooms=[pb.RoomStatus(**room) for room in node["rooms"]],
            )
            for node in status["nodes"]
        ],
        queues=[pb.QueueStatus(**queue) for queue in status["queues"]],
        rooms=status["rooms"],
        tables=status["tables"],
        free_slots=status["free_slots"],
        tables_per_room=status["tables_per_room"],
        tables_started=status["tables_started"],
        waiting=status["waiting"],
        private_tables=status["private_tables"],
        tables_awaiting_room=status["tables_awaiting_room"],
        front_doors=status["front_doors"],
        waiting_here=waiting_here,
    )


class AdminService(admin_pb2_grpc.AdminServicer):
    def __init__(self, lobby: Any, waiting: WaitingRoom) -> None:
        self._lobby = lobby
        self._waiting = waiting

    async def Status(self, request: pb.StatusRequest, context: aio.ServicerContext) -> pb.HostStatus:
        try:
            status = await self._lobby.status.remote()
        except ray.exceptions.RayError as error:
            await context.abort(grpc.StatusCode.UNAVAILABLE, f"the lobby is unavailable: {type(error).__name__}")
        return host_status(status, self._waiting.waiting)
