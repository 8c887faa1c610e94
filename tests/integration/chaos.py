"""Room chaos: bots play tables while room processes are SIGKILLed, from
outside at random moments and from inside at armed crash points (after a
command is made durable and before it is published, just after it is
published, halfway through a checkpoint). Then every finished game is
checked against what its store holds:

- no acknowledged command lost: every commit a client saw accepted is in
  the store's final record of the table, at the seq the client was told;
- none applied twice: no act_id took effect at two seqs, on any stream;
- no gap: every client saw each seq at most once and in order (a resync
  after a reconnect is a snapshot, never a skipped delta), no hash differed;
- every stream a prefix of the final log: each delta a client received names
  the act_id the final log has at that seq, and the last seq is the table's;
- every game finished;

and how long each table took to accept commands again after its room died.

`test_chaos.py` runs it small in the suite; the long run is a command:

    .venv/bin/python tests/integration/chaos.py --kills 100 --tables 20
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # before ray is imported: Ray on loopback only

import grpc  # noqa: E402
import psutil  # noqa: E402
import ray  # noqa: E402

from tablehost.actors import crash_points  # noqa: E402
from tablehost.actors.store import TableStore  # noqa: E402
from tablehost.actors.store.local import LocalStore  # noqa: E402
from tablehost.clients.sdk import (  # noqa: E402
    Assignment,
    CommitOutcome,
    LobbyClient,
    LobbyError,
    SessionDisconnected,
    TableSession,
)
from tablehost.v1 import table_pb2  # noqa: E402

from support import wait_until  # noqa: E402  (beside this file, as for the tests)

POINTS = crash_points.POINTS
# Bots think this long between moves, so games outlast several kills.
THINK_S = (0.01, 0.06)
# A session keeps trying to reach its table this many times (backoff up to 2 s).
CONNECT_ATTEMPTS = 14
# The SDK gives up on its own when its new streams keep ending before any
# message through its connect attempts (a room that accepts and drops at once
# must not loop it); struck rooms can do that once in a while, and the bot then
# reconnects itself, as the SDK asks, at most this many times a game.
OWN_RECONNECTS = 10
# What seating meets while the lobby restarts: it is away, then has forgotten the private table.
LOBBY_RESTARTING = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.NOT_FOUND)
# Once every game has ended and its players left, every table closes within
# its linger after the game: this bounds the wait with room to spare.
TABLES_CLOSE_WITHIN_S = 30.0


@dataclass
class SeatPlay:
    """What one bot saw: its accepted commits and every delta's seq and act_id."""

    session: TableSession
    accepted: dict[str, int] = field(default_factory=dict)  # act_id -> seq
    accepted_at: list[float] = field(default_factory=list)  # time.time() of each acceptance, in order
    commit_timeouts: int = 0
    own_reconnects: int = 0  # after the SDK gave up on a stream that ended before any message


@dataclass
class Findings:
    """Everything the checks count, over every game played."""

    games: int = 0
    unfinished: int = 0
    acknowledged: int = 0
    lost: list[str] = field(default_factory=list)
    applied_twice: list[str] = field(default_factory=list)
    gaps: int = 0
    desyncs: int = 0
    not_a_prefix: list[str] = field(default_factory=list)
    reconnects: int = 0
    own_reconnects: int = 0
    left_open: int = 0  # tables still open once every game had ended and its players left

    @property
    def clean(self) -> bool:
        return not (self.left_open or self.unfinished or self.lost or self.applied_twice or self.gaps
                    or self.desyncs or self.not_a_prefix)


@dataclass
class Kill:
    rooms: list[str]
    how: str  # "sigkill", a crash point, or how a subclass strikes
    tables: dict[str, int]  # table id -> its seq in the store when the room died
    died_at: float = 0.0
    recovered_s: dict[str, float] = field(default_factory=dict)


def final_log(store: TableStore, table_id: str) -> tuple[int, dict[str, int]]:
    """The table's last seq and every client act_id it accepted ("seat:act_id" -> seq)."""
    stored = store.load(table_id)
    accepted = dict(stored.checkpoint.accepted) if stored.checkpoint is not None else {}
    for entry in stored.entries:
        if entry.act_id:
            accepted[f"{entry.seat}:{entry.act_id}"] = entry.seq
    return stored.seq, accepted


