"""Rooms that hold many tables, a lobby that holds many waiting players,
and what happens when a room's rules or its process fail: through the real
front door, lobby and room actors, on the session's local Ray."""

from __future__ import annotations

import asyncio
import base64
from collections import Counter

import grpc
import msgpack
import pytest
from conftest import admin_call_metadata, run
from support import (close_all, kill, lobby_status, play_randomly, room_of, rooms_by_id, seat_table,
                     wait_for_quiet_lobby, wait_until)
from test_rejections import commit, hello, raw_exchange

from tablehost.actors.door_exchange import DoorJoin
from tablehost.clients.codec import apply_delta, decode
from tablehost.clients.sdk import LobbyClient, LobbyError
from tablehost.v1 import admin_pb2, admin_pb2_grpc, lobby_pb2, table_pb2, table_pb2_grpc

pytestmark = pytest.mark.integration


@pytest.mark.slow
def test_forty_tables_play_at_once_in_shared_rooms_and_every_hash_verifies(host) -> None:
    async def scenario():
        await wait_for_quiet_lobby(host)
        tables = await asyncio.gather(*(seat_table(host.target, names=[f"t{t}-p{s}" for s in range(4)], record=True)
                                        for t in range(40)))
        sessions = [session for _, table_sessions in tables for session in table_sessions]
        try:
            await asyncio.gather(*(play_randomly(s, seed) for seed, s in enumerate(sessions)))
            return sessions
        finally:
            for lobbies, table_sessions in tables:
                await close_all(lobbies, table_sessions)

    sessions = run(scenario(), timeout=240)
    table_ids = {s.table_id for s in sessions}
    assert len(table_ids) == 40
    assert all(s.result is not None and s.desyncs == 0 and s.gaps == 0 for s in sessions)
    rooms = Counter(room_of(host, table_id) for table_id in table_ids)
    # Many tables per room process, spread evenly over the rooms.
    assert len(rooms) >= 2 and max(rooms.values()) - min(rooms.values()) <= 1
    assert min(rooms.values()) >= 40 // len(rooms)
    # A stream only ever hears of its own table: every snapshot names it, and
    # its last delta's seq is its own table's final seq.
    for session in sessions:
        messages = [table_pb2.ServerMessage.FromString(raw) for raw in session.received]
        snapshots = [m.snapshot for m in messages if m.WhichOneof("kind") == "snapshot"]
        assert snapshots and all(s.table_id == session.table_id for s in snapshots)
        assert session.result.seq == session.seq
    by_table: dict[str, set[int]] = {}
    for session in sessions:
        by_table.setdefault(session.table_id, set()).add(session.result.seq)
    assert all(len(final_seqs) == 1 for final_seqs in by_table.values())


