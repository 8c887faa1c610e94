"""How the SDK takes the room's new ways of ending a stream, against a
scripted Table server (a real grpc.aio server on 127.0.0.1): a stream
ended because it fell behind (RESOURCE_EXHAUSTED) is reopened with the last
seq held; new streams cancelled before their first message are tried again
with backoff, up to the connect attempts; a stream replaced by a newer one
for the same seat (ABORTED) is not, and the session fails with
StreamReplaced."""

from __future__ import annotations

import grpc
import pytest
from conftest import run
from grpc import aio
from support import wait_until

from tablehost.clients.codec import encode, view_hash
from tablehost.clients.sdk import Assignment, SessionDisconnected, StreamReplaced, TableSession
from tablehost.v1 import table_pb2

pytestmark = pytest.mark.integration

VIEW = {"game": "scripted", "to_act": None}


class ScriptedTable:
    """Serves Play: each stream gets a snapshot at `seq`, then the first
    stream ends with `first_ending`; later streams stay open. Records every
    hello it receives."""

    def __init__(self, first_ending: grpc.StatusCode, details: str, dropped_before_a_message: int = 0) -> None:
        self.first_ending, self.details = first_ending, details
        # The streams after the first that end CANCELLED before any message,
        # as a crowded room's gRPC server cancels calls it has no room to hold.
        self.dropped_before_a_message = dropped_before_a_message
        self.hellos: list[table_pb2.Hello] = []
        self.seq = 7
        self.server = aio.server()
        self.target = ""

    async def start(self) -> None:
        handler = grpc.stream_stream_rpc_method_handler(
            self.play, request_deserializer=table_pb2.ClientMessage.FromString,
            response_serializer=table_pb2.ServerMessage.SerializeToString,
        )
        self.server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("tablehost.v1.Table",
                                                                                   {"Play": handler}),))
        self.target = f"127.0.0.1:{self.server.add_insecure_port('127.0.0.1:0')}"
        await self.server.start()

    async def play(self, requests, context: aio.ServicerContext) -> None:
        first = await anext(requests)
        self.hellos.append(first.hello)
        if 2 <= len(self.hellos) <= 1 + self.dropped_before_a_message:
            await context.abort(grpc.StatusCode.CANCELLED, "no room for this call")
        snapshot = table_pb2.Snapshot(seq=self.seq, view=encode(VIEW), view_hash=view_hash(VIEW), seat=1,
                                      table_id="scripted-1")
        await context.write(table_pb2.ServerMessage(snapshot=snapshot))
        if len(self.hellos) == 1:
            await context.abort(self.first_ending, self.details)
        async for _ in requests:
            pass

    async def stop(self) -> None:
        await self.server.stop(0)


def assignment_at(target: str) -> Assignment:
    return Assignment("scripted-1", target, 1, "token", "scripted", ("a", "b"), "ticket")


def test_a_stream_that_fell_behind_is_reopened_with_the_last_seq_held() -> None:
    async def scenario():
        table = ScriptedTable(grpc.StatusCode.RESOURCE_EXHAUSTED, "this stream fell too far behind")
        await table.start()
        session = None
        try:
            session = await TableSession.connect(assignment_at(table.target))
            await wait_until(lambda: len(table.hellos) == 2 and session.reconnects == 1)
            return [hello.last_seq for hello in table.hellos], session.reconnects, session.connected
        finally:
            if session is not None:
                await session.close()
            await table.stop()

    last_seqs, reconnects, connected = run(scenario())
    assert last_seqs == [0, 7] and reconnects == 1 and connected


def test_a_replaced_stream_is_not_reopened_and_the_session_says_why() -> None:
    async def scenario():
        table = ScriptedTable(grpc.StatusCode.ABORTED, "replaced by a newer stream for seat 1")
        await table.start()
        session = None
        try:
            session = await TableSession.connect(assignment_at(table.target))
            with pytest.raises(StreamReplaced, match="replaced by a newer stream for seat 1") as failure:
                await session.wait_for_request(timeout=10)
            return failure.value, session, len(table.hellos)
        finally:
            if session is not None:
                await session.close()
            await table.stop()

    failure, session, hellos = run(scenario())
    assert "another stream for seat 1" in str(failure)
    # The decision not to reconnect is made where the stream ends: no attempt is under way.
    assert hellos == 1 and session.reconnects == 0 and session._stream._recovery is None


def test_new_streams_cancelled_before_a_message_are_tried_again_until_one_is_taken() -> None:
    async def scenario() -> tuple[TableSession, int, bool]:
        table = ScriptedTable(grpc.StatusCode.RESOURCE_EXHAUSTED, "fell behind", dropped_before_a_message=3)
        await table.start()
        session = None
        try:
            session = await TableSession.connect(assignment_at(table.target))
            await wait_until(lambda: len(table.hellos) == 5 and session.reconnects == 4, timeout=20)
            return session, len(table.hellos), session.connected
        finally:
            if session is not None:
                await session.close()
            await table.stop()

    session, hellos, streaming = run(scenario())
    # The first stream, three cancelled before a message, and the one the room took.
    assert hellos == 5 and streaming and session.seq == 7 and session.failure is None


def test_a_room_that_keeps_cancelling_new_streams_is_given_up_after_the_connect_attempts() -> None:
    async def scenario() -> tuple[SessionDisconnected, int]:
        table = ScriptedTable(grpc.StatusCode.RESOURCE_EXHAUSTED, "fell behind", dropped_before_a_message=100)
        await table.start()
        session = None
        try:
            session = await TableSession.connect(assignment_at(table.target), max_connect_attempts=3)
            await wait_until(lambda: session.failure is not None, timeout=20)
            with pytest.raises(SessionDisconnected) as failure:
                await session.wait_for_request(timeout=1)
            return failure.value, len(table.hellos)
        finally:
            if session is not None:
                await session.close()
            await table.stop()

    failure, hellos = run(scenario())
    assert "call reconnect()" in str(failure) and "CANCELLED" in str(failure)
    assert hellos == 1 + 3  # the first stream, then the three automatic reconnects
