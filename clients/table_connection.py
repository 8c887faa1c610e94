"""One seat's `Table.Play` call and the channel it runs on: opening it (with
bounded retries, asking the lobby where the table is served now), writing to
it one message at a time, and tearing it down."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

import grpc
import grpc.aio

from tablehost.clients.errors import LobbyError, TableNotRunning, TableUnreachable
from tablehost.clients.lobby_client import Assignment, LobbyClient, open_channel
from tablehost.clients.table_replica import TableReplica
from tablehost.v1 import table_pb2

log = logging.getLogger("tablehost.client")

# The Play method's path, from the service descriptor. The SDK builds the
# call itself instead of using the generated stub so that it receives each
# ServerMessage's bytes exactly as they came off the wire (`record=True`).
_PLAY_METHOD = "/{}/Play".format(table_pb2.DESCRIPTOR.services_by_name["Table"].full_name)

_FIRST_BACKOFF_S = 0.1
_MAX_BACKOFF_S = 2.0

# Each table channel gets a connection of its own. By default gRPC shares one
# connection among all the channels a process opens to the same target, and
# keeps it while any of those channel objects lives, closed or not: a
# session reopened after its connection went silent (a blackholed route, a
# NAT that forgot it) would be handed that same dead connection again.
# It also pings while a stream is open and quiet, so a connection that went
# silent ends (UNAVAILABLE, and the session reconnects) within about 20 s
# instead of never: every 15 s, no more often than rooms allow (10 s,
# docs/protocol.md "Keepalive"), and never with no call open.
_OWN_CONNECTION = (
    ("grpc.use_local_subchannel_pool", 1),
    ("grpc.keepalive_time_ms", 15_000),
    ("grpc.keepalive_timeout_ms", 5_000),
    ("grpc.keepalive_permit_without_calls", 0),
    ("grpc.http2.max_pings_without_data", 0),
)

# What reads a call once it is open: it runs as the connection's reader task.
Reader = Callable[[grpc.aio.StreamStreamCall], Coroutine[Any, Any, None]]


def backoff_s(retries: int) -> float:
    """The wait before trying a table again after `retries` tries that failed
    (connections, or streams dropped before their first message): none before
    the first retry of a stream, then doubling from _FIRST_BACKOFF_S up to
    _MAX_BACKOFF_S."""
    return 0.0 if retries == 0 else min(_FIRST_BACKOFF_S * 2 ** (retries - 1), _MAX_BACKOFF_S)


class _Unreachable(Exception):
    """One connection attempt failed; the retry loop decides what next."""


class TableConnection:
    """The current Play call of one seat (`call`, None while there is none),
    at `endpoint`. The hello says the replica's last seq, and every commit
    still waiting for its outcome is written again after it."""

    def __init__(self, assignment: Assignment, entropy: bytes, replica: TableReplica, lobby: LobbyClient | None,
                 read: Reader, *, tls_root_cert: bytes | None, connect_timeout: float,
                 max_connect_attempts: int) -> None:
        self.endpoint = assignment.endpoint
        self.call: grpc.aio.StreamStreamCall | None = None
        self.opening = False
        self._assignment = assignment
        self._entropy = entropy
        self._replica = replica
        self._lobby = lobby
        self._read = read
        self._tls_root_cert = tls_root_cert
        self._connect_timeout = connect_timeout
        self._max_connect_attempts = max_connect_attempts
        self._channel: grpc.aio.Channel | None = None
        self._reader: asyncio.Task[None] | None = None
        self._write_lock = asyncio.Lock()

    async def open_with_retry(self, lookup_first: bool) -> None:
        """Open a call, trying up to the connect attempts with backoff and
        asking the lobby (if any) where the table is served before each
        retry. Raises TableUnreachable when every attempt failed."""
        replica = self._replica
        self.opening = True
        try:
            endpoint = self.endpoint
            if lookup_first:
                endpoint = await self._lookup() or endpoint
            failure = ""
            for attempt in range(1, self._max_connect_attempts + 1):
                try:
                    await self._open(endpoint)
                    return
                except _Unreachable as error:
                    failure = str(error)
                    log.info("table=%s seat=%d attempt %d: %s", replica.table_id, replica.seat, attempt, failure)
                if attempt == self._max_connect_attempts:
                    break
                await asyncio.sleep(backoff_s(attempt))
                endpoint = await self._lookup() or endpoint
            raise TableUnreachable(
                f"table {replica.table_id} unreachable after {self._max_connect_attempts} attempts; last: {failure}"
            )
        finally:
            self.opening = False
            self._replica.notify()

    async def _lookup(self) -> str | None:
        if self._lobby is None:
            return None
        try:
            endpoint = await self._lobby.lookup_table(self._replica.table_id)
        except (LobbyError, TableNotRunning) as error:
            log.info("table=%s: lookup failed: %s", self._replica.table_id, error)
            return None
        if endpoint != self.endpoint:
            log.info("table=%s moved from %s to %s", self._replica.table_id, self.endpoint, endpoint)
        return endpoint

    async def _open(self, endpoint: str) -> None:
        """Connect, open Play, say Hello with the last seq held, send again
        every commit still waiting for its outcome, then start reading.

        The reader starts last so that a stream failing at once cannot start
        a recovery while this attempt is still running."""
        channel = open_channel(endpoint, self._tls_root_cert, _OWN_CONNECTION)
        problem = await _connection_problem(channel, self._connect_timeout)
        if problem is not None:
            await channel.close()
            raise _Unreachable(f"no connection to {endpoint}: {problem}")
        # No response deserializer: the reader gets each message's wire bytes.
        play = channel.stream_stream(_PLAY_METHOD, request_serializer=table_pb2.ClientMessage.SerializeToString)
        call = play()
        replica = self._replica
        hello = table_pb2.Hello(seat_token=self._assignment.seat_token, last_seq=replica.seq, entropy=self._entropy)
        try:
            async with self._write_lock:
                await call.write(table_pb2.ClientMessage(hello=hello))
                for act_id, pending in list(replica.pending.items()):
                    if not pending.future.done():
                        commit = table_pb2.Commit(act_id=act_id, action=pending.action)
                        await call.write(table_pb2.ClientMessage(commit=commit))
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError) as error:
            call.cancel()
            await channel.close()
            raise _Unreachable(f"{endpoint} ended the stream at the hello: {error}") from None
        except BaseException:
            call.cancel()
            await channel.close()
            raise
        self._channel, self.call, self.endpoint = channel, call, endpoint
        self._reader = asyncio.create_task(self._read(call), name=f"table {replica.table_id} seat {replica.seat}")
        log.debug("table=%s seat=%d opened at %s last_seq=%d", replica.table_id, replica.seat, endpoint, replica.seq)

    async def send(self, message: table_pb2.ClientMessage) -> bool:
        """Write on the current stream; False when there is none to write on.
        Writes are serialized: grpc.aio allows one write at a time."""
        async with self._write_lock:
            call = self.call
            if call is None or call.done():
                return False
            try:
                await call.write(message)
            except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
                return False
            except asyncio.CancelledError:
                # grpc.aio raises CancelledError for a call cancelled by
                # drop() or close(); only our own cancellation propagates.
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    raise
                return False
            return True

    async def half_close(self, call: grpc.aio.StreamStreamCall) -> None:
        """Say this side is done writing, so the room logs a client that left."""
        async with self._write_lock:
            await call.done_writing()

    async def teardown(self) -> None:
        """Forget the current stream first, so its reader's end is ignored."""
        call, channel, reader = self.call, self._channel, self._reader
        self.call = self._channel = self._reader = None
        if call is not None:
            call.cancel()
        if reader is not None and reader is not asyncio.current_task():
            reader.cancel()
            await asyncio.wait([reader])
        if channel is not None:
            await channel.close()


async def _connection_problem(channel: grpc.aio.Channel, timeout: float) -> str | None:
    """None once the channel is connected, else why not. A refused connection
    shows as TRANSIENT_FAILURE at once; `channel_ready()` would keep retrying
    on gRPC's own backoff until the timeout, delaying the lobby lookup that
    finds a moved room."""
    try:
        async with asyncio.timeout(timeout):
            state = channel.get_state(try_to_connect=True)
            while state != grpc.ChannelConnectivity.READY:
                if state in (grpc.ChannelConnectivity.TRANSIENT_FAILURE, grpc.ChannelConnectivity.SHUTDOWN):
                    return "connection failed"
                await channel.wait_for_state_change(state)
                state = channel.get_state(try_to_connect=True)
    except TimeoutError:
        return f"not connected within {timeout:g}s"
    return None
