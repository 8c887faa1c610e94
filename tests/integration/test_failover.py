"""What survives a crash: a room's tables resume in another room from the
store, and a killed lobby is restarted by Ray, takes its rooms and their
tables back, and seats the players who were waiting, while the games in the
rooms go on. Processes are killed with SIGKILL, as a crash would end them."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from dataclasses import replace

import grpc
import pytest
import ray
from conftest import run
from grpc_health.v1 import health_pb2, health_pb2_grpc
from support import (close_all, kill, lobby_status, play_randomly, room_of, rooms_by_id, seat_table,
                     wait_for_quiet_lobby, wait_until, waiting_in_queue)

from tablehost.actors.lobby_status import LobbyStatus
from tablehost.actors.room_calls import OpenedTable, SeatRequest, TableRequest
from tablehost.actors.store.local import LocalStore
from tablehost.actors.tokens import SeatClaim, sign_seat_token
from tablehost.clients.sdk import Assignment, LobbyClient, TableSession
from tablehost.games.engine.fairness import TableSeed

pytestmark = pytest.mark.integration


def test_a_killed_rooms_tables_resume_in_another_room_and_play_on_with_nothing_lost(host) -> None:
    """SIGKILL of a room mid-game: the lobby notices, its tables resume in
    another room from the store, LookupTable names the new room, and the
    players' sessions reconnect there and finish the game: no change a
    player saw is lost (seqs never go back, every hash verifies)."""

    async def scenario():
        await wait_for_quiet_lobby(host)
        lobbies, sessions = await seat_table(host.target)
        table_id = sessions[0].table_id
        room_id = room_of(host, table_id)
        try:
            for step in range(12):  # some moves before the kill, every player up to date after each
                await wait_until(lambda: all(s.seq == 1 + step for s in sessions), timeout=10)  # seq 1: the deal
                seat = sessions[0].view["to_act"]
                view = await sessions[seat].wait_for_request(timeout=10)
                assert (await sessions[seat].commit(view["request"]["legal_actions"][0])).accepted
            seen_before_kill = [s.seq for s in sessions]
            kill(rooms_by_id(host)[room_id].pid)
            await wait_until(lambda: room_id not in rooms_by_id(host), timeout=30)
            await wait_until(lambda: room_of(host, table_id) != room_id, timeout=30)
            endpoint = await lobbies[0].lookup_table(table_id)
            moves = await asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(sessions)))
            return room_id, table_id, endpoint, seen_before_kill, moves, sessions
        finally:
            await close_all(lobbies, sessions)

    room_id, table_id, endpoint, seen_before_kill, moves, sessions = run(scenario())
    assert endpoint == rooms_by_id(host)[room_of(host, table_id)].endpoint and room_of(host, table_id) != room_id
    assert all(s.result is not None and s.desyncs == 0 and s.gaps == 0 for s in sessions)
    assert all(s.reconnects >= 1 for s in sessions)
    assert all(s.result.seq >= before for s, before in zip(sessions, seen_before_kill))
    assert len({s.result.seq for s in sessions}) == 1 and 1 + 12 + sum(moves) == sessions[0].result.seq


def test_a_finished_table_whose_room_died_while_it_lingered_still_closes(host) -> None:
    """The game ends and its room is killed before the table's linger is
    over, so the store never heard it finished: the table resumes in another
    room already over, and must still close and free its slot there."""

    async def scenario():
        await wait_for_quiet_lobby(host)
        lobbies, sessions = await seat_table(host.target)
        table_id = sessions[0].table_id
        room_id = room_of(host, table_id)
        try:
            await asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(sessions)))
            # The players are still connected, so the table lingers (2 s on the test host).
            kill(rooms_by_id(host)[room_id].pid)
        finally:
            await close_all(lobbies, sessions)
        await wait_until(lambda: room_id not in rooms_by_id(host), timeout=30)
        await wait_until(lambda: lobby_status(host).tables == 0, timeout=30)
        return table_id, room_id

    table_id, killed_room = run(scenario())
    record = host.lobby("table_record", table_id)
    assert record.room_id not in (None, killed_room) and record.outcome == "finished", record


def restarted_lobby(host, killed_pid: int) -> LobbyStatus | None:
    """The lobby's status once a new process answers (None while Ray restarts it)."""
    try:
        status = lobby_status(host)
    except ray.exceptions.RayError:
        return None
    return status if status.pid != killed_pid else None


