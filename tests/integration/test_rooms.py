"""Room actors: desync repair over the wire, binding inside a configured
port range, and a deserted table closed after the grace period."""

from __future__ import annotations

import asyncio
import socket

import grpc
import pytest
import ray
from conftest import run
from support import close_all, play_randomly, seat_table, table_status, wait_until
from test_rejections import hello

from tablehost.actors.config import RoomConfig
from tablehost.actors.room import RoomActor
from tablehost.clients.sdk import LobbyClient
from tablehost.v1 import table_pb2, table_pb2_grpc

pytestmark = pytest.mark.integration


def test_a_wrong_ack_hash_is_answered_with_a_snapshot_and_counted(host) -> None:
    async def scenario():
        lobbies, sessions = await seat_table(host.target)
        try:
            seat_token = sessions[1].assignment.seat_token
            async with grpc.aio.insecure_channel(sessions[1].assignment.endpoint) as channel:
                call = table_pb2_grpc.TableStub(channel).Play()
                await call.write(hello(seat_token))
                first = await asyncio.wait_for(call.read(), 10)
                await call.write(table_pb2.ClientMessage(ack=table_pb2.Ack(seq=first.snapshot.seq, view_hash="0" * 64)))
                repair = await asyncio.wait_for(call.read(), 10)
                await call.write(table_pb2.ClientMessage(ack=table_pb2.Ack(seq=first.snapshot.seq, view_hash=first.snapshot.view_hash)))
                await call.done_writing()
                status = await table_status(host, sessions[1].table_id)
            await sessions[1].reconnect()  # the raw stream took the seat over (one live stream per seat)
            await asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(sessions)))
            return first, repair, status
        finally:
            await close_all(lobbies, sessions)

    first, repair, status = run(scenario())
    assert repair.HasField("snapshot")
    assert repair.snapshot.view_hash == first.snapshot.view_hash and repair.snapshot.seat == 1
    assert status.desyncs == 1


def test_a_room_binds_inside_its_configured_port_range(host) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        low = probe.getsockname()[1]
    room = RoomActor.remote("range-test", RoomConfig(port_min=low, port_max=low + 20))
    try:
        endpoint = ray.get(room.start.remote(), timeout=30).endpoint
    finally:
        ray.get(room.stop.remote(), timeout=30)
        ray.kill(room)
    bound_host, port = endpoint.rsplit(":", 1)
    assert bound_host == "127.0.0.1" and low <= int(port) <= low + 20


def test_a_table_every_player_left_is_closed_after_the_grace_period(host) -> None:
    async def scenario():
        lobbies, sessions = await seat_table(host.target)
        table_id = sessions[0].table_id
        await close_all(lobbies, sessions)  # mid-game: nobody made a move
        await wait_until(lambda: host.lobby("table_record", table_id).outcome is not None, timeout=20)
        return table_id

    table_id = run(scenario())
    assert host.lobby("table_record", table_id).outcome == "closed"
    assert host.lobby("describe_tables", [table_id]) == {table_id: None}, "not running: nothing to look up"


def test_a_table_nobody_ever_joins_is_cancelled_at_its_deals_deadline(host) -> None:
    """Players who were seated and never opened their table stream do not
    hold a slot until the turn timers have played the whole game out: the
    table is cancelled when its deal's wait is over."""

    async def scenario():
        lobbies = [LobbyClient(host.target) for _ in range(4)]
        assignments = await asyncio.gather(*(lobby.join_queue("bigtwo", f"ghost-{i}") for i, lobby in enumerate(lobbies)))
        for lobby in lobbies:
            await lobby.close()
        table_id = assignments[0].table_id
        await wait_until(lambda: host.lobby("table_record", table_id).outcome is not None, timeout=20)
        return table_id

    assert host.lobby("table_record", run(scenario())).outcome == "cancelled"
