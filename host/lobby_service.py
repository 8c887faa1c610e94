"""The lobby service (tablehost.v1.Lobby) of a front door: the edge where
protobuf becomes calls on the lobby actor, and where bad requests stop.

Waiting players wait here (host/waiting.py), not in a Ray call each. Every
request is checked before it reaches the lobby: a known game, a variant the
game declares, bounded names and tickets, join data the game accepts; each
refusal has its own status. Each call is its client's (the guard named it,
host/call_guard.py): a client waits for a few seats at most, and LookupTable
and Spectate cost the lobby one call per batch of them, not one each
(host/table_locations.py)."""

from __future__ import annotations

import logging
import uuid
from typing import Any

import grpc
import msgpack
import ray
from grpc import aio

from tablehost.actors.door_exchange import CODE_ALPHABET, CODE_LENGTH, DoorJoin
from tablehost.actors.matchmaking import LobbyRefused, Refusal
from tablehost.actors.tokens import SPECTATOR_SEAT
from tablehost.actors.unary_parsing import CLIENT
from tablehost.games.engine.rules import InvalidJoin
from tablehost.games.registry import GameCatalog, UnknownGame, UnknownVariant
from tablehost.host.quotas import OverQuota, Quotas
from tablehost.host.table_locations import TableLocations
from tablehost.host.waiting import WaitingLine
from tablehost.v1 import lobby_pb2 as pb
from tablehost.v1 import lobby_pb2_grpc, table_pb2

log = logging.getLogger("tablehost.front_door")

MAX_DISPLAY_NAME = 64
MAX_TICKET = 64
MAX_TABLE_ID = 128
MAX_JOIN_DATA_BYTES = 4096

STATUS_OF_REFUSAL = {
    Refusal.NOT_FOUND: grpc.StatusCode.NOT_FOUND,
    Refusal.ALREADY_EXISTS: grpc.StatusCode.ALREADY_EXISTS,
    Refusal.INVALID_ARGUMENT: grpc.StatusCode.INVALID_ARGUMENT,
    Refusal.FAILED_PRECONDITION: grpc.StatusCode.FAILED_PRECONDITION,
    Refusal.RESOURCE_EXHAUSTED: grpc.StatusCode.RESOURCE_EXHAUSTED,
    Refusal.UNAVAILABLE: grpc.StatusCode.UNAVAILABLE,
    Refusal.CANCELLED: grpc.StatusCode.CANCELLED,
    Refusal.INTERNAL: grpc.StatusCode.INTERNAL,
}


class BadRequest(ValueError):
    """A request field out of bounds; INVALID_ARGUMENT with this message."""


def check_text(field_name: str, value: str, limit: int) -> str:
    if len(value) > limit:
        raise BadRequest(f"{field_name} is {len(value)} characters; at most {limit} are allowed")
    if any(not ch.isprintable() for ch in value):
        raise BadRequest(f"{field_name} contains control characters")
    return value


def check_key(field_name: str, value: str, limit: int) -> str:
    """A ticket or table id to look up: not empty, bounded, printable. What
    cannot name anything is refused here and never costs the lobby a call."""
    if not value:
        raise BadRequest(f"{field_name} is empty")
    return check_text(field_name, value, limit)


def decode_join_data(data: bytes) -> dict[str, Any]:
    """A player's join data: a msgpack map with string keys (the game checks
    what is in it), at most MAX_JOIN_DATA_BYTES."""
    if not data:
        return {}
    if len(data) > MAX_JOIN_DATA_BYTES:
        raise BadRequest(f"join_data is {len(data)} bytes; at most {MAX_JOIN_DATA_BYTES} are allowed")
    try:
        decoded = msgpack.unpackb(data, raw=False, strict_map_key=True)
    except Exception as error:  # msgpack raises several unrelated types for bad bytes
        raise BadRequest(f"join_data is not msgpack: {type(error).__name__}") from None
    if not isinstance(decoded, dict):
        raise BadRequest(f"join_data is a msgpack map, not {type(decoded).__name__}")
    return decoded


def check_code(code: str) -> str:
    code = code.strip().upper()
    if len(code) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
        raise BadRequest(f"a private table code is {CODE_LENGTH} characters of {CODE_ALPHABET}, not {code[:16]!r}")
    return code