async def _watch_health(target: str, seen: list[int], until_back: asyncio.Event) -> None:
    """Every status the front door's health reports, as a load balancer's
    Watch would see them, until it is SERVING again after NOT_SERVING."""
    async with grpc.aio.insecure_channel(target) as channel:
        async for reply in health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest(service="")):
            seen.append(reply.status)
            if health_pb2.HealthCheckResponse.NOT_SERVING in seen and reply.status == health_pb2.HealthCheckResponse.SERVING:
                until_back.set()
                return


@pytest.mark.slow
def test_a_killed_lobby_comes_back_with_its_rooms_tables_and_waiting_players(host) -> None:
    """SIGKILL of the lobby actor's process: Ray restarts it; the rooms
    (detached) and their games carry on meanwhile; the restarted lobby takes
    the rooms and their tables back (LookupTable answers as before); the
    front door is NOT_SERVING while the lobby is away; players who were
    waiting, and players who came during the outage, are seated."""

    async def scenario():
        loop = asyncio.get_running_loop()
        await wait_for_quiet_lobby(host)
        lobbies, sessions = await seat_table(host.target)
        table_id = sessions[0].table_id
        endpoint_before = sessions[0].endpoint
        early = [LobbyClient(host.target) for _ in range(2)]
        late = [LobbyClient(host.target) for _ in range(2)]
        try:
            joins = [asyncio.ensure_future(c.join_queue("bigtwo", f"early-{i}")) for i, c in enumerate(early)]
            await wait_until(lambda: waiting_in_queue(host) == 2, timeout=10)
            health: list[int] = []
            back = asyncio.Event()
            watcher = asyncio.ensure_future(_watch_health(host.target, health, back))
            await wait_until(lambda: health == [health_pb2.HealthCheckResponse.SERVING], timeout=10)
            before = lobby_status(host)
            rooms_before = {room_id: room.pid for room_id, room in rooms_by_id(host).items()}

            kill(before.pid)
            killed_at = loop.time()
            joins += [asyncio.ensure_future(c.join_queue("bigtwo", f"late-{i}")) for i, c in enumerate(late)]
            moves_in_outage = 4
            for step in range(moves_in_outage):  # the room serves its players whatever the lobby's state
                await wait_until(lambda: all(s.seq == 1 + step for s in sessions), timeout=10)  # seq 1: the deal
                seat = sessions[0].view["to_act"]
                view = await sessions[seat].wait_for_request(timeout=10)
                assert (await sessions[seat].commit(view["request"]["legal_actions"][0])).accepted
            await asyncio.wait_for(back.wait(), 60)
            serving_again_s = loop.time() - killed_at
            endpoint_after = await lobbies[0].lookup_table(table_id)
            seated = await asyncio.wait_for(asyncio.gather(*joins), 60)
            seated_s = loop.time() - killed_at
            await watcher
            moves = await asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(sessions)))
            after = lobby_status(host)
            return (before, after, rooms_before, rooms_by_id(host), health, endpoint_before, endpoint_after,
                    seated, sessions, 1 + moves_in_outage + sum(moves), serving_again_s, seated_s)
        finally:
            await close_all(lobbies + early + late, sessions)

    (before, after, rooms_before, rooms_after, health, endpoint_before, endpoint_after, seated, sessions, moves,
     serving_again_s, seated_s) = run(scenario(), timeout=180)
    print(f"front door SERVING again {serving_again_s:.1f} s after the lobby's SIGKILL; "
          f"players waiting through it seated {seated_s:.1f} s after")
    assert after.pid != before.pid and after.incarnation != before.incarnation
    assert {room_id: rooms_after[room_id].pid for room_id in rooms_before} == rooms_before  # no room died
    assert health[:2] == [health_pb2.HealthCheckResponse.SERVING, health_pb2.HealthCheckResponse.NOT_SERVING]
    assert health[-1] == health_pb2.HealthCheckResponse.SERVING
    assert endpoint_after == endpoint_before
    assert len({a.table_id for a in seated}) == 1 and sorted(a.seat for a in seated) == [0, 1, 2, 3]
    # The restarted lobby counts tables from 1 again; its ids carry its incarnation.
    assert f"-{after.incarnation[:8]}.1-" in seated[0].table_id
    assert all(s.result is not None and s.desyncs == 0 and s.gaps == 0 for s in sessions)
    assert sessions[0].result.seq == moves


