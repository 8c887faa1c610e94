"""The admin console: a web page for the admin plane, served by each front
door on its admin address (--admin-host, port --console-port), beside the
admin listener and never on the players' port.

The page (console.html) calls a small JSON API here with the operator's
admin token (`Authorization: Bearer TOKEN`, kept in the tab's session
storage, never in a cookie or a URL, so no other site can act through the
operator's browser). Each call is the admin listener's own: the same guard
refuses a missing or bad token, the same Admin service validates, acts and
writes the audit log, called in-process with a context that carries the
browser's address. A table's live view is a spectator's stream, opened by
the front door and relayed to the page as server-sent events.

Bounded: request bodies of 16 KiB, at most MAX_WATCHERS live views at once
(each holds a spectator stream to a room)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
from aiohttp import web
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message

from tablehost.actors.table_directory import TableDescription
from tablehost.actors.unary_parsing import CLIENT, Refused
from tablehost.clients.sdk import Assignment, SessionDisconnected, TableSession
from tablehost.host.admin_auth import AdminGuard
from tablehost.host.admin_service import AdminService
from tablehost.host.tournament_service import TournamentService
from tablehost.v1 import admin_pb2 as pb
from tablehost.v1 import tournament_pb2

log = logging.getLogger("tablehost.host")

PAGE = Path(__file__).with_name("console.html")
MAX_BODY_BYTES = 16 * 1024
MAX_WATCHERS = 16
# How long a live view waits for its first snapshot.
WATCH_CONNECT_S = 10.0
# HTTP statuses for the gRPC statuses an admin call ends with.
HTTP_STATUS = {
    grpc.StatusCode.INVALID_ARGUMENT: 400, grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.PERMISSION_DENIED: 403, grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.FAILED_PRECONDITION: 409, grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429, grpc.StatusCode.UNAVAILABLE: 503,
}


class CallEnded(Exception):
    """An admin call's abort, as the console's context raises it."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(details)
        self.code = code
        self.details = details


class ConsoleContext:
    """What the Admin service reads of a gRPC context, for a call that came
    over HTTP: the browser's address as the peer, its token as metadata."""

    def __init__(self, token_header: str, peer: str) -> None:
        self._metadata = (("authorization", token_header),) if token_header else ()
        self._peer = peer
        self._code: grpc.StatusCode | None = None
        self._details = ""

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata

    def peer(self) -> str:
        return self._peer

    def code(self) -> grpc.StatusCode | None:
        return self._code

    def details(self) -> str:
        return self._details

    async def abort(self, code: grpc.StatusCode, details: str) -> None:
        self._code, self._details = code, details
        raise CallEnded(code, details)


