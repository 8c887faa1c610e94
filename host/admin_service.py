"""The admin service (tablehost.v1.Admin), served on a front door's admin
listener only: the host's status from a snapshot refreshed at most once an
interval, and what an administrator does to tables (through the lobby) and
tournaments (through their actors). Every action is written to the audit
log with who asked, what, why and how it ended."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import ray
from grpc import aio

from tablehost.actors.drains import DrainRefused, DrainStarted
from tablehost.actors.lobby_status import LobbyStatus
from tablehost.actors.matchmaking import LobbyRefused
from tablehost.actors.table_admin import MAX_LISTED, TableListing
from tablehost.actors.unary_parsing import CLIENT
from tablehost.host.admin_auth import ADMIN_PREFIX, audit
from tablehost.host.lobby_service import STATUS_OF_REFUSAL, BadRequest, check_key, check_text
from tablehost.host.tournament_service import TournamentService
from tablehost.host.waiting import WaitingLine
from tablehost.v1 import admin_pb2 as pb
from tablehost.v1 import admin_pb2_grpc

# How old a status snapshot may be before a Status call refreshes it.
STATUS_INTERVAL_S = 1.0
MAX_REASON = 200
MAX_TABLE_ID = 128
MAX_PLAYER = 64


def host_status(status: LobbyStatus, waiting_here: int, age_s: float) -> pb.HostStatus:
    """The lobby's status as the wire message."""
    return pb.HostStatus(
        nodes=[
            pb.NodeStatus(
                node_id=node.node_id, cpus=node.cpus, alive=node.alive,
                rooms=[pb.RoomStatus(**dataclasses.asdict(room)) for room in node.rooms],
            )
            for node in status.nodes
        ],
        queues=[pb.QueueStatus(**dataclasses.asdict(queue)) for queue in status.queues],
        rooms=status.rooms,
        tables=status.tables,
        free_slots=status.free_slots,
        tables_per_room=status.tables_per_room,
        tables_started=status.tables_started,
        waiting=status.waiting,
        private_tables=status.private_tables,
        tables_awaiting_room=status.tables_awaiting_room,
        front_doors=status.front_doors,
        waiting_here=waiting_here,
        age_s=age_s,
    )


def table_list(listing: TableListing) -> pb.TableList:
    return pb.TableList(total=listing.total, tables=[
        pb.TableSummary(table_id=t.table_id, game=t.game, variant=t.variant, room_id=t.room_id, players=t.players,
                        started_ms=t.started_ms, resuming=t.resuming, tournament_id=t.tournament_id)
        for t in listing.tables])