def test_a_token_reaches_only_its_own_table_in_a_shared_room(host) -> None:
    async def scenario():
        await wait_for_quiet_lobby(host)
        seated = [await seat_table(host.target) for _ in range(len(rooms_by_id(host)) + 1)]
        try:
            by_room: dict[str, list] = {}
            for lobbies, sessions in seated:
                by_room.setdefault(room_of(host, sessions[0].table_id), []).append(sessions)
            first, second = next(tables for tables in by_room.values() if len(tables) >= 2)[:2]
            # Table A's token on the shared endpoint opens table A, not B.
            own, _ = await raw_exchange(first[0].assignment.endpoint, [hello(first[0].assignment.seat_token)], 1)
            # Table B's id under table A's signature is a forgery.
            payload, signature = first[0].assignment.seat_token.split(".")
            claim = msgpack.unpackb(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
            claim["table"] = second[0].table_id
            forged_payload = base64.urlsafe_b64encode(msgpack.packb(claim)).rstrip(b"=").decode()
            forged, status = await raw_exchange(first[0].assignment.endpoint, [hello(f"{forged_payload}.{signature}")], 2)
            return first[0].table_id, own, forged, status
        finally:
            for lobbies, sessions in seated:
                await close_all(lobbies, sessions)

    table_id, own, forged, status = run(scenario())
    assert own[0].snapshot.table_id == table_id
    assert forged[0].rejection.reason == table_pb2.REJECT_REASON_BAD_TOKEN and status == grpc.StatusCode.UNAUTHENTICATED


async def seat_faulty_table(host, *, turn_timeout_ms: int = 0) -> tuple[list[LobbyClient], list]:
    """Four players at a table of the deliberately broken test game."""
    lobbies = [LobbyClient(host.target) for _ in range(4)]
    if turn_timeout_ms:
        request = lobby_pb2.CreatePrivateTableRequest(game="faulty", turn_timeout_ms=turn_timeout_ms)
        code = (await lobbies[0].stub.CreatePrivateTable(request)).code
        assignments = await asyncio.gather(*(l.join_private_table(code, f"f{i}") for i, l in enumerate(lobbies)))
    else:
        assignments = await asyncio.gather(*(l.join_queue("faulty", f"f{i}") for i, l in enumerate(lobbies)))
    return lobbies, sorted(assignments, key=lambda a: a.seat)


async def read_until_closed(endpoint: str, token: str) -> tuple[list, grpc.StatusCode, str]:
    """Open a raw stream, keep reading until the room ends it."""
    async with grpc.aio.insecure_channel(endpoint) as channel:
        call = table_pb2_grpc.TableStub(channel).Play()
        await call.write(hello(token))
        received = []
        try:
            while (message := await asyncio.wait_for(call.read(), 20)) is not grpc.aio.EOF:
                received.append(message)
        except grpc.aio.AioRpcError as error:
            return received, error.code(), error.details()
        return received, grpc.StatusCode.OK, ""


def test_a_table_whose_rules_fail_is_closed_and_its_room_carries_on(host) -> None:
    async def scenario():
        await wait_for_quiet_lobby(host)
        faulty_lobbies, faulty = await seat_faulty_table(host)
        faulty_room = room_of(host, faulty[0].table_id)
        # Least-loaded placement: within one table per room, one lands beside it.
        neighbours = []
        while not any(room_of(host, s[0].table_id) == faulty_room for _, s in neighbours):
            assert len(neighbours) <= len(rooms_by_id(host))
            neighbours.append(await seat_table(host.target))
        lobbies, sessions = next((l, s) for l, s in neighbours if room_of(host, s[0].table_id) == faulty_room)
        try:
            # Every seat says hello (a table whose seat never comes is cancelled, not dealt):
            # three on streams held open, seat 0 reading the table before its deal, then the deal.
            held = {a.seat: asyncio.ensure_future(read_until_closed(a.endpoint, a.seat_token)) for a in faulty[1:]}
            first = await raw_exchange(faulty[0].endpoint, [hello(faulty[0].seat_token)], 2)
            to_act = apply_delta(decode(first[0][0].snapshot.view), decode(first[0][1].delta.delta))["to_act"]
            watching = next(seat for seat in held if seat != to_act)
            exploded = await raw_exchange(
                faulty[to_act].endpoint,
                [hello(faulty[to_act].seat_token), commit("boom", msgpack.packb({"type": "explode"}))], 3,
            )
            watched = await held[watching]
            await asyncio.gather(*held.values(), return_exceptions=True)
            await wait_until(lambda: host.lobby("table_record", faulty[0].table_id).outcome is not None)
            lookup = await _lookup_status(faulty_lobbies[0], faulty[0].table_id)
            await asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(sessions)))
            return exploded, watched, lookup, sessions, faulty[0].table_id
        finally:
            await close_all(lobbies, sessions)
            for other_lobbies, other_sessions in neighbours:
                await close_all(other_lobbies, other_sessions)
            await close_all(faulty_lobbies, [])

    exploded, watched, lookup, sessions, faulty_table = run(scenario())
    assert exploded[1] == grpc.StatusCode.INTERNAL
    _, watcher_status, details = watched
    assert watcher_status == grpc.StatusCode.INTERNAL
    assert "its rules failed" in details and "ZeroDivisionError" in details
    assert host.lobby("table_record", faulty_table).outcome == "failed"
    assert lookup == grpc.StatusCode.NOT_FOUND
    # The neighbour in the same room played on to the end, every hash verified.
    assert all(s.result is not None and s.desyncs == 0 for s in sessions)


def test_a_turn_timer_whose_automatic_move_fails_closes_only_that_table(host) -> None:
    async def scenario():
        # Long enough for the stream to attach before the first turn expires.
        lobbies, faulty = await seat_faulty_table(host, turn_timeout_ms=2000)
        try:
            # Every seat says hello, so the table deals (and its first turn's timer explodes).
            held = [asyncio.ensure_future(read_until_closed(a.endpoint, a.seat_token)) for a in faulty]
            closed = await held[0]
            await asyncio.gather(*held, return_exceptions=True)
            await wait_until(lambda: host.lobby("table_record", faulty[0].table_id).outcome is not None)
            return closed, faulty[0].table_id
        finally:
            await close_all(lobbies, [])

    (received, status, details), table_id = run(scenario())
    assert received[0].WhichOneof("kind") == "snapshot"
    assert status == grpc.StatusCode.INTERNAL and "automatic move for seat" in details and "failed" in details
    assert host.lobby("table_record", table_id).outcome == "failed"


