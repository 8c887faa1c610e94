"""The lobby service through the wire: queues, leaving, private tables, lookups."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from conftest import run
from support import close_all, play_randomly, seat_table, wait_until, waiting_in_queue

from tablehost.clients.sdk import LobbyClient, QueueCancelled
from tablehost.v1 import lobby_pb2

pytestmark = pytest.mark.integration


def test_leaving_the_queue_cancels_the_wait_and_frees_the_place(host) -> None:
    async def scenario():
        async with LobbyClient(host.target) as lobby, LobbyClient(host.target) as other:
            waiting = asyncio.ensure_future(lobby.join_queue("bigtwo", "leaver", ticket="leaver-ticket"))
            await wait_until(lambda: waiting_in_queue(host) == 1)
            removed = await other.leave_queue("leaver-ticket")
            with pytest.raises(QueueCancelled):
                await waiting
            unknown_removed = await other.leave_queue("leaver-ticket")
            return removed, unknown_removed, waiting_in_queue(host)

    removed, unknown_removed, waiting_after = run(scenario())
    assert removed is True and unknown_removed is False and waiting_after == 0


def test_a_private_table_is_joined_by_its_code_and_plays_to_the_end(host) -> None:
    async def scenario():
        async with LobbyClient(host.target) as creator:
            code = await creator.create_private_table("bigtwo")
        lobbies, sessions = await seat_table(host.target, code=code)
        try:
            await asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(sessions)))
            return code, sessions
        finally:
            await close_all(lobbies, sessions)

    code, sessions = run(scenario())
    assert len(code) == 6
    assert len({s.table_id for s in sessions}) == 1
    assert all(s.result is not None for s in sessions)


def test_bad_lobby_requests_get_specific_statuses(host) -> None:
    async def scenario():
        async with LobbyClient(host.target) as lobby:
            stub = lobby.stub
            failures = {}
            for name, call in {
                "unknown game": stub.JoinQueue(lobby_pb2.JoinQueueRequest(game="chess", display_name="x")),
                "unknown code": stub.JoinPrivateTable(lobby_pb2.JoinPrivateTableRequest(code="ZZZZZZ")),
                "unknown table": stub.Spectate(lobby_pb2.SpectateRequest(table_id="nope")),
                "lookup unknown": stub.LookupTable(lobby_pb2.LookupTableRequest(table_id="nope")),
                "leave unknown": stub.LeaveQueue(lobby_pb2.LeaveQueueRequest(ticket="nope")),
            }.items():
                try:
                    await call
                except grpc.aio.AioRpcError as error:
                    failures[name] = (error.code(), error.details())
            return failures

    failures = run(scenario())
    assert failures["unknown game"][0] == grpc.StatusCode.INVALID_ARGUMENT
    assert "bigtwo" in failures["unknown game"][1]
    assert {name: code for name, (code, _) in failures.items() if name != "unknown game"} == {
        "unknown code": grpc.StatusCode.NOT_FOUND,
        "unknown table": grpc.StatusCode.NOT_FOUND,
        "lookup unknown": grpc.StatusCode.NOT_FOUND,
        "leave unknown": grpc.StatusCode.NOT_FOUND,
    }


def test_lookup_names_the_endpoint_of_a_running_table(host) -> None:
    async def scenario():
        lobbies, sessions = await seat_table(host.target)
        try:
            endpoint = await lobbies[0].lookup_table(sessions[0].table_id)
            await asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(sessions)))
            return endpoint, sessions[0].assignment.endpoint
        finally:
            await close_all(lobbies, sessions)

    looked_up, assigned = run(scenario())
    assert looked_up == assigned and looked_up.startswith("127.0.0.1:")
