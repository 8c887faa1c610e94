"""Draining a room, as an operator does before an upgrade (`tablehost
drain`): its tables move to other rooms mid-game through the store, their
players reconnect there and finish with nothing lost, and the room stops.
A request naming no room the lobby can drain changes nothing. (Draining a
whole node of a real cluster, without a store, is in test_ray_cluster.py.)"""

from __future__ import annotations

import asyncio

import psutil
import pytest
import ray
from conftest import run
from support import close_all, play_randomly, room_of, rooms_by_id, seat_table, wait_for_quiet_lobby, \
    wait_until

from tablehost.actors.lobby import LOBBY_NAME, NAMESPACE
from tablehost.host.drain import drain_rooms

pytestmark = pytest.mark.integration

MOVES_BEFORE = 8


def test_a_drained_rooms_tables_move_mid_game_and_finish_elsewhere_and_the_room_stops(host) -> None:
    lobby = ray.get_actor(LOBBY_NAME, namespace=NAMESPACE)

    async def scenario():
        await wait_for_quiet_lobby(host)
        lobbies, sessions = await seat_table(host.target)
        table_id = sessions[0].table_id
        room_id = room_of(host, table_id)
        room_pid = rooms_by_id(host)[room_id].pid
        said: list[str] = []
        try:
            for step in range(MOVES_BEFORE):
                await wait_until(lambda: all(s.seq == 1 + step for s in sessions), timeout=10)
                seat = sessions[0].view["to_act"]
                view = await sessions[seat].wait_for_request(timeout=10)
                assert (await sessions[seat].commit(view["request"]["legal_actions"][0])).accepted
            # The players go on playing while the room is drained under them.
            playing = asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(sessions)))
            drained = await asyncio.to_thread(drain_rooms, lobby, [room_id], "", 60.0, said.append)
            moves = await playing
            return room_id, room_pid, table_id, drained, said, moves, sessions
        finally:
            await close_all(lobbies, sessions)

    room_id, room_pid, table_id, drained, said, moves, sessions = run(scenario())
    assert drained == 0, said
    assert said[0].startswith(f"draining {room_id}: 1 tables moving to other rooms") and said[-1].endswith(room_id)
    assert room_id not in rooms_by_id(host)
    assert room_of(host, table_id) != room_id
    run(wait_until(lambda: not psutil.pid_exists(room_pid), timeout=30))
    assert all(s.result is not None and s.desyncs == 0 and s.gaps == 0 for s in sessions)
    assert all(s.reconnects >= 1 for s in sessions)
    # Every move made is in the game once: none lost to the move, none applied twice.
    assert len({s.result.seq for s in sessions}) == 1 and sessions[0].result.seq == 1 + MOVES_BEFORE + sum(moves)  # the deal first


def test_draining_a_room_or_node_the_lobby_does_not_have_is_refused_and_changes_nothing(host) -> None:
    lobby = ray.get_actor(LOBBY_NAME, namespace=NAMESPACE)
    ready = next(room_id for room_id, room in rooms_by_id(host).items() if room.state == "ready")
    said: list[str] = []
    assert drain_rooms(lobby, [ready, "room-9999"], "", 5.0, said.append) == 2
    assert drain_rooms(lobby, [], "no-such-node", 5.0, said.append) == 2
    assert drain_rooms(lobby, [], "", 5.0, said.append) == 2
    assert said[0].startswith("tablehost drain: no room 'room-9999' (the rooms now: room-")
    assert said[1].startswith("tablehost drain: no live node no-such-node (the nodes now: ")
    assert said[2] == "tablehost drain: name the rooms to drain or a node, not both and not neither"
    assert len(said) == 3
    # The room named beside the unknown one was not drained either.
    assert "draining" not in {room.state for room in rooms_by_id(host).values()}
