"""The web gateway: the protocol for browsers, which cannot open a
bidirectional gRPC stream (gRPC-Web carries unary and server-streaming calls
only). Each front door serves it on --web-port of its players' address,
beside the web table (host/web/), and carries the same messages another way:

- a unary call of the Lobby or Tournaments service is an HTTP POST of the
  request's protobuf bytes to `/v1/rpc/SERVICE/METHOD`; the answer is the
  reply's bytes, or a JSON `{"code", "details"}` with the gRPC status;
- a stream (a table's `Play`, `WatchTournament`) is a WebSocket at
  `/v1/stream/SERVICE/METHOD`: binary frames carry the messages each way,
  and the last frame, a text one, is the status the call ended with.

Every call is relayed to the host's own gRPC services, so the tokens, the
bounds and the rate limits are theirs: lobby calls go to this front door's
services on a private Unix socket, carrying the browser's address in metadata
signed with a key only this process knows (so the quotas count the browser, not the gateway); a
table stream goes to the room the seat token's table is served by (the token
checked here, the room asked of the lobby, never taken from the browser), whose checks, budgets and queue
limits apply as to any stream. The gateway adds its own bounds: frames and
bodies of 16 KiB, the first message within the hello timeout, and a cap of
open streams in all and per address.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import ssl
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
from aiohttp import WSMsgType, web
from grpc import aio

from tablehost.actors.tokens import TokenError, verify_seat_token
from tablehost.host.identity import FORWARDED_CLIENT, forwarded_client
from tablehost.v1 import lobby_pb2, table_pb2

log = logging.getLogger("tablehost.host")

STATIC = Path(__file__).with_name("web")
MAX_MESSAGE_BYTES = 16 * 1024
MAX_STREAMS = 4096
MAX_STREAMS_PER_ADDRESS = 64
UNARY_METHODS = frozenset({
    "tablehost.v1.Lobby/JoinQueue", "tablehost.v1.Lobby/LeaveQueue", "tablehost.v1.Lobby/CreatePrivateTable",
    "tablehost.v1.Lobby/JoinPrivateTable", "tablehost.v1.Lobby/Spectate", "tablehost.v1.Lobby/LookupTable",
    "tablehost.v1.Tournaments/CreateTournament", "tablehost.v1.Tournaments/Register",
    "tablehost.v1.Tournaments/Withdraw", "tablehost.v1.Tournaments/StartTournament",
    "tablehost.v1.Tournaments/GetTournament", "tablehost.v1.Tournaments/GetResults",
})
PLAY = "tablehost.v1.Table/Play"
WATCH = "tablehost.v1.Tournaments/WatchTournament"
# HTTP statuses for the gRPC statuses a unary call ends with (the JSON body says which).
HTTP_STATUS = {
    grpc.StatusCode.INVALID_ARGUMENT: 400, grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.PERMISSION_DENIED: 403, grpc.StatusCode.NOT_FOUND: 404, grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.FAILED_PRECONDITION: 409, grpc.StatusCode.ABORTED: 409, grpc.StatusCode.CANCELLED: 499,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429, grpc.StatusCode.DEADLINE_EXCEEDED: 504,
    grpc.StatusCode.UNAVAILABLE: 503,
}
STATIC_FILES = {"/": ("index.html", "text/html"), "/table.js": ("table.js", "text/javascript"),
                "/table.css": ("table.css", "text/css")}


def status_json(code: grpc.StatusCode, details: str) -> str:
    return json.dumps({"code": code.value[0], "details": details})


class WebGateway:
    """The browsers' way in, relaying to this front door's services and to
    the rooms."""

    def __init__(self, door_target: str, forward_key: str, token_secret: bytes, host: str, port: int,
                 hello_timeout_s: float, tls: tuple[bytes, bytes] | None = None) -> None:
        """`door_target`: this front door's private socket (FrontDoor binds
        it). `tls`: the host's certificate chain and key (PEM). Given, the
        web port serves HTTPS and WSS only, as the gRPC ports serve TLS only,
        and the table streams relayed to rooms trust that certificate."""
        self.door_target = door_target
        self.token_secret = token_secret
        self.forward_key = forward_key
        self.host = host
        self.port = port
        self.hello_timeout_s = hello_timeout_s
        self._tls = tls
        self._credentials = grpc.ssl_channel_credentials(tls[0]) if tls else None  # to the rooms
        self._door: aio.Channel | None = None
        self._runner: web.AppRunner | None = None
        self._streams: Counter[str] = Counter()

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def scheme(self) -> str:
        return "https" if self._tls else "http"

    def _room_channel(self, target: str) -> aio.Channel:
        if self._credentials is not None:
            return aio.secure_channel(target, self._credentials)
        return aio.insecure_channel(target)

    async def start(self) -> None:
        self._door = aio.insecure_channel(self.door_target)  # the door's private socket
        app = web.Application(client_max_size=MAX_MESSAGE_BYTES)
        app.router.add_post("/v1/rpc/{service}/{method}", self._unary)
        app.router.add_get("/v1/stream/{service}/{method}", self._stream)
        for path in STATIC_FILES:
            app.router.add_get(path, self._static)
        # A browser that goes away (a closed tab) cancels its call: a join it
        # was waiting on leaves the queue at once, as a gRPC cancel does.
        self._runner = web.AppRunner(app, access_log=None, handler_cancellation=True)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port, ssl_context=self._ssl_context())
        await site.start()
        if self.port == 0:
            server = site._server
            assert server is not None
            self.port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]

    def _ssl_context(self) -> ssl.SSLContext | None:
        if self._tls is None:
            return None
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        # The ssl module loads a certificate and key from files only: a private
        # folder for the moment it takes.
        with tempfile.TemporaryDirectory() as folder:
            cert, key = Path(folder) / "cert.pem", Path(folder) / "key.pem"
            cert.write_bytes(self._tls[0])
            key.touch(mode=0o600)
            key.write_bytes(self._tls[1])
            context.load_cert_chain(cert, key)
        return context

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self._door is not None:
            await self._door.close()
            self._door = None

    # -- what is forwarded ----------------------------------------------------------

    def _metadata(self, request: web.Request, authorization: str | None) -> tuple[tuple[str, str], ...]:
        """The browser's address, signed so only this gateway can name a
        client other than its own connection, and its player token."""
        metadata = [(FORWARDED_CLIENT, forwarded_client(self.forward_key, request.remote or ""))]
        if authorization:
            metadata.append(("authorization", authorization))
        return tuple(metadata)

    async def _static(self, request: web.Request) -> web.StreamResponse:
        name, content_type = STATIC_FILES[request.path]
        path = STATIC / name
        if not path.exists():
            return web.Response(status=404, text=f"{name} is not built (npm run bundle in clients/ts)")
        return web.FileResponse(path, headers={"content-type": content_type, "cache-control": "no-cache"})

    async def _unary(self, request: web.Request) -> web.Response:
        path = f"{request.match_info['service']}/{request.match_info['method']}"
        if path not in UNARY_METHODS:
            return web.Response(status=404, text=status_json(grpc.StatusCode.UNIMPLEMENTED, f"no such call: {path}"),
                                content_type="application/json")
        body = await request.read()
        assert self._door is not None
        call = self._door.unary_unary(f"/{path}")  # bytes in, bytes out: the door parses and checks them
        try:
            answer = await call(body, metadata=self._metadata(request, request.headers.get("authorization")))
        except aio.AioRpcError as error:
            code = error.code()
            return web.Response(status=HTTP_STATUS.get(code, 500), text=status_json(code, error.details() or ""),
                                content_type="application/json")
        return web.Response(body=answer, content_type="application/x-protobuf")

    # -- streams --------------------------------------------------------------------

    async def _stream(self, request: web.Request) -> web.StreamResponse:
        path = f"{request.match_info['service']}/{request.match_info['method']}"
        if path not in (PLAY, WATCH):
            return web.Response(status=404, text=status_json(grpc.StatusCode.UNIMPLEMENTED, f"no such stream: {path}"),
                                content_type="application/json")
        address = request.remote or ""
        if sum(self._streams.values()) >= MAX_STREAMS or self._streams[address] >= MAX_STREAMS_PER_ADDRESS:
            return web.Response(status=429, text=status_json(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"too many streams open (at most {MAX_STREAMS_PER_ADDRESS} per address)"), content_type="application/json")
        socket = web.WebSocketResponse(max_msg_size=MAX_MESSAGE_BYTES, heartbeat=30.0)
        await socket.prepare(request)
        self._streams[address] += 1
        try:
            code, details = await self._relay(path, request, socket)
        finally:
            self._streams[address] -= 1
            if self._streams[address] <= 0:
                del self._streams[address]
        if not socket.closed:
            with contextlib.suppress(ConnectionError):
                await socket.send_str(status_json(code, details))
                await socket.close()
        return socket

    async def _first_message(self, socket: web.WebSocketResponse) -> tuple[bytes, str | None]:
        """The call's first message, after an optional text frame carrying
        `{"authorization": "Bearer TOKEN"}` (browsers cannot set a
        WebSocket's headers)."""
        authorization = None
        async with asyncio.timeout(self.hello_timeout_s):
            while True:
                frame = await socket.receive()
                if frame.type == WSMsgType.BINARY:
                    return frame.data, authorization
                if frame.type == WSMsgType.TEXT and authorization is None:
                    try:
                        authorization = str(json.loads(frame.data)["authorization"])
                    except (ValueError, KeyError, TypeError):
                        raise _Refused(grpc.StatusCode.INVALID_ARGUMENT,
                                       'a text frame before the first message is {"authorization": ...}') from None
                    continue
                raise _Refused(grpc.StatusCode.CANCELLED, "the browser closed the stream before its first message")

    async def _relay(self, path: str, request: web.Request, socket: web.WebSocketResponse) -> tuple[grpc.StatusCode, str]:
        try:
            first, authorization = await self._first_message(socket)
            if path == PLAY:
                channel = self._room_channel(await self._room_of(first, request, authorization))
                call = channel.stream_stream(f"/{PLAY}")()
                try:
                    await call.write(first)
                    return await self._pump(call, socket, writable=True)
                finally:
                    call.cancel()
                    await channel.close()
            assert self._door is not None
            watch = self._door.unary_stream(f"/{WATCH}")(first, metadata=self._metadata(request, authorization))
            try:
                return await self._pump(watch, socket, writable=False)
            finally:
                watch.cancel()
        except TimeoutError:
            return grpc.StatusCode.DEADLINE_EXCEEDED, f"no first message within {self.hello_timeout_s:g} s of opening the stream"
        except _Refused as refused:
            return refused.code, refused.details

    async def _room_of(self, hello_bytes: bytes, request: web.Request, authorization: str | None) -> str:
        """Where the hello's table is served: asked of the lobby by the table
        the token names (unverified here: the room verifies the token)."""
        try:
            message = table_pb2.ClientMessage.FromString(hello_bytes)
        except Exception:  # protobuf's DecodeError and friends
            raise _Refused(grpc.StatusCode.INVALID_ARGUMENT, "the first message is not a ClientMessage") from None
        if message.WhichOneof("kind") != "hello":
            raise _Refused(grpc.StatusCode.FAILED_PRECONDITION, "the first message of a table stream is a hello")
        try:
            table_id = verify_seat_token(self.token_secret, message.hello.seat_token, int(time.time() * 1000)).table_id
        except TokenError as error:
            raise _Refused(grpc.StatusCode.UNAUTHENTICATED, str(error)) from None
        assert self._door is not None
        lookup = self._door.unary_unary("/tablehost.v1.Lobby/LookupTable",
                                        request_serializer=lobby_pb2.LookupTableRequest.SerializeToString,
                                        response_deserializer=table_pb2.TableLocation.FromString)
        try:
            location = await lookup(lobby_pb2.LookupTableRequest(table_id=table_id),
                                    metadata=self._metadata(request, authorization), timeout=10.0)
        except aio.AioRpcError as error:
            raise _Refused(error.code(), error.details() or "") from None
        if not location.running:
            raise _Refused(grpc.StatusCode.UNAVAILABLE, f"table {table_id} is moving between rooms: try again")
        return location.endpoint

    async def _pump(self, call: aio.StreamStreamCall | aio.UnaryStreamCall, socket: web.WebSocketResponse,
                    writable: bool) -> tuple[grpc.StatusCode, str]:
        """Messages both ways until the call ends; its status is returned.
        The browser's side reads only as fast as the WebSocket drains, so a
        slow browser backs up the call and meets the room's queue bound."""
        inbound = asyncio.create_task(self._from_browser(call, socket, writable))
        try:
            async for message in _messages(call):
                await socket.send_bytes(message)
            code = await call.code()
            return code, await call.details() or ""
        except aio.AioRpcError as error:
            return error.code(), error.details() or ""
        except ConnectionError:
            return grpc.StatusCode.CANCELLED, "the browser went away"
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # the gateway is stopping, or the handler was cancelled
            return grpc.StatusCode.CANCELLED, "the browser ended the stream"  # _from_browser cancelled the call
        finally:
            inbound.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await inbound

    async def _from_browser(self, call: aio.StreamStreamCall | aio.UnaryStreamCall, socket: web.WebSocketResponse,
                            writable: bool) -> None:
        async for frame in socket:
            if frame.type == WSMsgType.BINARY and writable:
                await call.write(frame.data)
            elif frame.type == WSMsgType.TEXT and writable and _is_half_close(frame.data):
                await call.done_writing()
                writable = False
            else:
                break  # anything else from the browser ends its call
        call.cancel()


async def _messages(call: aio.StreamStreamCall | aio.UnaryStreamCall) -> AsyncIterator[bytes]:
    while True:
        message = await call.read()
        if message is aio.EOF:
            return
        yield message


def _is_half_close(text: str) -> bool:
    try:
        return json.loads(text) == {"half_close": True}
    except ValueError:
        return False


class _Refused(Exception):
    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(details)
        self.code = code
        self.details = details