@pytest.mark.slow
def test_a_room_that_dies_while_the_lobby_is_away_has_its_tables_resumed_by_the_restarted_lobby(host) -> None:
    """The lobby is killed, then a room: no lobby saw the room die, so the
    restarted one finds the room's tables in the store (unfinished, held by
    no room) and resumes them; the players reconnect and finish."""

    async def scenario():
        await wait_for_quiet_lobby(host)
        lobbies, sessions = await seat_table(host.target)
        table_id = sessions[0].table_id
        room_id = room_of(host, table_id)
        try:
            for step in range(6):
                await wait_until(lambda: all(s.seq == 1 + step for s in sessions), timeout=10)  # seq 1: the deal
                seat = sessions[0].view["to_act"]
                view = await sessions[seat].wait_for_request(timeout=10)
                assert (await sessions[seat].commit(view["request"]["legal_actions"][0])).accepted
            lobby_pid, room_pid = lobby_status(host).pid, rooms_by_id(host)[room_id].pid
            kill(lobby_pid)
            kill(room_pid)
            await wait_until(lambda: restarted_lobby(host, lobby_pid) is not None, timeout=60)
            await wait_until(lambda: room_of(host, table_id) != room_id, timeout=60)
            moves = await asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(sessions)))
            return sessions, 1 + 6 + sum(moves), room_of(host, table_id)
        finally:
            await close_all(lobbies, sessions)

    sessions, moves, resumed_in = run(scenario(), timeout=180)
    assert resumed_in not in ("", None)
    assert all(s.result is not None and s.desyncs == 0 and s.gaps == 0 and s.reconnects >= 1 for s in sessions)
    assert {s.result.seq for s in sessions} == {moves}


@pytest.mark.slow
def test_a_turn_timer_resumes_with_the_time_it_had_left_when_its_room_died(host) -> None:
    """Deadlines live in the table's state (epoch ms): the room that resumes
    the table plays the silent player's turn at the deadline set before the
    crash, not a whole turn later."""

    async def scenario():
        await wait_for_quiet_lobby(host)
        async with LobbyClient(host.target) as creator:
            code = await creator.create_private_table("bigtwo", turn_timeout_ms=6000)
        lobbies, sessions = await seat_table(host.target, code=code)
        try:
            table_id = sessions[0].table_id
            room_id = room_of(host, table_id)
            watcher = sessions[(sessions[0].view["to_act"] + 1) % 4]
            updates = watcher.subscribe()
            deadline_ms = watcher.view["deadline_ms"]
            # Half the turn goes by, then the room dies.
            await wait_until(lambda: time.time() * 1000 >= deadline_ms - 3000, timeout=10)
            kill(rooms_by_id(host)[room_id].pid)
            await wait_until(lambda: watcher.seq >= 2, timeout=20)  # seq 1 was the deal
            arrived_ms = time.time() * 1000
            seen = []
            while not updates.empty():
                seen.append(updates.get_nowait())
            return deadline_ms, arrived_ms, seen, room_of(host, table_id) != room_id
        finally:
            await close_all(lobbies, sessions)

    deadline_ms, arrived_ms, seen, moved = run(scenario(), timeout=90)
    automatic = [u for u in seen if u.kind == "delta" and u.seq == 2]
    assert moved and len(automatic) == 1 and automatic[0].automatic
    assert automatic[0].previous["deadline_ms"] == deadline_ms  # the resumed table kept the deadline
    # Played at the deadline (a new whole turn would have come 3 s later than this bound).
    assert deadline_ms <= arrived_ms < deadline_ms + 1500


