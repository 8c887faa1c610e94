"""Health checking and reflection answer standard gRPC clients, and
everything the host runs stays on loopback."""

from __future__ import annotations

import grpc
import psutil
import pytest
from conftest import run
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase
from support import close_all, seat_table, sockets_beyond_loopback

pytestmark = pytest.mark.integration


def test_the_front_door_answers_health_checks(host) -> None:
    async def scenario():
        async with grpc.aio.insecure_channel(host.target) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            overall = await stub.Check(health_pb2.HealthCheckRequest(service=""))
            lobby = await stub.Check(health_pb2.HealthCheckRequest(service="tablehost.v1.Lobby"))
            return overall.status, lobby.status

    assert run(scenario()) == (health_pb2.HealthCheckResponse.SERVING, health_pb2.HealthCheckResponse.SERVING)


def test_a_room_answers_health_checks_for_its_table_service(host) -> None:
    async def scenario():
        lobbies, sessions = await seat_table(host.target)
        endpoint = sessions[0].assignment.endpoint
        await close_all(lobbies, sessions)
        async with grpc.aio.insecure_channel(endpoint) as channel:
            reply = await health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service="tablehost.v1.Table")
            )
            return reply.status

    assert run(scenario()) == health_pb2.HealthCheckResponse.SERVING


def describe(target: str, symbol: str):
    """What a standard reflection client learns: the services, and the file defining `symbol`."""
    channel = grpc.insecure_channel(target)
    try:
        database = ProtoReflectionDescriptorDatabase(channel)
        return set(database.get_services()), database.FindFileContainingSymbol(symbol)
    finally:
        channel.close()


def test_reflection_on_the_admin_listener_describes_the_lobby_service(host) -> None:
    services, lobby = describe(host.admin_target, "tablehost.v1.Lobby")
    assert {"tablehost.v1.Lobby", "grpc.health.v1.Health"} <= services
    assert lobby.name == "tablehost/v1/lobby.proto"
    assert [m.name for m in lobby.service[0].method][:2] == ["JoinQueue", "LeaveQueue"]


def test_every_socket_of_the_host_is_on_loopback(host) -> None:
    """Ray, the lobby, every room and the front door: listening and
    connected sockets of this process tree are all 127.0.0.1."""
    processes, outside = sockets_beyond_loopback(psutil.Process())
    assert processes > 3  # gcs, raylet, workers: Ray really runs here
    assert not outside, outside


def test_the_players_port_serves_neither_reflection_nor_the_admin_service(host) -> None:
    """What players reach is what they need: Lobby, Tournaments, health."""
    from tablehost.v1 import admin_pb2, admin_pb2_grpc

    with grpc.insecure_channel(host.target) as channel:
        with pytest.raises(grpc.RpcError) as admin_call:
            admin_pb2_grpc.AdminStub(channel).Status(admin_pb2.StatusRequest(), timeout=10)
        with pytest.raises(grpc.RpcError) as reflection_call:
            ProtoReflectionDescriptorDatabase(channel).get_services()
    assert admin_call.value.code() == grpc.StatusCode.UNIMPLEMENTED
    assert reflection_call.value.code() == grpc.StatusCode.UNIMPLEMENTED


def test_the_admin_listener_describes_the_table_service_that_rooms_serve(host) -> None:
    services, table = describe(host.admin_target, "tablehost.v1.Table")
    assert "tablehost.v1.Table" in services
    assert table.service[0].method[0].name == "Play"


def test_every_process_of_the_local_ray_rotates_its_logs(host) -> None:
    """Ray rotates a worker's output only when told to: the lobby's and every
    room's processes have the rotation settings, so no client can fill the disk
    through the host's logs."""
    from tablehost.host.server import LOG_ROTATION

    status = host.lobby("status")
    pids = [status.pid] + [room.pid for node in status.nodes for room in node.rooms]
    environments = [psutil.Process(pid).environ() for pid in pids]
    assert len(pids) >= 2
    assert all(int(env.get("RAY_ROTATION_MAX_BYTES", 0)) > 0 and int(env.get("RAY_ROTATION_BACKUP_COUNT", 0)) > 0
               for env in environments)
    assert int(LOG_ROTATION["RAY_ROTATION_MAX_BYTES"]) * (1 + int(LOG_ROTATION["RAY_ROTATION_BACKUP_COUNT"])) <= 2**30


def test_the_lobby_and_every_room_run_at_the_front_doors_priority(host) -> None:
    """Ray would start its workers at niceness 15, below the front door: a
    flood of refused calls at the front door would then take the CPU from
    the rooms serving every move. The host asks Ray for niceness 0."""
    status = host.lobby("status")
    pids = [status.pid] + [room.pid for node in status.nodes for room in node.rooms]
    assert len(pids) >= 2
    assert [psutil.Process(pid).nice() for pid in pids] == [psutil.Process().nice()] * len(pids)
