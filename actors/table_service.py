"""The table service (tablehost.v1.Table) a room serves for all its tables:
the edge where client bytes become domain calls on actors.table.Table and
outbound records become protobuf. One stream per player or spectator; the
hello's seat token names the table the stream belongs to.

Requests arrive as raw bytes and are parsed here, so bytes that are not a
ClientMessage (a string field that is not UTF-8, say) are answered with a
PROTOCOL rejection instead of ending the stream from inside gRPC. Every
stream is bounded: it must say hello within `hello_timeout_s`, one seat has
one live stream (a newer one replaces it), a table has at most
`max_spectators` spectator streams, a stream whose queue overflows
(actors/outbox.py) ends with RESOURCE_EXHAUSTED, and so does one sending far
over its seat's budget (actors/budgets.py SeatBudget), whose seat is then
refused new streams for a moment. A stream detached from its table is no
longer read."""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from dataclasses import dataclass
from typing import AsyncIterator, Mapping

import grpc
from google.protobuf.message import DecodeError
from grpc import aio

from tablehost.actors.config import RoomConfig
from tablehost.actors.log_budget import LogBudget, left_out_note
from tablehost.actors.log_format import log_fields
from tablehost.actors.outbound import (
    AcceptedOut,
    CloseOut,
    DeltaOut,
    GameOverOut,
    Outbound,
    RejectionOut,
    SnapshotOut,
    StreamEnd,
)
from tablehost.actors.outbox import Overflow
from tablehost.actors.table import Subscriber, Table, wall_clock_ms
from tablehost.actors.tokens import SPECTATOR_SEAT, SeatClaim, TokenError, verify_seat_token
from tablehost.games.engine.errors import Reason
from tablehost.games.engine.fairness import MAX_ENTROPY_BYTES
from tablehost.v1 import table_pb2 as pb

log = logging.getLogger("tablehost.table_service")

TABLE_SERVICE = pb.DESCRIPTOR.services_by_name["Table"].full_name

# The one mapping between the host's reasons and the wire's: by name
# (tests/unit/test_reject_reasons.py checks that every reason has its enum value).
WIRE_REASON: dict[Reason, pb.RejectReason] = {
    reason: pb.RejectReason.Value(f"REJECT_REASON_{reason.name}") for reason in Reason
}

# How long a stream's handler waits for its final status to be sent. A
# client that does not read holds the status back behind what it has not
# read; the status stays queued for it, but the room does not wait longer.
STATUS_GRACE_S = 5.0

# How the room's ending of a stream shows on the wire; FINISHED ends with OK.
STATUS_OF_ENDING = {
    StreamEnd.UNAVAILABLE: grpc.StatusCode.UNAVAILABLE,
    StreamEnd.FAILED: grpc.StatusCode.INTERNAL,
    StreamEnd.REPLACED: grpc.StatusCode.ABORTED,
    StreamEnd.FLOODED: grpc.StatusCode.RESOURCE_EXHAUSTED,
    StreamEnd.CANCELLED: grpc.StatusCode.NOT_FOUND,
    StreamEnd.CLOSED: grpc.StatusCode.FAILED_PRECONDITION,
    StreamEnd.REMOVED: grpc.StatusCode.PERMISSION_DENIED,
}


def to_proto(message: Outbound) -> pb.ServerMessage:
    if isinstance(message, DeltaOut):
        return pb.ServerMessage(
            delta=pb.Delta(
                seq=message.seq, act_id=message.act_id, delta=message.delta,
                view_hash=message.view_hash, automatic=message.automatic,
            )
        )
    if isinstance(message, SnapshotOut):
        return pb.ServerMessage(
            snapshot=pb.Snapshot(
                seq=message.seq, view=message.view, view_hash=message.view_hash,
                seat=message.seat, table_id=message.table_id,
            )
        )
    if isinstance(message, RejectionOut):
        return pb.ServerMessage(
            rejection=pb.Rejection(act_id=message.act_id, reason=WIRE_REASON[message.reason], message=message.message)
        )
    if isinstance(message, AcceptedOut):
        return pb.ServerMessage(accepted=pb.Accepted(act_id=message.act_id, seq=message.seq))
    if isinstance(message, GameOverOut):
        return pb.ServerMessage(
            game_over=pb.GameOver(seq=message.seq, result=message.result, scores=message.scores, winner=message.winner,
                                  record=message.record)
        )
    raise TypeError(f"no wire form for {message!r}")


def parse_client_message(data: bytes) -> pb.ClientMessage | None:
    """The message, or None for bytes that are not a ClientMessage."""
    try:
        return pb.ClientMessage.FromString(data)
    except (DecodeError, RecursionError, ValueError):
        return None


# Queued by the reader when the client half-closes: the stream ends with OK.
_CLIENT_DONE = CloseOut("the client closed its stream")


class Refused(Exception):
    """A hello the room does not admit: the stream ends with `code`; a
    BAD_TOKEN rejection precedes the status when `rejection` is set."""

    def __init__(self, code: grpc.StatusCode, details: str, rejection: bool = True) -> None:
        super().__init__(details)
        self.code, self.details, self.rejection = code, details, rejection


