"""Players in a client process: real SDK clients (LobbyClient.join_queue, then
TableSession.connect: hello, first snapshot, an ack for every delta), driven by JSON
commands on stdin so the benchmark can grow, burst and check them step by step.

Commands, one JSON object a line; each is answered by one JSON line on stdout:

- {"op": "prepare", "players": N}: N more players, each with its own LobbyClient, whose
  channel is connected before any timing (a call the front door refuses by itself, with
  no lobby involved), so a burst measures the joins and not TCP handshakes.
- {"op": "join", "connect": bool, "timeout_s": S}: every prepared player not yet
  seated sends JoinQueue at once; with `connect`, each seated player then opens its
  table stream and waits for its first snapshot. Answers with the times (CLOCK_MONOTONIC,
  which every process on the machine shares) of the first send and the last
  assignment, each player's wait, and the tables seen.
- {"op": "check"}: how many table streams are still open and healthy.
- {"op": "close"}: close every stream and channel; the process then exits.

With `own_connections`, every channel gets a TCP connection of its own (grpc's local
subchannel pool), as players on their own machines would have: grpc otherwise shares
one connection per target among all the channels of a process, and the host would
see a handful of sockets for thousands of players.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

GAME = "bigtwo"
# Bounded concurrency for opening table streams: a burst of thousands of hellos from
# one process would otherwise queue behind each other past the SDK's connect timeout.
CONNECTS_IN_FLIGHT = 64
WARMUPS_IN_FLIGHT = 200
CONNECT_TIMEOUT_S = 30.0
MAX_MESSAGES = 5


def give_each_channel_its_own_connection() -> None:
    """Make every grpc.aio channel this process opens use a subchannel pool of its own
    (the SDK takes no channel options, so the channel factory it calls is wrapped)."""
    import grpc.aio

    original = grpc.aio.insecure_channel

    def own_connection(target: str, options: Any = None, compression: Any = None, interceptors: Any = None) -> Any:
        options = [*(options or ()), ("grpc.use_local_subchannel_pool", 1)]
        return original(target, options, compression, interceptors)

    grpc.aio.insecure_channel = own_connection  # type: ignore[assignment]


@dataclass(eq=False)
class Player:
    name: str
    lobby: Any
    joined: bool = False
    sent: float = 0.0
    assigned: float = 0.0
    assignment: Any = None
    session: Any = None


class PlayerPool:
    def __init__(self, target: str, prefix: str) -> None:
        self.target = target
        self.prefix = prefix
        self.players: list[Player] = []
        self.errors: list[str] = []
        self.error_count = 0

    def _error(self, message: str) -> None:
        self.error_count += 1
        if len(self.errors) < MAX_MESSAGES:
            self.errors.append(message)

    async def prepare(self, count: int) -> dict[str, Any]:
        from tablehost.clients.sdk import LobbyClient, LobbyError

        fresh = [Player(f"{self.prefix}-{len(self.players) + i}", LobbyClient(self.target)) for i in range(count)]
        self.players += fresh
        gate = asyncio.Semaphore(WARMUPS_IN_FLIGHT)

        async def warm(player: Player) -> None:
            async with gate:
                try:
                    await player.lobby.join_queue("no-such-game", player.name)
                except LobbyError as error:
                    if error.code.name != "INVALID_ARGUMENT":
                        self._error(f"warm-up of {player.name}: {error}")

        started = time.monotonic()
        await asyncio.gather(*(warm(player) for player in fresh))
        return {"prepared": len(fresh), "warm_s": round(time.monotonic() - started, 3)}

    async def join(self, connect: bool, timeout_s: float) -> dict[str, Any]:
        from tablehost.clients.sdk import TableSession

        waiting = [player for player in self.players if not player.joined]
        errors_before = self.error_count

        async def join_one(player: Player) -> None:
            player.joined = True
            player.sent = time.monotonic()
            try:
                player.assignment = await player.lobby.join_queue(GAME, player.name)
                player.assigned = time.monotonic()
            except Exception as error:  # every failure is a finding of the run
                self._error(f"JoinQueue of {player.name}: {type(error).__name__}: {error}")

        tasks = [asyncio.create_task(join_one(player)) for player in waiting]
        _done, late = await asyncio.wait(tasks, timeout=timeout_s) if tasks else (set(), set())
        for task in late:
            task.cancel()
        if late:
            self._error(f"{len(late)} players were not seated within {timeout_s:g} s")
            await asyncio.wait(late)
        seated = [player for player in waiting if player.assignment is not None]
        answer: dict[str, Any] = {
            "players": len(waiting),
            "seated": len(seated),
            "first_sent": min((p.sent for p in waiting), default=0.0),
            "last_sent": max((p.sent for p in waiting), default=0.0),
            "last_assigned": max((p.assigned for p in seated), default=0.0),
            "waits_ms": [round((p.assigned - p.sent) * 1000, 2) for p in seated],
            "tables": dict(Counter(p.assignment.table_id for p in seated)),
        }
        if connect:
            started = time.monotonic()
            gate = asyncio.Semaphore(CONNECTS_IN_FLIGHT)

            async def connect_one(player: Player) -> None:
                async with gate:
                    try:
                        player.session = await TableSession.connect(
                            player.assignment, player.lobby, connect_timeout=CONNECT_TIMEOUT_S
                        )
                    except Exception as error:
                        self._error(f"connecting {player.name} to {player.assignment.table_id}: "
                                    f"{type(error).__name__}: {error}")

            await asyncio.gather(*(connect_one(player) for player in seated))
            answer["connected"] = sum(1 for p in seated if p.session is not None)
            answer["connect_s"] = round(time.monotonic() - started, 3)
        answer["errors"] = self.error_count - errors_before
        answer["error_messages"] = self.errors[:MAX_MESSAGES]
        return answer

    def check(self) -> dict[str, Any]:
        sessions = [p.session for p in self.players if p.session is not None]
        healthy = [s for s in sessions if s.connected and not s.game_over]
        return {
            "sessions": len(sessions),
            "open": len(healthy),
            "with_turn_to_act": sum(1 for s in healthy if s.view.get("to_act") == s.seat),
            "desyncs": sum(s.desyncs for s in sessions),
            "gaps": sum(s.gaps for s in sessions),
            "reconnects": sum(s.reconnects for s in sessions),
            "stream_rejections": sum(s.stream_rejections for s in sessions),
            "errors": self.error_count,
            "error_messages": self.errors[:MAX_MESSAGES],
        }

    async def close(self) -> dict[str, Any]:
        started = time.monotonic()
        await asyncio.gather(*(p.session.close() for p in self.players if p.session is not None),
                             return_exceptions=True)
        await asyncio.gather(*(p.lobby.close() for p in self.players), return_exceptions=True)
        return {"closed": len(self.players), "close_s": round(time.monotonic() - started, 3)}


async def serve_commands(target: str, prefix: str) -> None:
    """Answer the benchmark's commands until "close" (or stdin closes)."""
    pool = PlayerPool(target, prefix)
    loop = asyncio.get_running_loop()
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            await pool.close()
            return
        command = json.loads(line)
        op = command["op"]
        if op == "prepare":
            answer = await pool.prepare(int(command["players"]))
        elif op == "join":
            answer = await pool.join(bool(command.get("connect")), float(command.get("timeout_s", 120)))
        elif op == "check":
            answer = pool.check()
        elif op == "close":
            answer = await pool.close()
        else:
            answer = {"error": f"unknown op {op!r}"}
        answer["op"] = op
        print(json.dumps(answer), flush=True)
        if op == "close":
            return
