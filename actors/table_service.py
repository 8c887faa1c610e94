"""The table service (tablehost.v1.Table) a room serves for all its tables:
the edge where protobuf becomes domain calls on actors.table.Table and
outbound records become protobuf. One stream per player or spectator; the
hello's seat token names the table the stream belongs to."""

from __future__ import annotations

import asyncio
import logging
from typing import AsyncIterator, Mapping

import grpc
from grpc import aio

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
from tablehost.actors.table import Subscriber, Table, wall_clock_ms
from tablehost.actors.tokens import TokenError, verify_seat_token
from tablehost.games.engine.errors import Reason
from tablehost.v1 import table_pb2 as pb
from tablehost.v1 import table_pb2_grpc

log = logging.getLogger("tablehost.table_service")

# The one mapping between the host's reasons and the wire's: by name
# (tests/unit/test_reject_reasons.py checks that every reason has its enum value).
WIRE_REASON: dict[Reason, int] = {reason: pb.RejectReason.Value(f"REJECT_REASON_{reason.name}") for reason in Reason}


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
            game_over=pb.GameOver(seq=message.seq, result=message.result, scores=message.scores, winner=message.winner)
        )
    raise TypeError(f"no wire form for {message!r}")


# Queued by the reader when the client half-closes: the stream ends with OK.
_CLIENT_DONE = CloseOut("the client closed its stream")


def _bad_hello(details: str) -> pb.ServerMessage:
    return pb.ServerMessage(rejection=pb.Rejection(reason=WIRE_REASON[Reason.BAD_TOKEN], message=details))


class TableService(table_pb2_grpc.TableServicer):
    """Serves the tables the room holds now (`tables`, the room's own map,
    read at each hello): a token for a table this room does not hold is
    refused, and the client asks the lobby where the table is."""

    def __init__(self, tables: Mapping[str, Table], token_secret: bytes) -> None:
        self._tables = tables
        self._secret = token_secret

    async def Play(
        self, request_iterator: AsyncIterator[pb.ClientMessage], context: aio.ServicerContext
    ) -> AsyncIterator[pb.ServerMessage]:
        try:
            first = await anext(request_iterator)
        except StopAsyncIteration:
            return
        if first.WhichOneof("kind") != "hello":
            yield _bad_hello("the first message on a table stream must be a hello")
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, "expected hello")
        try:
            claim = verify_seat_token(self._secret, first.hello.seat_token, wall_clock_ms())
        except TokenError as error:
            log.info("refused hello: %s", error)
            yield _bad_hello(str(error))
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, str(error))
        table = self._tables.get(claim.table_id)
        if table is None:
            details = f"this room does not serve table {claim.table_id} (finished, closed or moved); ask the lobby"
            yield _bad_hello(details)
            await context.abort(grpc.StatusCode.NOT_FOUND, details)
        subscriber = table.subscribe(claim.seat, first.hello.last_seq)
        log.info("stream open table=%s seat=%d last_seq=%d", table.table_id, claim.seat, first.hello.last_seq)
        reader = asyncio.create_task(self._read(table, subscriber, request_iterator))
        try:
            while True:
                for message in await subscriber.outbox.drain():
                    if message is _CLIENT_DONE:
                        return
                    if isinstance(message, CloseOut):
                        if message.ending is StreamEnd.FINISHED:
                            return
                        code = grpc.StatusCode.INTERNAL if message.ending is StreamEnd.FAILED else grpc.StatusCode.UNAVAILABLE
                        await context.abort(code, message.details)
                    yield to_proto(message)
        finally:
            reader.cancel()
            table.unsubscribe(subscriber)
            log.info("stream closed table=%s seat=%d", table.table_id, claim.seat)

    async def _read(self, table: Table, subscriber: Subscriber, requests: AsyncIterator[pb.ClientMessage]) -> None:
        """Client messages, in order, applied on the room's loop. When the
        client half-closes, wake the writer so the stream can end."""
        try:
            async for message in requests:
                kind = message.WhichOneof("kind")
                if kind == "commit":
                    table.commit(subscriber, message.commit.act_id, message.commit.action)
                elif table.rate_limited(subscriber):
                    subscriber.outbox.put(RejectionOut("", Reason.RATE_LIMITED, "too many messages; slow down"))
                elif kind == "ack":
                    table.ack(subscriber, message.ack.seq, message.ack.view_hash)
                else:
                    subscriber.outbox.put(RejectionOut("", Reason.PROTOCOL, f"unexpected {kind} after hello"))
        finally:
            subscriber.outbox.put(_CLIENT_DONE)