def deltas_seen(session: TableSession) -> list[tuple[int, str]]:
    """(seq, act_id) of every delta the session received, in arrival order."""
    seen = []
    for raw in session.received:
        message = table_pb2.ServerMessage.FromString(raw)
        if message.WhichOneof("kind") == "delta":
            seen.append((message.delta.seq, message.delta.act_id))
    return seen


def check_game(table_id: str, plays: list[SeatPlay], store: TableStore, findings: Findings) -> None:
    findings.games += 1
    if any(play.session.result is None for play in plays):
        findings.unfinished += 1
        return
    last_seq, accepted = final_log(store, table_id)
    by_seq = {seq: key.partition(":")[2] for key, seq in accepted.items()}
    seqs_of_act: dict[str, set[int]] = defaultdict(set)
    for play in plays:
        session = play.session
        findings.gaps += session.gaps
        findings.desyncs += session.desyncs
        findings.reconnects += session.reconnects
        findings.own_reconnects += play.own_reconnects
        for act_id, seq in play.accepted.items():
            findings.acknowledged += 1
            if accepted.get(f"{session.seat}:{act_id}") != seq:
                findings.lost.append(f"{table_id} seat {session.seat} act {act_id} acked at {seq}")
        previous = 0
        for seq, act_id in deltas_seen(session):
            if seq <= previous:
                continue  # sent again after a reconnect; the SDK skips it
            if act_id:
                seqs_of_act[act_id].add(seq)
            if by_seq.get(seq, "") != act_id:
                findings.not_a_prefix.append(f"{table_id} seat {session.seat} seq {seq}: {act_id!r}, "
                                             f"the log has {by_seq.get(seq, '')!r}")
            previous = seq
        if session.result.seq != last_seq:
            findings.not_a_prefix.append(f"{table_id} seat {session.seat} ended at {session.result.seq}, "
                                         f"the log at {last_seq}")
    findings.applied_twice += [f"{table_id} act {a} at {sorted(s)}" for a, s in seqs_of_act.items() if len(s) > 1]


async def play_seat(play: SeatPlay, rnd: random.Random) -> None:
    session = play.session
    while True:
        try:
            view = await session.wait_for_request(timeout=60)
            if view is None:
                return
            await asyncio.sleep(rnd.uniform(*THINK_S))  # think time, not synchronisation
            outcome: CommitOutcome = await session.commit(rnd.choice(view["request"]["legal_actions"]), timeout=30)
        except TimeoutError:
            play.commit_timeouts += 1
            continue
        except SessionDisconnected as error:
            await reconnect_after_sdk_gave_up(play, error)
            continue
        if outcome.accepted:
            play.accepted[outcome.act_id] = outcome.seq
            play.accepted_at.append(time.time())


async def reconnect_after_sdk_gave_up(play: SeatPlay, error: SessionDisconnected) -> None:
    """Reconnect once the SDK gave up on a stream, as its error asks; any
    other end (a refused token, a replaced stream, the table unreachable
    after every attempt, a protocol violation) is a finding, raised."""
    if type(error) is not SessionDisconnected or play.own_reconnects >= OWN_RECONNECTS:
        raise error
    play.own_reconnects += 1
    await play.session.reconnect()


