"""The front door's Lobby service for a client (`LobbyClient`), the seat it
hands out (`Assignment`), and the gRPC channels the SDK opens: plaintext or
TLS, signed with the player's token when there is one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import grpc
import grpc.aio

from tablehost.clients.codec import encode
from tablehost.clients.errors import LobbyError, QueueCancelled, TableNotRunning
from tablehost.v1 import lobby_pb2, lobby_pb2_grpc

SPECTATOR_SEAT = -1


@dataclass(frozen=True, slots=True)
class Assignment:
    """Where and as whom to play: tablehost.v1.TableAssignment as a value."""

    table_id: str
    endpoint: str
    seat: int
    seat_token: str
    game: str
    display_names: tuple[str, ...]
    ticket: str
    deal_commitment: str = ""  # hex SHA-256 of the table's salt and seed, given before the hello

    @classmethod
    def from_proto(cls, message: lobby_pb2.TableAssignment) -> Assignment:
        return cls(
            table_id=message.table_id,
            endpoint=message.endpoint,
            seat=message.seat,
            seat_token=message.seat_token,
            game=message.game,
            display_names=tuple(message.display_names),
            ticket=message.ticket,
            deal_commitment=message.deal_commitment,
        )

    @property
    def is_spectator(self) -> bool:
        return self.seat == SPECTATOR_SEAT


class _SignedIn(grpc.aio.UnaryUnaryClientInterceptor, grpc.aio.UnaryStreamClientInterceptor):
    """Sends the player's token with every call (`authorization: Bearer
    TOKEN`): what a host that proves its players (`--player-auth`) reads to
    know who calls."""

    def __init__(self, player_token: str) -> None:
        self._header = ("authorization", f"Bearer {player_token}")

    def _signed(self, details: grpc.aio.ClientCallDetails) -> grpc.aio.ClientCallDetails:
        metadata = grpc.aio.Metadata(*(details.metadata or ()), self._header)
        return details._replace(metadata=metadata)

    async def intercept_unary_unary(self, continuation: Any, details: grpc.aio.ClientCallDetails, request: Any) -> Any:
        return await continuation(self._signed(details), request)

    async def intercept_unary_stream(self, continuation: Any, details: grpc.aio.ClientCallDetails,
                                     request: Any) -> Any:
        return await continuation(self._signed(details), request)


def open_channel(
    target: str, tls_root_cert: bytes | None = None, options: tuple[tuple[str, Any], ...] = (),
    player_token: str = "",
) -> grpc.aio.Channel:
    """A channel to `target`: TLS trusting `tls_root_cert` (PEM) when given,
    else plaintext; `options` are gRPC channel arguments; with
    `player_token`, every call on it carries the token."""
    interceptors = [_SignedIn(player_token)] if player_token else None
    if tls_root_cert is None:
        return grpc.aio.insecure_channel(target, options=options, interceptors=interceptors)
    return grpc.aio.secure_channel(target, grpc.ssl_channel_credentials(root_certificates=tls_root_cert),
                                   options=options, interceptors=interceptors)


class LobbyClient:
    """The front door's Lobby service over one grpc.aio channel: plaintext,
    or TLS trusting `tls_root_cert` (PEM bytes), which the table sessions
    made with this client use too.

    The channel opens on first use, inside the running event loop, so a
    client may be constructed anywhere. Calls that wait for a table to fill
    (`join_queue`, `join_private_table`) have no deadline: cancel the task,
    or `leave_queue`, to stop waiting. The others use `call_timeout`.

    With `player_token` (issued by the game's account service, for a host
    started with `--player-auth`) every call says who the player is, so the
    host's per-client quotas are this player's own, not its address's."""

    def __init__(self, target: str, *, call_timeout: float = 10.0, tls_root_cert: bytes | None = None,
                 player_token: str = "") -> None:
        self.target = target
        self.call_timeout = call_timeout
        self.tls_root_cert = tls_root_cert
        self.player_token = player_token
        self._channel: grpc.aio.Channel | None = None
        self._stub: lobby_pb2_grpc.LobbyStub | None = None

    async def __aenter__(self) -> LobbyClient:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        if self._channel is not None:
            channel, self._channel, self._stub = self._channel, None, None
            await channel.close()

    @property
    def stub(self) -> lobby_pb2_grpc.LobbyStub:
        """The raw generated stub on this client's channel, for calls the
        methods below do not wrap (tests of malformed requests)."""
        if self._stub is None:
            self._channel = open_channel(self.target, self.tls_root_cert, player_token=self.player_token)
            self._stub = lobby_pb2_grpc.LobbyStub(self._channel)  # type: ignore[no-untyped-call]  # generated, untyped
        return self._stub

    async def join_queue(
        self,
        game: str,
        display_name: str,
        variant: str = "",
        ticket: str = "",
        join_data: dict[str, Any] | None = None,
        seats: int = 0,
    ) -> Assignment:
        """Queue for `game` and return the seat once a table is filled.
        `join_data` is this player's options for the game (a deck, say);
        `seats` the table's size (0: the game's default).
        Raises QueueCancelled when the ticket leaves the queue meanwhile."""
        request = lobby_pb2.JoinQueueRequest(game=game, variant=variant, display_name=display_name, ticket=ticket,
                                             join_data=encode(join_data) if join_data else b"", seats=seats)
        try:
            return Assignment.from_proto(await self.stub.JoinQueue(request))
        except grpc.aio.AioRpcError as error:
            if error.code() == grpc.StatusCode.CANCELLED:
                raise QueueCancelled(f"JoinQueue for {game!r} (ticket {ticket!r})", error) from None
            raise LobbyError(f"JoinQueue for {game!r}", error) from None

    async def leave_queue(self, ticket: str) -> bool:
        """Leave a queue before being seated; False when the ticket is not
        queued (already seated, already left, or never known)."""
        try:
            response = await self.stub.LeaveQueue(lobby_pb2.LeaveQueueRequest(ticket=ticket), timeout=self.call_timeout)
        except grpc.aio.AioRpcError as error:
            if error.code() == grpc.StatusCode.NOT_FOUND:
                return False
            raise LobbyError(f"LeaveQueue for ticket {ticket!r}", error) from None
        return response.removed

    async def create_private_table(self, game: str, variant: str = "", seats: int = 0, turn_timeout_ms: int = 0) -> str:
        """Open a private table and return the code others join it by."""
        request = lobby_pb2.CreatePrivateTableRequest(game=game, variant=variant, seats=seats,
                                                      turn_timeout_ms=turn_timeout_ms)
        try:
            response = await self.stub.CreatePrivateTable(request, timeout=self.call_timeout)
        except grpc.aio.AioRpcError as error:
            raise LobbyError(f"CreatePrivateTable for {game!r}", error) from None
        return response.code

    async def join_private_table(
        self, code: str, display_name: str, ticket: str = "", join_data: dict[str, Any] | None = None
    ) -> Assignment:
        """Take a seat at a private table; returns once every seat is taken."""
        request = lobby_pb2.JoinPrivateTableRequest(code=code, display_name=display_name, ticket=ticket,
                                                    join_data=encode(join_data) if join_data else b"")
        try:
            return Assignment.from_proto(await self.stub.JoinPrivateTable(request))
        except grpc.aio.AioRpcError as error:
            raise LobbyError(f"JoinPrivateTable {code!r}", error) from None

    async def spectate(self, table_id: str) -> Assignment:
        """A spectator's assignment (seat -1, public view only) for a running table."""
        try:
            response = await self.stub.Spectate(lobby_pb2.SpectateRequest(table_id=table_id), timeout=self.call_timeout)
        except grpc.aio.AioRpcError as error:
            raise LobbyError(f"Spectate {table_id!r}", error) from None
        return Assignment.from_proto(response)

    async def lookup_table(self, table_id: str) -> str:
        """The endpoint serving `table_id` now; a restarted room may have
        moved. Raises TableNotRunning while no room serves it."""
        request = lobby_pb2.LookupTableRequest(table_id=table_id)
        try:
            location = await self.stub.LookupTable(request, timeout=self.call_timeout)
        except grpc.aio.AioRpcError as error:
            raise LobbyError(f"LookupTable {table_id!r}", error) from None
        if not location.running or not location.endpoint:
            raise TableNotRunning(f"table {table_id} is not served by any room now")
        return location.endpoint