def _bad_hello(details: str) -> pb.ServerMessage:
    return pb.ServerMessage(rejection=pb.Rejection(reason=WIRE_REASON[Reason.BAD_TOKEN], message=details))


@dataclass
class _AwaitingHello:
    """A stream's read of its first message, and whether it was closed to
    make room for a newer stream."""

    reading: asyncio.Future[bytes]
    evicted: bool = False


class TableService:
    """Serves the tables the room holds now (`tables`, the room's own map,
    read at each hello): a token for a table this room does not hold is
    refused, and the client asks the lobby where the table is."""

    def __init__(self, tables: Mapping[str, Table], config: RoomConfig) -> None:
        self._tables = tables
        self._secret = config.token_secret
        self._run_id = config.run_id
        self._hello_timeout_s = config.hello_timeout_s
        # Streams waiting for their hello, oldest first: each holds gRPC's
        # buffers for a call, so their number is bounded (MAX: the oldest goes).
        self._awaiting_hello: OrderedDict[int, _AwaitingHello] = OrderedDict()
        self._max_awaiting_hello = config.max_streams_awaiting_hello
        self._max_spectators = config.max_spectators_per_table
        # Refused hellos are logged within one budget for the whole room.
        self._refusals_logged = LogBudget()

    def add_to_server(self, server: aio.Server) -> None:
        """Serve Play with requests as raw bytes (parsed by the service itself)."""
        handler = grpc.stream_stream_rpc_method_handler(
            self.Play, request_deserializer=None, response_serializer=pb.ServerMessage.SerializeToString
        )
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(TABLE_SERVICE, {"Play": handler}),))

    async def Play(self, requests: AsyncIterator[bytes], context: aio.ServicerContext) -> None:
        first = await self._first_message(requests, context)
        if first is None:
            return  # the client closed before saying anything
        try:
            table, claim, hello = self._admit(first)
        except Refused as refused:
            left_out = self._refusals_logged.take()
            if left_out is not None:
                log.info("refused hello (%s): %s%s", refused.code.name, refused.details, left_out_note(left_out))
            if refused.rejection:
                await context.write(_bad_hello(refused.details))
            await context.abort(refused.code, refused.details)
        subscriber = table.subscribe(claim.seat, hello.last_seq, hello.entropy)
        log.info("stream open table=%s seat=%d last_seq=%d", table.table_id, claim.seat, hello.last_seq,
                 extra=log_fields("stream_open", table_id=table.table_id, seat=claim.seat, seq=hello.last_seq))
        reader = asyncio.create_task(self._read(table, subscriber, requests))
        writer = asyncio.create_task(self._write(subscriber, context))
        subscriber.outbox.on_overflow = writer.cancel
        try:
            try:
                ending = await writer
            except (asyncio.CancelledError, Overflow):
                if not subscriber.outbox.overflowed:
                    raise  # the call itself was cancelled (the client left)
                ending = (grpc.StatusCode.RESOURCE_EXHAUSTED,
                          f"this stream fell too far behind (more than {subscriber.outbox.max_records} messages or "
                          f"{subscriber.outbox.max_bytes} bytes unsent); reconnect with your last seq")
                log.info("stream overflowed table=%s seat=%d: ending it", table.table_id, claim.seat,
                         extra=log_fields("stream_overflowed", table_id=table.table_id, seat=claim.seat))
            if ending is not None:
                # Detached before the status: sending it may wait on the client.
                table.unsubscribe(subscriber)
                await self._end(context, *ending)
        finally:
            reader.cancel()
            writer.cancel()
            table.unsubscribe(subscriber)
            left_out = subscriber.log_budget.suppressed
            log.info("stream closed table=%s seat=%d%s", table.table_id, claim.seat, left_out_note(left_out),
                     extra=log_fields("stream_closed", table_id=table.table_id, seat=claim.seat))

    @staticmethod
    async def _end(context: aio.ServicerContext, code: grpc.StatusCode, details: str) -> None:
        """End the stream with `code`, waiting at most STATUS_GRACE_S for it to go out."""
        try:
            await asyncio.wait_for(context.abort(code, details), STATUS_GRACE_S)
        except TimeoutError:
            log.info("stream ended with %s; the client has not read up to its status yet", code.name)

    async def _first_message(self, requests: AsyncIterator[bytes], context: aio.ServicerContext) -> bytes | None:
        """The stream's first message, which must come within the hello
        timeout: a stream that says nothing must not hold the room's memory.
        When too many streams wait, the one that has waited longest is
        closed (RESOURCE_EXHAUSTED), so a flood of silent streams cannot keep
        a client that says hello at once from being served."""
        waiting = _AwaitingHello(asyncio.ensure_future(anext(requests)))
        self._awaiting_hello[id(waiting)] = waiting
        if len(self._awaiting_hello) > self._max_awaiting_hello:
            _, oldest = self._awaiting_hello.popitem(last=False)
            oldest.evicted = True
            oldest.reading.cancel()
        try:
            return await asyncio.wait_for(waiting.reading, self._hello_timeout_s)
        except StopAsyncIteration:
            return None
        except TimeoutError:
            details = f"no hello within {self._hello_timeout_s:g} s of opening the stream"
            await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, details)  # raises: the stream ends here
            return None
        except asyncio.CancelledError:
            if not waiting.evicted:
                raise  # the call itself was cancelled (the client left)
            details = (f"more than {self._max_awaiting_hello} streams of this room are waiting to say hello, "
                       "and this one had waited longest; say hello as soon as the stream opens")
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, details)
            return None
        finally:
            self._awaiting_hello.pop(id(waiting), None)

    def _admit(self, first: bytes) -> tuple[Table, SeatClaim, pb.Hello]:
        """The table, seat and hello of a stream's first message, or Refused."""
        message = parse_client_message(first)
        if message is None or message.WhichOneof("kind") != "hello":
            raise Refused(grpc.StatusCode.FAILED_PRECONDITION, "the first message on a table stream must be a hello")
        hello = message.hello
        if len(hello.entropy) > MAX_ENTROPY_BYTES:
            raise Refused(grpc.StatusCode.INVALID_ARGUMENT,
                          f"a hello's entropy is at most {MAX_ENTROPY_BYTES} bytes, got {len(hello.entropy)}")
        try:
            claim = verify_seat_token(self._secret, hello.seat_token, wall_clock_ms(), self._run_id)
        except TokenError as error:
            raise Refused(grpc.StatusCode.UNAUTHENTICATED, str(error)) from None
        table = self._tables.get(claim.table_id)
        if table is None:
            raise Refused(grpc.StatusCode.NOT_FOUND,
                          f"this room does not serve table {claim.table_id} (finished, closed or moved); ask the lobby")
        if claim.seat != SPECTATOR_SEAT and not 0 <= claim.seat < table.seat_count:
            raise Refused(grpc.StatusCode.UNAUTHENTICATED,
                          f"the seat token names seat {claim.seat}; table {table.table_id} has seats "
                          f"0-{table.seat_count - 1} (and -1 for spectators)")
        removed = table.streams.removed.get(claim.seat)
        if removed is not None:
            raise Refused(grpc.StatusCode.PERMISSION_DENIED, removed)
        cooling_s = table.streams.cooling_down(claim.seat)
        if cooling_s > 0:
            raise Refused(grpc.StatusCode.RESOURCE_EXHAUSTED,
                          f"seat {claim.seat} of table {table.table_id} flooded its last stream; open a stream again "
                          f"in {cooling_s:.1f} s", rejection=False)
        if claim.seat == SPECTATOR_SEAT and table.streams.spectators >= self._max_spectators:
            raise Refused(grpc.StatusCode.RESOURCE_EXHAUSTED,
                          f"table {table.table_id} has its maximum of {self._max_spectators} spectator streams; "
                          "try again later", rejection=False)
        return table, claim, hello

    async def _write(self, subscriber: Subscriber, context: aio.ServicerContext) -> tuple[grpc.StatusCode, str] | None:
        """Send what the table queues, in order, until the stream ends: None
        to end it with OK, else the status to end it with. Cancelled when the
        queue overflows (the write may be held by gRPC's flow control)."""
        while True:
            for message in await subscriber.outbox.drain():
                if message is _CLIENT_DONE:
                    return None
                if isinstance(message, CloseOut):
                    if message.ending is StreamEnd.FINISHED:
                        return None
                    return STATUS_OF_ENDING[message.ending], message.details
                await context.write(to_proto(message))

    async def _read(self, table: Table, subscriber: Subscriber, requests: AsyncIterator[bytes]) -> None:
        """Client messages, in order, applied on the room's loop, until the
        stream is detached from its table (what it sent after is ignored, so
        reading it would only cost the room). When the client half-closes,
        wake the writer so the stream can end."""
        try:
            async for data in requests:
                message = parse_client_message(data)
                kind = None if message is None else message.WhichOneof("kind")
                if message is not None and kind == "commit":
                    table.commit(subscriber, message.commit.act_id, message.commit.action)
                elif table.rate_limited(subscriber):
                    pass  # answered, or the stream ended for flooding
                elif message is not None and kind == "ack":
                    table.ack(subscriber, message.ack.seq, message.ack.view_hash)
                elif message is None:
                    subscriber.outbox.put(RejectionOut(
                        "", Reason.PROTOCOL, f"{len(data)} bytes that are not a tablehost.v1.ClientMessage"
                    ))
                else:
                    what = f"a {kind}" if kind else "a message with no kind"
                    subscriber.outbox.put(RejectionOut("", Reason.PROTOCOL, f"unexpected {what} after hello"))
                if subscriber not in table.streams.live:
                    break  # replaced, ended or closed: its end is queued, and the rest is never read
        finally:
            subscriber.outbox.put(_CLIENT_DONE)