async def seat_table(target: str, label: str) -> tuple[list[LobbyClient], list[TableSession]]:
    """Four bots at a private table of their own (joins from several slots at
    once would otherwise be mixed into tables by the queue). A lobby that
    restarts meanwhile (its node was lost) forgets private tables still
    filling: the bots start over, as players would, for up to a minute."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 60
    while True:
        lobbies = [LobbyClient(target) for _ in range(4)]
        try:
            code = await lobbies[0].create_private_table("bigtwo")
            assignments = await asyncio.gather(*(lobby.join_private_table(code, f"{label}-{i}")
                                                 for i, lobby in enumerate(lobbies)))
            break
        except LobbyError as error:
            for lobby in lobbies:
                await lobby.close()
            if error.code not in LOBBY_RESTARTING or loop.time() > deadline:
                raise
            await asyncio.sleep(0.5)  # a retry's backoff
    sessions = await asyncio.gather(*(_connect(a, l, deadline) for a, l in zip(assignments, lobbies)))
    return lobbies, list(sessions)


async def _connect(assignment: Assignment, lobby: LobbyClient, deadline: float) -> TableSession:
    """A session of the table, tried again until `deadline` if no snapshot
    came in time: the room it was opened in may have died as the bot
    connected, and the table waits to resume (longer when the lobby's node
    went with it)."""
    while True:
        try:
            return await TableSession.connect(assignment, lobby, record=True, max_connect_attempts=CONNECT_ATTEMPTS)
        except TimeoutError:
            if asyncio.get_running_loop().time() > deadline:
                raise


class Chaos:
    """Bots on `tables` tables at all times; `kills` times, rooms that serve
    some of them are struck (`choose` and `strike`: one room, SIGKILLed or
    crashed at an armed point, in turn; a subclass may strike otherwise)."""

    def __init__(self, host: Any, store: TableStore, *, kills: int, tables: int, seed: int) -> None:
        self.host = host
        self.store = store
        self.kills_wanted = kills
        self.tables = tables
        self.rnd = random.Random(seed)
        self.findings = Findings()
        self.kills: list[Kill] = []
        self.live: dict[str, list[SeatPlay]] = {}  # table id -> its players, while it plays
        self._stop = asyncio.Event()
        self._games = 0

    async def run(self, timeout_s: float) -> dict[str, Any]:
        started = time.monotonic()
        players = [asyncio.ensure_future(self._keep_a_table_playing(slot)) for slot in range(self.tables)]
        try:
            await asyncio.wait_for(self._kill_rooms(), timeout_s)
        finally:
            self._stop.set()
            results = await asyncio.gather(*players, return_exceptions=True)
        errors = [r for r in results if isinstance(r, BaseException)]
        if errors:
            raise errors[0]
        await self._until_every_table_closes(TABLES_CLOSE_WITHIN_S)
        return self.report(time.monotonic() - started)

    async def _until_every_table_closes(self, timeout_s: float) -> None:
        """Every game is over and its players gone: every table, resumed or
        not, must close and free its slot, or it would hold it for ever."""
        async def all_closed() -> bool:
            self.findings.left_open = (await self.host.host.lobby.status.remote()).tables
            return not self.findings.left_open

        try:
            await wait_until(all_closed, timeout=timeout_s, interval=0.1)
        except TimeoutError:
            pass  # a finding, reported: the tables still open

    async def _keep_a_table_playing(self, slot: int) -> None:
        """Seat a table of bots, play it out, check it; again until the kills are done."""
        while not self._stop.is_set():
            self._games += 1
            lobbies, sessions = await seat_table(self.host.target, f"s{slot}g{self._games}")
            table_id = sessions[0].table_id
            plays = [SeatPlay(session) for session in sessions]
            self.live[table_id] = plays
            try:
                await asyncio.gather(*(play_seat(play, random.Random(self.rnd.random())) for play in plays))
            finally:
                del self.live[table_id]
                for session in sessions:
                    await session.close()
                for lobby in lobbies:
                    await lobby.close()
            check_game(table_id, plays, self.store, self.findings)

    async def _kill_rooms(self) -> None:
        loop = asyncio.get_running_loop()
        for number in range(self.kills_wanted):
            victims = await self.choose(await self._rooms_with_tables())
            endpoints = {room["endpoint"] for room in victims}
            tables = [table_id for table_id, plays in list(self.live.items())
                      if plays[0].session.endpoint in endpoints]
            how = await self.strike(number, victims)
            await wait_until(lambda: not any(_alive(room["pid"]) for room in victims), timeout=60, interval=0.01)
            kill = Kill([room["room_id"] for room in victims], how, {}, loop.time())
            # Everything the dead rooms published is in the store: a seq past it is a new acceptance.
            kill.tables = {table_id: self.store.load(table_id).seq for table_id in tables}
            self.kills.append(kill)
            await self._await_recovery(kill)

    async def choose(self, rooms: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The rooms to strike next: one of those serving tables."""
        return [self.rnd.choice(rooms)]

    async def strike(self, number: int, victims: list[dict[str, Any]]) -> str:
        """SIGKILL at a random moment, or arm a crash point; in turn."""
        (room,) = victims
        how = "sigkill" if number % 2 == 0 else POINTS[(number // 2) % len(POINTS)]
        if how == "sigkill":
            await asyncio.sleep(self.rnd.uniform(0.0, 0.3))  # a random moment
            psutil.Process(room["pid"]).kill()
            return how
        handles = await self.host.host.lobby.room_handles.remote()
        after = self.rnd.randint(1, 3) if how != crash_points.MID_CHECKPOINT else 1
        try:
            await handles[room["room_id"]].arm_crash_point.remote(how, after)
        except ray.exceptions.RayActorError:
            pass  # it reached the point before its answer left: the crash it was armed for
        return how

    async def _rooms_with_tables(self) -> list[dict[str, Any]]:
        """The ready rooms that serve at least one table being played."""
        rooms: list[dict[str, Any]] = []

        async def found() -> bool:
            status = await self.host.host.lobby.status.remote()
            endpoints = {plays[0].session.endpoint for plays in list(self.live.values())}
            rooms[:] = [dict(dataclasses.asdict(room), node_id=node.node_id) for node in status.nodes
                        for room in node.rooms if room.state == "ready" and room.endpoint in endpoints]
            return bool(rooms)

        await wait_until(found, timeout=60, interval=0.05)
        return rooms

    async def _await_recovery(self, kill: Kill) -> None:
        """Until every table of the dead room accepted a command again (its
        clients saw a seq past the store's at the death) or its game ended."""
        loop = asyncio.get_running_loop()
        pending = dict(kill.tables)

        def all_recovered() -> bool:
            for table_id, seq in list(pending.items()):
                plays = self.live.get(table_id)
                if plays is None or max(p.session.seq for p in plays) > seq:
                    kill.recovered_s[table_id] = loop.time() - kill.died_at
                    del pending[table_id]
            return not pending

        try:
            await wait_until(all_recovered, timeout=60, interval=0.01)
        except TimeoutError:
            raise TimeoutError(
                f"tables {sorted(pending)} accepted nothing for 60 s after rooms {kill.rooms} died") from None

    def report(self, elapsed_s: float) -> dict[str, Any]:
        recoveries = sorted(s for kill in self.kills for s in kill.recovered_s.values())
        findings = self.findings
        return {
            "kills": len(self.kills),
            "kills_by_way": dict(Counter(kill.how for kill in self.kills)),
            "tables_in_killed_rooms": sum(len(kill.tables) for kill in self.kills),
            "games_checked": findings.games,
            "games_unfinished": findings.unfinished,
            "tables_left_open": findings.left_open,
            "commits_acknowledged": findings.acknowledged,
            "acknowledged_lost": len(findings.lost),
            "applied_twice": len(findings.applied_twice),
            "gaps": findings.gaps,
            "desyncs": findings.desyncs,
            "not_a_prefix": len(findings.not_a_prefix),
            "reconnects": findings.reconnects,
            "own_reconnects": findings.own_reconnects,
            "recover_p50_s": round(statistics.median(recoveries), 3) if recoveries else None,
            "recover_p99_s": round(recoveries[min(len(recoveries) - 1, int(len(recoveries) * 0.99))], 3)
            if recoveries else None,
            "recover_max_s": round(recoveries[-1], 3) if recoveries else None,
            "elapsed_s": round(elapsed_s, 1),
            "examples": (findings.lost + findings.applied_twice + findings.not_a_prefix)[:5],
        }


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--tables-per-room", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=1800.0)
    args = parser.parse_args()

    from conftest import HostThread, run

    from tablehost.host.config import HostConfig

    with tempfile.TemporaryDirectory(prefix="tablehost-chaos-") as folder:
        store_root = Path(folder) / "store"
        host = HostThread(HostConfig(store=f"local:{store_root}", port=0, linger_s=1.0, seed=args.seed,
                                     tables_per_room=args.tables_per_room, free_slots=args.tables_per_room,
                                     abandon_after_s=120.0))
        host.start()
        try:
            chaos = Chaos(host, LocalStore(str(store_root)), kills=args.kills, tables=args.tables, seed=args.seed)
            report = run(chaos.run(args.timeout), timeout=args.timeout + 120)
        finally:
            host.stop()
            if ray.is_initialized():
                ray.shutdown()
    print(json.dumps(report, indent=2))
    sys.exit(0 if chaos.findings.clean else 1)


if __name__ == "__main__":
    main()