def _direct_table(host, room_handle, table_id: str) -> tuple[OpenedTable, list[Assignment]]:
    """A table opened in a room by a direct Ray call, unknown to the lobby
    (so its bookkeeping is untouched), and a seat assignment per seat."""
    request = TableRequest(table_id, "bigtwo", "", TableSeed.numbered(11),
                           tuple(SeatRequest(f"{table_id}-t{i}", f"f{i}") for i in range(4)), {})
    (answer,) = ray.get(room_handle.open_tables.remote([request]), timeout=30)
    config = host.host.config.lobby_config(host.host.run_id).room
    expires_ms = int(time.time() * 1000) + 600_000
    assignments = [
        Assignment(table_id, "", seat,
                   sign_seat_token(config.token_secret, SeatClaim(table_id, seat, expires_ms, config.run_id)),
                   "bigtwo", answer.opened.players, ticket)
        for seat, ticket in enumerate(answer.opened.tickets)
    ]
    return answer.opened, assignments


def test_a_paused_room_whose_table_resumed_elsewhere_cannot_append(host) -> None:
    """Room A is paused (SIGSTOP: a hung process, or a node cut off), the
    table resumes in room B (its epoch moves on), then A wakes up and takes
    a commit on the stream it still had open: the store refuses A's append
    (fenced), so A never publishes it and drops the table; the same commit
    sent to B takes effect there, once."""
    store = LocalStore(host.host.config.store.removeprefix("local:"))

    async def scenario():
        await wait_until(lambda: len([r for r in rooms_by_id(host).values() if r.state == "ready"]) >= 2, 30)
        room_a, room_b = sorted((r for r in rooms_by_id(host).values() if r.state == "ready"),
                                key=lambda r: r.room_id)[:2]
        handles = await host.host.lobby.room_handles.remote()
        table_id = f"fenced-{host.host.run_id}"
        _, assignments = _direct_table(host, handles[room_a.room_id], table_id)
        on_a = [await TableSession.connect(replace(a, endpoint=room_a.endpoint), auto_reconnect=False)
                for a in assignments]
        await asyncio.gather(*(session.wait_dealt(timeout=10) for session in on_a))
        mover = on_a[on_a[0].view["to_act"]]
        action = mover.request["legal_actions"][0]
        os.kill(room_a.pid, signal.SIGSTOP)
        try:
            (resumed,) = await handles[room_b.room_id].resume_tables.remote([table_id])
        finally:
            os.kill(room_a.pid, signal.SIGCONT)
        stale = asyncio.ensure_future(mover.commit(action, act_id="fenced-act", timeout=10))
        await wait_until(lambda: not mover.connected, timeout=10)
        a_still_holds = await handles[room_a.room_id].table_status.remote(table_id)
        after_a = store.load(table_id)
        on_b = await TableSession.connect(replace(assignments[mover.seat], endpoint=room_b.endpoint),
                                          auto_reconnect=False)
        outcome = await on_b.commit(action, act_id="fenced-act")
        again = await on_b.commit(action, act_id="fenced-act")
        stale.cancel()
        for session in on_a + [on_b]:
            await session.close()
        return resumed, a_still_holds, after_a, outcome, again, store.load(table_id)

    resumed, a_still_holds, after_a, outcome, again, final = run(scenario())
    assert resumed.epoch == 2 and resumed.seq == 1  # dealt
    assert a_still_holds is None  # A dropped the table when its append was fenced
    assert (after_a.epoch, after_a.seq) == (2, 1)  # nothing of A's reached the store after the deal
    assert outcome.accepted and outcome.seq == 2 and again.accepted and again.seq == 2 and again.duplicate
    assert final.seq == 2 and [e.act_id for e in final.entries] == ["", "fenced-act"]  # the deal, the commit
