"""The lobby service (tablehost.v1.Lobby) of a front door: the edge where
protobuf becomes calls on the lobby actor. It holds no game state, so any
number of front doors can serve one cluster."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import grpc
import ray
from grpc import aio

from actors.lobby import Cancelled
from games.registry import GAMES
from tablehost.v1 import lobby_pb2 as pb
from tablehost.v1 import lobby_pb2_grpc
from tablehost.v1 import table_pb2


def _assignment(fields: dict[str, Any]) -> pb.TableAssignment:
    return pb.TableAssignment(**fields)


class LobbyService(lobby_pb2_grpc.LobbyServicer):
    def __init__(self, lobby: Any) -> None:
        self._lobby = lobby

    async def _call(self, context: aio.ServicerContext, method: Any, *args: Any) -> Any:
        """One lobby-actor call, its failures turned into gRPC statuses."""
        try:
            return await method.remote(*args)
        except ray.exceptions.RayTaskError as error:
            cause = error.cause
            if isinstance(cause, Cancelled):
                await context.abort(grpc.StatusCode.CANCELLED, "left the queue")
            if isinstance(cause, KeyError):
                await context.abort(grpc.StatusCode.NOT_FOUND, str(cause.args[0]))
            if isinstance(cause, ValueError):
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(cause))
            await context.abort(grpc.StatusCode.UNAVAILABLE, f"the lobby failed: {cause}")
        except ray.exceptions.RayActorError as error:
            await context.abort(grpc.StatusCode.UNAVAILABLE, f"the lobby is unavailable: {error}")

    async def _check_game(self, game: str, context: aio.ServicerContext) -> None:
        if game not in GAMES:
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT, f"unknown game {game!r}; this host runs {', '.join(sorted(GAMES))}"
            )

    async def _wait_for_seat(self, context: aio.ServicerContext, ticket: str, method: Any, *args: Any) -> pb.TableAssignment:
        """A call that waits until its table fills; if the client hangs up
        meanwhile, its place is freed."""
        try:
            seated = await self._call(context, method, *args, ticket)
        except asyncio.CancelledError:
            self._lobby.leave_queue.remote(ticket)
            raise
        return _assignment(seated)

    async def JoinQueue(self, request: pb.JoinQueueRequest, context: aio.ServicerContext) -> pb.TableAssignment:
        await self._check_game(request.game, context)
        return await self._wait_for_seat(
            context, request.ticket or uuid.uuid4().hex,
            self._lobby.join_queue, request.game, request.variant, request.display_name,
        )

    async def LeaveQueue(self, request: pb.LeaveQueueRequest, context: aio.ServicerContext) -> pb.LeaveQueueResponse:
        removed = await self._call(context, self._lobby.leave_queue, request.ticket)
        if not removed:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"ticket {request.ticket!r} is not waiting")
        return pb.LeaveQueueResponse(removed=True)

    async def CreatePrivateTable(
        self, request: pb.CreatePrivateTableRequest, context: aio.ServicerContext
    ) -> pb.PrivateTable:
        await self._check_game(request.game, context)
        created = await self._call(
            context, self._lobby.create_private_table, request.game, request.variant, request.turn_timeout_ms
        )
        return pb.PrivateTable(**created)

    async def JoinPrivateTable(
        self, request: pb.JoinPrivateTableRequest, context: aio.ServicerContext
    ) -> pb.TableAssignment:
        return await self._wait_for_seat(
            context, request.ticket or uuid.uuid4().hex,
            self._lobby.join_private_table, request.code.upper(), request.display_name,
        )

    async def Spectate(self, request: pb.SpectateRequest, context: aio.ServicerContext) -> pb.TableAssignment:
        seated = await self._call(context, self._lobby.spectate, request.table_id)
        if seated is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no running table {request.table_id!r}")
        return _assignment(seated)

    async def LookupTable(self, request: pb.LookupTableRequest, context: aio.ServicerContext) -> table_pb2.TableLocation:
        location = await self._call(context, self._lobby.lookup_table, request.table_id)
        if location is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no running table {request.table_id!r}")
        return table_pb2.TableLocation(**location)