class StatusCache:
    """The lobby's status, asked at most once per `interval_s` however many
    call: callers meanwhile get the snapshot (and its age), and callers while
    it is being refreshed share that one call."""

    def __init__(self, read: Callable[[], Awaitable[LobbyStatus]], interval_s: float = STATUS_INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._read = read
        self.interval_s = interval_s
        self._clock = clock
        self._status: LobbyStatus | None = None
        self._taken_at = 0.0
        self._refreshing: asyncio.Future[None] | None = None

    async def get(self) -> tuple[LobbyStatus, float]:
        """The snapshot and its age in seconds."""
        if self._status is None or self._clock() - self._taken_at >= self.interval_s:
            if self._refreshing is None:
                self._refreshing = asyncio.ensure_future(self._refresh())
            await asyncio.shield(self._refreshing)
        assert self._status is not None
        return self._status, self._clock() - self._taken_at

    async def _refresh(self) -> None:
        try:
            status = await self._read()
            self._status, self._taken_at = status, self._clock()
        finally:
            self._refreshing = None


class AdminService(admin_pb2_grpc.AdminServicer):
    def __init__(self, lobby: Any, waiting: WaitingLine, tournaments: TournamentService,
                 status_interval_s: float = STATUS_INTERVAL_S) -> None:
        self._lobby = lobby
        self._waiting = waiting
        self._tournaments = tournaments
        self._status = StatusCache(lambda: lobby.status.remote(), status_interval_s)

    async def Status(self, request: pb.StatusRequest, context: aio.ServicerContext) -> pb.HostStatus:
        try:
            status, age_s = await self._status.get()
        except ray.exceptions.RayError as error:
            await context.abort(grpc.StatusCode.UNAVAILABLE, f"the lobby is unavailable: {type(error).__name__}")
        return host_status(status, self._waiting.waiting, age_s)

    async def ListTables(self, request: pb.ListTablesRequest, context: aio.ServicerContext) -> pb.TableList:
        game = await _checked(context, lambda: check_text("game", request.game, 64))
        listing = await self._lobby_call(context, self._lobby.list_tables.remote(game, min(request.limit, MAX_LISTED)))
        return table_list(listing)

    async def CloseTable(self, request: pb.CloseTableRequest, context: aio.ServicerContext) -> pb.AdminDone:
        table_id, reason = await _checked(context, lambda: (_table_id(request.table_id), _reason(request.reason)))
        return await self._act(context, "close_table", {"table_id": table_id, "reason": reason},
                               self._lobby_call(context, self._lobby.close_table.remote(table_id, reason)))

    async def RemoveSeat(self, request: pb.RemoveSeatRequest, context: aio.ServicerContext) -> pb.AdminDone:
        table_id, reason = await _checked(context, lambda: (_table_id(request.table_id), _reason(request.reason)))
        return await self._act(
            context, "remove_seat", {"table_id": table_id, "seat": request.seat, "reason": reason},
            self._lobby_call(context, self._lobby.remove_seat.remote(table_id, request.seat, reason)))

    async def AdjudicateTable(self, request: pb.AdjudicateTableRequest, context: aio.ServicerContext) -> pb.AdminDone:
        table_id, reason = await _checked(context, lambda: (_table_id(request.table_id), _reason(request.reason)))
        places = list(request.places)
        return await self._act(
            context, "adjudicate_table", {"table_id": table_id, "places": places, "reason": reason},
            self._lobby_call(context, self._lobby.adjudicate_table.remote(table_id, places, reason)))

    async def PauseTournament(self, request: pb.TournamentActionRequest, context: aio.ServicerContext) -> pb.AdminDone:
        return await self._tournament_action(context, "pause", request)

    async def ResumeTournament(self, request: pb.TournamentActionRequest,
                               context: aio.ServicerContext) -> pb.AdminDone:
        return await self._tournament_action(context, "resume", request)

    async def CancelTournament(self, request: pb.TournamentActionRequest,
                               context: aio.ServicerContext) -> pb.AdminDone:
        return await self._tournament_action(context, "cancel", request, request.reason)

    async def RemovePlayer(self, request: pb.RemovePlayerRequest, context: aio.ServicerContext) -> pb.AdminDone:
        player, reason = await _checked(context, lambda: (check_key("player", request.player, MAX_PLAYER),
                                                         _reason(request.reason)))
        return await self._act(
            context, "remove_player", {"tournament_id": request.tournament_id, "player": player, "reason": reason},
            self._tournaments.administer(context, request.tournament_id, "remove_player", player, reason))

    async def Drain(self, request: pb.DrainRequest, context: aio.ServicerContext) -> pb.DrainStarted:
        room_ids = list(request.room_ids)
        node_id, reason = await _checked(context, lambda: (check_text("node_id", request.node_id, MAX_TABLE_ID),
                                                          _reason(request.reason)))
        if len(room_ids) > MAX_LISTED or any(len(room_id) > MAX_TABLE_ID for room_id in room_ids):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                f"at most {MAX_LISTED} room ids of at most {MAX_TABLE_ID} characters")
        started = await self._act(context, "drain", {"room_ids": room_ids, "node_id": node_id, "reason": reason},
                                  self._drain(context, room_ids, node_id))
        return pb.DrainStarted(room_ids=started.rooms, tables=started.tables, tables_move=started.tables_move)

    async def _drain(self, context: aio.ServicerContext, room_ids: list[str], node_id: str) -> DrainStarted:
        answer = await self._lobby_call(context, self._lobby.drain.remote(room_ids, node_id))
        if isinstance(answer, DrainRefused):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, answer.error)
        return answer

    async def _tournament_action(self, context: aio.ServicerContext, method: str,
                                 request: pb.TournamentActionRequest, *args: Any) -> pb.AdminDone:
        reason = await _checked(context, lambda: _reason(request.reason))
        return await self._act(context, f"{method}_tournament",
                               {"tournament_id": request.tournament_id, "reason": reason},
                               self._tournaments.administer(context, request.tournament_id, method, *args))

    async def _act(self, context: aio.ServicerContext, action: str, fields: dict[str, Any],
                   doing: Awaitable[Any]) -> Any:
        """Carry out one action and write its audit line, done or refused; a
        summary line is answered as AdminDone, anything else (a record) as
        it is, written to the audit line as JSON."""
        admin = CLIENT.get().removeprefix(ADMIN_PREFIX)
        try:
            outcome = await doing
        except BaseException:
            # context.abort raises; its status is the refusal the caller gets.
            code = context.code()
            audit(action, admin=admin, peer=context.peer(), outcome="refused", status=getattr(code, "name", str(code)),
                  why=str(context.details() or ""), **fields)
            raise
        summary = outcome if isinstance(outcome, str) else json.dumps(dataclasses.asdict(outcome), sort_keys=True)
        audit(action, admin=admin, peer=context.peer(), outcome="done", summary=summary, **fields)
        return pb.AdminDone(summary=outcome) if isinstance(outcome, str) else outcome

    async def _lobby_call(self, context: aio.ServicerContext, awaitable: Any) -> Any:
        try:
            return await awaitable
        except ray.exceptions.RayTaskError as error:
            if isinstance(error.cause, LobbyRefused):
                await context.abort(STATUS_OF_REFUSAL[error.cause.refusal], error.cause.message)
            await context.abort(grpc.StatusCode.INTERNAL, f"the lobby failed: {type(error.cause).__name__}")
        except ray.exceptions.RayActorError as error:
            await context.abort(grpc.StatusCode.UNAVAILABLE, f"the lobby is unavailable: {error}")


async def _checked(context: aio.ServicerContext, check: Callable[[], Any]) -> Any:
    try:
        return check()
    except BadRequest as error:
        await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))


def _table_id(value: str) -> str:
    return check_key("table_id", value, MAX_TABLE_ID)


def _reason(value: str) -> str:
    """Every action says why: it goes to the audit log and to the players."""
    reason = check_text("reason", value.strip(), MAX_REASON)
    if not reason:
        raise BadRequest("reason is empty; say why (it goes to the audit log and to the players concerned)")
    return reason