class LobbyService(lobby_pb2_grpc.LobbyServicer):
    def __init__(self, lobby: Any, waiting: WaitingLine, catalog: GameCatalog, quotas: Quotas) -> None:
        self._lobby = lobby
        self._waiting = waiting
        self._catalog = catalog
        self._quotas = quotas
        self._locations = TableLocations(lambda table_ids: lobby.describe_tables.remote(table_ids))

    async def JoinQueue(self, request: pb.JoinQueueRequest, context: aio.ServicerContext) -> pb.TableAssignment:
        try:
            self._catalog.check_variant(request.game, request.variant)
            name = check_text("display_name", request.display_name, MAX_DISPLAY_NAME)
            ticket = check_text("ticket", request.ticket, MAX_TICKET) or uuid.uuid4().hex
            join_data = self._catalog.rules(request.game).accepted_join(decode_join_data(request.join_data))
        except InvalidJoin as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"join data refused by {request.game}: {error}")
        except (UnknownGame, UnknownVariant, BadRequest) as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error.args[0]))
        return await self._wait_for_seat(context, DoorJoin(ticket, name, join_data, self._client(), game=request.game,
                                                           variant=request.variant, seats=request.seats))

    async def JoinPrivateTable(
        self, request: pb.JoinPrivateTableRequest, context: aio.ServicerContext
    ) -> pb.TableAssignment:
        try:
            code = check_code(request.code)
            name = check_text("display_name", request.display_name, MAX_DISPLAY_NAME)
            ticket = check_text("ticket", request.ticket, MAX_TICKET) or uuid.uuid4().hex
            join_data = decode_join_data(request.join_data)
        except BadRequest as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
        return await self._wait_for_seat(context, DoorJoin(ticket, name, join_data, self._client(), code=code))

    async def LeaveQueue(self, request: pb.LeaveQueueRequest, context: aio.ServicerContext) -> pb.LeaveQueueResponse:
        try:
            ticket = check_key("ticket", request.ticket, MAX_TICKET)
        except BadRequest as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
        removed = await self._call(context, self._waiting.leave(ticket))
        if not removed:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"ticket {ticket!r} is not waiting")
        return pb.LeaveQueueResponse(removed=True)

    async def CreatePrivateTable(
        self, request: pb.CreatePrivateTableRequest, context: aio.ServicerContext
    ) -> pb.PrivateTable:
        try:
            self._catalog.check_variant(request.game, request.variant)
        except (UnknownGame, UnknownVariant) as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error.args[0]))
        created = await self._call(
            context,
            self._lobby.create_private_table.remote(request.game, request.variant, request.turn_timeout_ms,
                                                    request.seats, self._client()),
        )
        return pb.PrivateTable(code=created.code, game=created.game, seats=created.seats)

    async def Spectate(self, request: pb.SpectateRequest, context: aio.ServicerContext) -> pb.TableAssignment:
        try:
            table_id = check_key("table_id", request.table_id, MAX_TABLE_ID)
        except BadRequest as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
        table = await self._call(context, self._locations.describe(table_id))
        if table.resuming:
            await context.abort(grpc.StatusCode.UNAVAILABLE,
                                f"table {table_id} is moving to another room; try again shortly")
        return pb.TableAssignment(table_id=table_id, endpoint=table.endpoint, seat=SPECTATOR_SEAT,
                                  seat_token=table.spectator_token, game=table.game,
                                  display_names=table.players, ticket="", deal_commitment=table.commitment)

    async def LookupTable(self, request: pb.LookupTableRequest, context: aio.ServicerContext) -> table_pb2.TableLocation:
        try:
            table_id = check_key("table_id", request.table_id, MAX_TABLE_ID)
        except BadRequest as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
        table = await self._call(context, self._locations.describe(table_id))
        return table_pb2.TableLocation(table_id=table_id, endpoint=table.endpoint, running=not table.resuming)

    def _client(self) -> str:
        """The call's client as the lobby's own limits see it: none at all
        for a client the operator exempted (actors/client_limits.py)."""
        client = CLIENT.get()
        return "" if self._quotas.exempt(client) else client

    async def _wait_for_seat(self, context: aio.ServicerContext, join: DoorJoin) -> pb.TableAssignment:
        """Wait at this front door until the lobby seats the ticket. If the
        client hangs up, gRPC cancels this call and the ticket leaves. A
        client waits for a few seats at once at most (host/quotas.py)."""
        client = CLIENT.get()
        try:
            self._quotas.hold_join(client)
        except OverQuota as error:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(error))
        try:
            seated: pb.TableAssignment = await self._call(context, self._waiting.wait_for_seat(join))
        finally:
            self._quotas.release_join(client)
        return seated

    async def _call(self, context: aio.ServicerContext, awaitable: Any) -> Any:
        """Await a lobby step; its refusals become their gRPC statuses."""
        try:
            return await awaitable
        except LobbyRefused as refused:
            await _abort(context, refused)
        except ray.exceptions.RayTaskError as error:
            if isinstance(error.cause, LobbyRefused):
                await _abort(context, error.cause)
            log.error("the lobby failed unexpectedly: %s", error)
            await context.abort(grpc.StatusCode.INTERNAL, f"the lobby failed: {type(error.cause).__name__}")
        except ray.exceptions.RayActorError as error:
            await context.abort(grpc.StatusCode.UNAVAILABLE, f"the lobby is unavailable: {error}")


async def _abort(context: aio.ServicerContext, refused: LobbyRefused) -> None:
    """End the call with the refusal's status (context.abort raises)."""
    await context.abort(STATUS_OF_REFUSAL[refused.refusal], refused.message)
