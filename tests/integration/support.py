"""Helpers the integration tests share: seat four players, play random
legal moves to the end, and read behind the wire what the lobby and rooms
hold (a table's state hash, a queue's length)."""

from __future__ import annotations

import asyncio
import inspect
import os
import random
import signal

import psutil

from tablehost.actors.lobby_status import LobbyStatus, RoomStatus
from tablehost.actors.room_tables import TableStatus
from tablehost.clients.sdk import LobbyClient, TableSession


async def seat_table(target: str, game: str = "bigtwo", *, names: list[str] | None = None,
                     code: str | None = None, record: bool = False) -> tuple[list[LobbyClient], list[TableSession]]:
    """Four players join (the queue, or a private table by code) at once and
    open their table streams; returned in seat order once the table dealt."""
    names = names or [f"player-{i}" for i in range(4)]
    lobbies = [LobbyClient(target) for _ in names]
    if code is None:
        assignments = await asyncio.gather(*(l.join_queue(game, n) for l, n in zip(lobbies, names)))
    else:
        assignments = await asyncio.gather(*(l.join_private_table(code, n) for l, n in zip(lobbies, names)))
    sessions = await asyncio.gather(
        *(TableSession.connect(a, l, record=record) for a, l in zip(assignments, lobbies))
    )
    await asyncio.gather(*(session.wait_dealt(timeout=30) for session in sessions))
    order = sorted(range(len(sessions)), key=lambda i: sessions[i].seat)
    return [lobbies[i] for i in order], [sessions[i] for i in order]


async def play_randomly(session: TableSession, seed: int, moves_limit: int = 500) -> int:
    """Random legal moves until the game ends; returns how many were accepted."""
    rnd = random.Random(seed)
    accepted = 0
    while accepted < moves_limit:
        view = await session.wait_for_request(timeout=30)
        if view is None:
            return accepted
        outcome = await session.commit(rnd.choice(view["request"]["legal_actions"]))
        assert outcome.accepted, outcome
        accepted += 1
    raise AssertionError(f"seat {session.seat} made {moves_limit} moves without the game ending")


async def close_all(lobbies: list[LobbyClient], sessions: list[TableSession]) -> None:
    for session in sessions:
        await session.close()
    for lobby in lobbies:
        await lobby.close()


async def wait_until(predicate, timeout: float = 10.0, interval: float = 0.02) -> None:
    """Poll a condition the tests cannot await directly (a count inside the
    lobby actor), failing after `timeout` instead of hanging. `predicate` may
    be a coroutine function (a question to an actor)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await _answer(predicate()):
        if loop.time() > deadline:
            raise TimeoutError(f"condition not met within {timeout}s")
        await asyncio.sleep(interval)


async def _answer(value):
    return await value if inspect.isawaitable(value) else value


async def table_status(host, table_id: str) -> TableStatus:
    """The room's own counters and state hash for one table."""
    record = host.lobby("table_record", table_id)
    rooms = await host.host.lobby.room_handles.remote()
    return await rooms[record.room_id].table_status.remote(table_id)


def waiting_in_queue(host, game: str = "bigtwo", variant: str = "") -> int:
    """Players the lobby holds in one public queue (not yet proposed)."""
    for queue in host.lobby("status").queues:
        if queue.game == game and queue.variant == variant:
            return queue.waiting
    return 0


def lobby_status(host) -> LobbyStatus:
    return host.lobby("status")


def rooms_by_id(host) -> dict[str, RoomStatus]:
    return {room.room_id: room for node in lobby_status(host).nodes for room in node.rooms}


def room_of(host, table_id: str) -> str:
    return host.lobby("table_record", table_id).room_id


async def wait_for_quiet_lobby(host) -> None:
    """Earlier tests' tables have closed (they linger briefly after a game)."""
    try:
        await wait_until(lambda: lobby_status(host).tables == 0, timeout=60)
    except TimeoutError:
        raise TimeoutError(f"tables still open after 60 s: {lobby_status(host)}") from None


def kill(pid: int) -> None:
    """SIGKILL, as a crash or the OOM killer would: nothing runs on the way out."""
    os.kill(pid, signal.SIGKILL)


def sockets_beyond_loopback(root: psutil.Process) -> tuple[int, list[tuple[str, str, object]]]:
    """How many processes `root` and its descendants are, and every socket of
    theirs (listening or connected) with an end not on 127.0.0.1."""
    processes = [root] + root.children(recursive=True)
    outside = []
    for process in processes:
        try:
            connections = process.net_connections(kind="inet")
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        for connection in connections:
            addresses = [connection.laddr] + ([connection.raddr] if connection.raddr else [])
            for address in addresses:
                if address and address.ip not in ("127.0.0.1", "::1", "::ffff:127.0.0.1"):
                    outside.append((process.name(), connection.status, address))
    return len(processes), outside