async def _streams(host, table_id: str) -> int:
    rooms = await host.host.lobby.room_handles.remote()
    status = await rooms[room_of(host, table_id)].table_status.remote(table_id)
    return 0 if status is None else status.streams


async def _lookup_status(lobby: LobbyClient, table_id: str) -> grpc.StatusCode | None:
    try:
        await lobby.lookup_table(table_id)
    except LobbyError as error:
        return error.code
    return None


@pytest.mark.slow
def test_two_thousand_callers_at_once_are_all_seated_while_lookups_answer(host) -> None:
    callers = 2_000

    async def scenario():
        await wait_for_quiet_lobby(host)
        lobbies, sessions = await seat_table(host.target)  # a table to look up meanwhile
        probe = lobbies[0]
        table_id = sessions[0].table_id
        clients = [LobbyClient(host.target) for _ in range(callers)]
        burst = asyncio.gather(*(c.join_queue("bigtwo", f"crowd-{i}", ticket=f"crowd-{i}") for i, c in enumerate(clients)))
        lookups_during_burst = 0
        while not burst.done():
            assert await asyncio.wait_for(probe.lookup_table(table_id), 10) == sessions[0].endpoint
            lookups_during_burst += 1 if not burst.done() else 0
        assignments = await burst
        for client in clients:
            await client.close()  # they only join and leave: the tables are deserted
        await close_all(lobbies, sessions)
        await wait_for_quiet_lobby(host)
        return assignments, lookups_during_burst

    assignments, lookups = run(scenario(), timeout=240)
    assert len(assignments) == callers and len({a.ticket for a in assignments}) == callers
    seats_by_table: dict[str, list[int]] = {}
    for assignment in assignments:
        seats_by_table.setdefault(assignment.table_id, []).append(assignment.seat)
    assert len(seats_by_table) == callers // 4
    assert all(sorted(seats) == [0, 1, 2, 3] for seats in seats_by_table.values())
    assert lookups >= 1


def test_a_caller_who_hangs_up_while_waiting_is_never_seated(host) -> None:
    async def scenario():
        await wait_for_quiet_lobby(host)
        async with LobbyClient(host.target) as leaver:
            waiting = asyncio.ensure_future(leaver.join_queue("bigtwo", "leaver", ticket="hangs-up"))
            await wait_until(lambda: _waiting(host) == 1)
            waiting.cancel()  # the client hangs up: gRPC cancels the call
            await wait_until(lambda: _waiting(host) == 0)
        lobbies, sessions = await seat_table(host.target, names=["a", "b", "c", "d"])
        await close_all(lobbies, sessions)
        return host.lobby("table_record", sessions[0].table_id)

    record = run(scenario())
    assert "hangs-up" not in record.tickets and sorted(record.players) == ["a", "b", "c", "d"]


def _waiting(host) -> int:
    return sum(queue.waiting + queue.proposed for queue in lobby_status(host).queues)


def test_a_player_whose_front_door_declines_is_replaced_from_the_queue(host) -> None:
    """Speaking the front door's side of the lobby protocol directly: the
    lobby proposes four players; one is declined (gone); no table starts
    until a fifth fills the seat, and the declined player is in no table."""
    import ray

    lobby = host.host.lobby
    door = "test-door"

    def exchange(joins=(), answers=()):
        return ray.get(lobby.door_exchange.remote(door, list(joins), [], list(answers)), timeout=30)

    def poll():
        return ray.get(lobby.door_poll.remote(door, 5.0), timeout=30)

    def join(ticket):
        return DoorJoin(ticket, ticket, {}, game="bigtwo")

    exchange(joins=[join(f"d{i}") for i in range(4)])
    proposals = poll().proposals
    assert sorted(ticket for _, ticket in proposals) == ["d0", "d1", "d2", "d3"]
    exchange(answers=[(group, ticket, ticket != "d2") for group, ticket in proposals])
    exchange(joins=[join("d4")])
    mail = poll()
    assert mail.seated == []
    refilled = mail.proposals
    assert sorted(ticket for _, ticket in refilled) == ["d0", "d1", "d3", "d4"]
    exchange(answers=[(group, ticket, True) for group, ticket in refilled])
    seated = poll().seated
    assert sorted(a.ticket for a in seated) == ["d0", "d1", "d3", "d4"]
    assert len({a.table_id for a in seated}) == 1 and sorted(a.seat for a in seated) == [0, 1, 2, 3]