class Console:
    """The console's HTTP server on `host:port` (0: any free port)."""

    def __init__(self, admin: AdminService, tournaments: TournamentService, guard: AdminGuard, lobby: Any,
                 host: str, port: int, tls_root_cert: bytes | None = None) -> None:
        self._admin = admin
        self._tournaments = tournaments
        self._guard = guard
        self._lobby = lobby
        self._host, self._port = host, port
        self._tls_root_cert = tls_root_cert
        self._watchers = 0
        self._runner: web.AppRunner | None = None
        self.port = 0

    @property
    def address(self) -> str:
        return f"{self._host}:{self.port}"

    async def start(self) -> None:
        app = web.Application(client_max_size=MAX_BODY_BYTES)
        app.add_routes([
            web.get("/", self._page),
            web.get("/api/status", self._status),
            web.get("/api/tables", self._tables),
            web.post("/api/tables/{table_id}/close", self._close_table),
            web.post("/api/tables/{table_id}/remove-seat", self._remove_seat),
            web.post("/api/tables/{table_id}/adjudicate", self._adjudicate),
            web.get("/api/tables/{table_id}/watch", self._watch),
            web.get("/api/tournaments", self._tournaments_in_play),
            web.get("/api/tournaments/{tournament_id}", self._tournament),
            web.post("/api/tournaments/{tournament_id}/{action:pause|resume|cancel}", self._tournament_action),
            web.post("/api/tournaments/{tournament_id}/remove-player", self._remove_player),
        ])
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self._host, self._port)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # -- the page and the API -----------------------------------------------------------

    async def _page(self, request: web.Request) -> web.Response:
        return web.Response(body=PAGE.read_bytes(), content_type="text/html", charset="utf-8",
                            headers={"Content-Security-Policy": "default-src 'self'; script-src 'self' 'unsafe-inline'; "
                                                                "style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
                                     "Cache-Control": "no-store"})

    async def _status(self, request: web.Request) -> web.Response:
        return await self._call(request, lambda context: self._admin.Status(pb.StatusRequest(), context))

    async def _tables(self, request: web.Request) -> web.Response:
        game = request.query.get("game", "")
        limit = request.query.get("limit", "")
        return await self._call(request, lambda context: self._admin.ListTables(
            pb.ListTablesRequest(game=game, limit=int(limit[:6]) if limit.isdigit() else 0), context))

    async def _close_table(self, request: web.Request) -> web.Response:
        body = await _body(request)
        return await self._call(request, lambda context: self._admin.CloseTable(pb.CloseTableRequest(
            table_id=request.match_info["table_id"], reason=str(body.get("reason", ""))), context))

    async def _remove_seat(self, request: web.Request) -> web.Response:
        body = await _body(request)
        return await self._call(request, lambda context: self._admin.RemoveSeat(pb.RemoveSeatRequest(
            table_id=request.match_info["table_id"], seat=_count(body.get("seat")), reason=str(body.get("reason", ""))),
            context))

    async def _adjudicate(self, request: web.Request) -> web.Response:
        body = await _body(request)
        places = body.get("places")
        return await self._call(request, lambda context: self._admin.AdjudicateTable(pb.AdjudicateTableRequest(
            table_id=request.match_info["table_id"], reason=str(body.get("reason", "")),
            places=[_count(place) for place in places] if isinstance(places, list) else []), context))

    async def _tournaments_in_play(self, request: web.Request) -> web.Response:
        async def in_play(context: ConsoleContext) -> list[dict[str, Any]]:
            return [dataclasses.asdict(entry) for entry in await self._lobby.tournament_rounds.remote()]
        return await self._call(request, in_play)

    async def _tournament(self, request: web.Request) -> web.Response:
        return await self._call(request, lambda context: self._tournaments.GetTournament(
            tournament_pb2.GetTournamentRequest(tournament_id=request.match_info["tournament_id"], page_size=100),
            context))

    async def _tournament_action(self, request: web.Request) -> web.Response:
        body = await _body(request)
        action = {"pause": self._admin.PauseTournament, "resume": self._admin.ResumeTournament,
                  "cancel": self._admin.CancelTournament}[request.match_info["action"]]
        return await self._call(request, lambda context: action(pb.TournamentActionRequest(
            tournament_id=request.match_info["tournament_id"], reason=str(body.get("reason", ""))), context))

    async def _remove_player(self, request: web.Request) -> web.Response:
        body = await _body(request)
        return await self._call(request, lambda context: self._admin.RemovePlayer(pb.RemovePlayerRequest(
            tournament_id=request.match_info["tournament_id"], player=str(body.get("player", "")),
            reason=str(body.get("reason", ""))), context))

    async def _call(self, request: web.Request, call: Callable[[ConsoleContext], Awaitable[Any]]) -> web.Response:
        """Admit the request as the admin listener would, make the call, and
        answer its message as JSON (or its refusal, with its status)."""
        context = ConsoleContext(request.headers.get("Authorization", ""), f"ipv4:{request.remote}")
        try:
            CLIENT.set(self._guard.client_of(context))
            answer = await call(context)
        except Refused as refused:
            return _refusal(refused.code, refused.details)
        except CallEnded as ended:
            return _refusal(ended.code, ended.details)
        return web.json_response(_plain(answer))

    async def _watch(self, request: web.Request) -> web.StreamResponse:
        """The table as a spectator sees it, change by change, as server-sent
        events: `{"seq", "kind", "view"}` each, until the table ends or the
        page goes."""
        context = ConsoleContext(request.headers.get("Authorization", ""), f"ipv4:{request.remote}")
        try:
            self._guard.client_of(context)
        except Refused as refused:
            return _refusal(refused.code, refused.details)
        if self._watchers >= MAX_WATCHERS:
            return _refusal(grpc.StatusCode.RESOURCE_EXHAUSTED, f"{MAX_WATCHERS} live views are open already")
        table_id = request.match_info["table_id"]
        described = (await self._lobby.describe_tables.remote([table_id])).get(table_id)
        if described is None or described.resuming:
            return _refusal(grpc.StatusCode.NOT_FOUND, f"no table {table_id!r} is being served now")
        self._watchers += 1
        try:
            return await self._relay(request, table_id, described)
        finally:
            self._watchers -= 1

    async def _relay(self, request: web.Request, table_id: str, described: TableDescription) -> web.StreamResponse:
        assignment = Assignment(table_id, described.endpoint, -1, described.spectator_token, described.game,
                                described.players, "", described.commitment)
        try:
            session = await TableSession.connect(assignment, None, connect_timeout=WATCH_CONNECT_S,
                                                 tls_root_cert=self._tls_root_cert)
        except (SessionDisconnected, TimeoutError) as error:
            return _refusal(grpc.StatusCode.UNAVAILABLE, f"the table's stream did not open: {error}")
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store"})
        await response.prepare(request)
        updates = session.subscribe()
        try:
            await _send(response, {"seq": session.seq, "kind": "snapshot", "view": session.view,
                                   "players": list(assignment.display_names), "game": assignment.game})
            while True:
                update = await updates.get()
                await _send(response, {"seq": update.seq, "kind": update.kind, "view": update.view})
                if update.kind in ("game_over", "disconnected"):
                    break
        except (ConnectionResetError, asyncio.CancelledError):
            pass  # the page went away
        finally:
            await session.close()
        return response


async def _send(response: web.StreamResponse, event: dict[str, Any]) -> None:
    await response.write(f"data: {json.dumps(event, default=_jsonable)}\n\n".encode())


def _jsonable(value: Any) -> Any:
    """Views hold bytes (a game's own data): shown as hex."""
    if isinstance(value, bytes):
        return value.hex()
    return str(value)


async def _body(request: web.Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except (ValueError, UnicodeDecodeError):
        return {}
    return body if isinstance(body, dict) else {}


def _count(value: Any) -> int:
    """A seat or a place from JSON: a non-negative integer, else a value the
    service refuses (a seat the table does not have)."""
    return value if isinstance(value, int) and 0 <= value < 2**31 else 2**31


def _plain(answer: Any) -> Any:
    return MessageToDict(answer, preserving_proto_field_name=True) if isinstance(answer, Message) else answer


def _refusal(code: grpc.StatusCode, details: str) -> web.Response:
    return web.json_response({"code": code.name, "details": details}, status=HTTP_STATUS.get(code, 500))

