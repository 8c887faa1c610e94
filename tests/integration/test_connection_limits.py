"""The options every server of the host runs with (actors/server_options.py),
held to what they promise on a real grpc.aio server on 127.0.0.1: a
connection with no call open is closed, and a client that pings too often
is sent away."""

from __future__ import annotations

import asyncio
import threading

import grpc
import pytest
from conftest import run
from support import wait_until
from grpc import aio

from tablehost.actors.config import DEFAULT_TABLES_PER_ROOM, RoomConfig
from tablehost.actors.server_options import (
    FRONT_DOOR_PENDING_CALLS,
    MAX_PING_STRIKES,
    MIN_CLIENT_PING_INTERVAL_MS,
    ROOM_PENDING_CALLS,
    ROOM_STREAMS_PER_CONNECTION,
    server_options,
)

pytestmark = pytest.mark.integration


async def start_echo_server(**options: int) -> tuple[aio.Server, str]:
    """A stream that reads until the client half-closes: the shape of Play."""

    async def hold(requests, context) -> None:
        async for _ in requests:
            pass

    handlers = grpc.method_handlers_generic_handler("test.Hold", {"Hold": grpc.stream_stream_rpc_method_handler(hold)})
    server = aio.server(options=server_options(1024, 1000, **options))
    server.add_generic_rpc_handlers((handlers,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, f"127.0.0.1:{port}"


def test_every_server_enforces_keepalive_ping_strikes_and_idle_connections() -> None:
    options = dict(server_options(1024, 1000))
    assert options["grpc.max_connection_idle_ms"] > 0
    assert options["grpc.keepalive_time_ms"] > 0 and options["grpc.keepalive_timeout_ms"] > 0
    assert options["grpc.http2.min_recv_ping_interval_without_data_ms"] == MIN_CLIENT_PING_INTERVAL_MS
    assert options["grpc.http2.max_ping_strikes"] == MAX_PING_STRIKES
    assert options["grpc.keepalive_permit_without_calls"] == 0


def test_a_connection_with_no_call_open_is_closed_by_the_server() -> None:
    async def scenario() -> grpc.ChannelConnectivity:
        server, target = await start_echo_server(connection_idle_ms=300)
        try:
            async with aio.insecure_channel(target) as channel:
                await asyncio.wait_for(channel.channel_ready(), 10)
                state = channel.get_state()
                async with asyncio.timeout(10):
                    while state == grpc.ChannelConnectivity.READY:
                        await channel.wait_for_state_change(state)
                        state = channel.get_state()
                return state
        finally:
            await server.stop(0)

    assert run(scenario()) == grpc.ChannelConnectivity.IDLE  # the server's GOAWAY, not the client's choice


def test_a_client_that_pings_too_often_is_sent_away() -> None:
    async def scenario() -> tuple[grpc.StatusCode, str]:
        server, target = await start_echo_server()
        pinging = [("grpc.keepalive_time_ms", 50), ("grpc.keepalive_permit_without_calls", 1),
                   ("grpc.http2.max_pings_without_data", 0)]
        try:
            async with aio.insecure_channel(target, options=pinging) as channel:
                call = channel.stream_stream("/test.Hold/Hold")()
                await call.write(b"hello")
                code = await asyncio.wait_for(call.code(), 30)
                return code, await call.details()
        finally:
            await server.stop(0)

    code, details = run(scenario())
    assert code == grpc.StatusCode.UNAVAILABLE and "too many pings" in details.lower()


def test_calls_past_the_pending_bound_are_cancelled_at_once_and_the_rest_served() -> None:
    """A server whose loop cannot pick calls up (a room busy with a flood of
    stream openings) holds at most the bound of them; the rest are cancelled
    as they arrive instead of piling up in its memory."""
    bound, opened = 8, 40
    ready: list[int] = []
    stuck, release, finished = threading.Event(), threading.Event(), threading.Event()
    served: list[object] = []

    async def picked_up(requests, context) -> None:
        served.append(context)

    async def serve() -> None:
        handlers = grpc.method_handlers_generic_handler(
            "test.Hold", {"Hold": grpc.stream_stream_rpc_method_handler(picked_up)})
        server = aio.server(options=server_options(1024, bound))
        server.add_generic_rpc_handlers((handlers,))
        ready.append(server.add_insecure_port("127.0.0.1:0"))
        await server.start()
        stuck.set()
        release.wait(30)  # blocks this server's loop: nothing is picked up meanwhile
        await asyncio.to_thread(finished.wait, 30)
        await server.stop(0)

    async def flood() -> tuple[list[grpc.StatusCode], int, list[grpc.StatusCode]]:
        async with aio.insecure_channel(f"127.0.0.1:{ready[0]}") as channel:
            calls = [channel.stream_stream("/test.Hold/Hold")() for _ in range(opened)]
            codes = [asyncio.ensure_future(call.code()) for call in calls]
            ended_early = []
            async with asyncio.timeout(20):
                for ending in asyncio.as_completed(codes):
                    ended_early.append(await ending)
                    if len(ended_early) == opened - bound - 4:
                        break
            served_while_stuck = len(served)
            release.set()
            return ended_early, served_while_stuck, list(await asyncio.gather(*codes))

    server_thread = threading.Thread(target=lambda: asyncio.run(serve()), daemon=True)
    server_thread.start()
    assert stuck.wait(30)
    try:
        ended_early, served_while_stuck, codes = run(flood())
    finally:
        release.set()
        finished.set()
        server_thread.join(30)
    assert set(ended_early) == {grpc.StatusCode.CANCELLED} and served_while_stuck == 0
    cancelled = codes.count(grpc.StatusCode.CANCELLED)
    assert codes.count(grpc.StatusCode.OK) == len(served) and cancelled + len(served) == opened
    assert bound <= len(served) <= bound + 4, len(served)  # the bound, and the few gRPC asks for ahead


def test_a_room_holds_far_fewer_calls_than_a_front_door_and_more_than_it_lets_wait_for_a_hello() -> None:
    # A full room's players reconnecting at one moment are more than it holds
    # (500 tables of four): those cancelled are tried again by the SDK.
    assert RoomConfig().max_streams_awaiting_hello <= ROOM_PENDING_CALLS < DEFAULT_TABLES_PER_ROOM * 4
    assert ROOM_PENDING_CALLS * 10 < FRONT_DOOR_PENDING_CALLS
    room = server_options(1024, ROOM_PENDING_CALLS, streams_per_connection=ROOM_STREAMS_PER_CONNECTION)
    assert ("grpc.max_concurrent_streams", ROOM_STREAMS_PER_CONNECTION) in room
    assert ("grpc.http2.bdp_probe", 0) in room  # a client's unread sends stay within HTTP/2's initial window
    assert not any(name == "grpc.max_concurrent_streams" for name, _ in server_options(1024, FRONT_DOOR_PENDING_CALLS))


def test_a_connection_past_its_stream_cap_waits_while_another_connection_is_served() -> None:
    """Streams past the cap on one connection are not let in (gRPC holds them
    on the client until one of the connection's streams ends), while a stream
    on another connection is served at once: a client opening streams as fast
    as it can holds at most the cap of the server's calls per connection."""
    cap = 2
    entered: list[str] = []

    async def hold(requests, context) -> None:
        async for message in requests:
            entered.append(message.decode())
            break
        async for _ in requests:
            pass

    async def scenario() -> tuple[list[str], list[str]]:
        handlers = grpc.method_handlers_generic_handler("test.Hold", {"Hold": grpc.stream_stream_rpc_method_handler(
            hold, request_deserializer=None, response_serializer=None)})
        server = aio.server(options=server_options(1024, 1000, streams_per_connection=cap))
        server.add_generic_rpc_handlers((handlers,))
        target = f"127.0.0.1:{server.add_insecure_port('127.0.0.1:0')}"
        await server.start()
        own = [("grpc.use_local_subchannel_pool", 1)]
        try:
            async with aio.insecure_channel(target, options=own) as first, \
                    aio.insecure_channel(target, options=own) as second:
                # One at a time: gRPC starts a call's stream as the call is made, so
                # calls made together would take the connection's slots in any order.
                calls = []
                for index in range(cap):
                    calls.append(first.stream_stream("/test.Hold/Hold")())
                    await calls[-1].write(f"first-{index}".encode())
                calls.append(first.stream_stream("/test.Hold/Hold")())
                over = asyncio.ensure_future(calls[cap].write(b"first-over-the-cap"))
                other = second.stream_stream("/test.Hold/Hold")()
                await other.write(b"second-0")
                await wait_until(lambda: "second-0" in entered and len(entered) >= cap + 1)
                while_capped = list(entered)
                await calls[0].done_writing()  # one of the connection's streams ends: the held one goes in
                await asyncio.wait_for(over, 10)
                await wait_until(lambda: "first-over-the-cap" in entered)
                for call in (*calls, other):
                    call.cancel()
                return while_capped, list(entered)
        finally:
            await server.stop(0)

    while_capped, finally_entered = run(scenario())
    assert sorted(while_capped) == ["first-0", "first-1", "second-0"]
    assert finally_entered[-1] == "first-over-the-cap"