def test_a_killed_empty_room_is_replaced_without_failing_a_table(host) -> None:
    async def scenario():
        await wait_for_quiet_lobby(host)
        rooms = rooms_by_id(host)
        victim = min(rooms.values(), key=lambda r: r.room_id)
        kill(victim.pid)
        # Straight away, before the lobby may have noticed: no table fails.
        seated = [await seat_table(host.target) for _ in range(len(rooms))]
        try:
            tables = [sessions[0].table_id for _, sessions in seated]
            used = {room_of(host, table_id) for table_id in tables}
        finally:
            for lobbies, sessions in seated:
                await close_all(lobbies, sessions)
        await wait_until(lambda: victim.room_id not in rooms_by_id(host)
                         and len([r for r in rooms_by_id(host).values() if r.state == "ready"]) >= len(rooms),
                         timeout=60)
        return victim.room_id, used

    victim, used = run(scenario())
    assert victim not in used


def test_oversized_or_undeclared_lobby_requests_are_refused_with_invalid_argument(host) -> None:
    async def scenario():
        async with LobbyClient(host.target) as lobby:
            stub = lobby.stub
            outcomes = {}
            for name, call in {
                "long name": stub.JoinQueue(lobby_pb2.JoinQueueRequest(game="bigtwo", display_name="n" * 65)),
                "control characters": stub.JoinQueue(lobby_pb2.JoinQueueRequest(game="bigtwo", display_name="a\nb")),
                "undeclared variant": stub.JoinQueue(lobby_pb2.JoinQueueRequest(game="bigtwo", variant="x" * 40)),
                "long ticket": stub.JoinQueue(lobby_pb2.JoinQueueRequest(game="bigtwo", ticket="t" * 65)),
                "bad code": stub.JoinPrivateTable(lobby_pb2.JoinPrivateTableRequest(code="abc")),
                "private undeclared variant": stub.CreatePrivateTable(
                    lobby_pb2.CreatePrivateTableRequest(game="bigtwo", variant="fast")),
                "one megabyte": stub.JoinQueue(lobby_pb2.JoinQueueRequest(game="bigtwo", display_name="m" * 2**20)),
            }.items():
                try:
                    await asyncio.wait_for(call, 10)
                    outcomes[name] = None
                except grpc.aio.AioRpcError as error:
                    outcomes[name] = (error.code(), error.details())
            return outcomes

    outcomes = run(scenario())
    megabyte = outcomes.pop("one megabyte")
    assert megabyte[0] == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert {name: code for name, (code, _) in outcomes.items()} == {name: grpc.StatusCode.INVALID_ARGUMENT for name in outcomes}
    assert "at most 64" in outcomes["long name"][1]
    assert "declares ''" in outcomes["undeclared variant"][1]
    assert _waiting(host) == 0


def test_the_admin_status_shows_rooms_per_node_tables_and_queues(host) -> None:
    async def scenario():
        await wait_for_quiet_lobby(host)
        lobbies, sessions = await seat_table(host.target)
        async with LobbyClient(host.target) as waiter_lobby:
            waiting = asyncio.ensure_future(waiter_lobby.join_queue("bigtwo", "alone"))
            await wait_until(lambda: _waiting(host) == 1)
            try:
                async with grpc.aio.insecure_channel(host.admin_target) as channel:
                    status = await admin_pb2_grpc.AdminStub(channel).Status(
                        admin_pb2.StatusRequest(), metadata=admin_call_metadata(), timeout=10)
            finally:
                waiting.cancel()
                await close_all(lobbies, sessions)
        return status, sessions[0].table_id

    status, table_id = run(scenario())
    rooms = [room for node in status.nodes for room in node.rooms]
    assert status.tables == 1 and status.tables_per_room == 300 and status.rooms == len(rooms) >= 2
    assert sum(room.tables for room in rooms) == 1
    assert status.free_slots == sum(room.capacity - room.tables for room in rooms if room.state == "ready")
    assert any(room.room_id == room_of(host, table_id) and room.tables == 1 for room in rooms)
    assert [(q.game, q.waiting) for q in status.queues] == [("bigtwo", 1)]
    assert all(node.alive and node.cpus > 0 for node in status.nodes)
