"""Scenario: a room under attack. The same tables of bots are measured on one host:
alone; then, for each set of attacks (ATTACK_SETS), while attackers (a process of their
own, on loopback, for as long as the bots play) do what once grew a room to a gigabyte
and filled the disk with its log, and beside burners that use as much CPU as those
attackers did (hostbench.burner):

- slow reader: a spectator stream that never reads, sending commits with 60 KB
  act_ids as fast as the stream takes them;
- many streams of one seat: four streams, each on a connection of its own, opened
  over and over with one seated player's token, each sending commits that are
  refused (a fresh act_id each);
- stream openings: streams of another seat opened, sent a hello and cancelled at
  once, as fast as the attacker can, from four connections;
- idle connections: 2,000 table streams, ten to a connection, opened and never sent
  a hello.

Figures: the rooms' peak memory (PSS) while the bots play alone and while they play
under the attack (the difference is what the attack adds), the growth of the host's
log files, how many of the idle streams were closed, the CPU the host's processes
used in each run, and the bots' p99 in each. On this machine the attackers share the
host's two cores, so the attacked p99 is read against the calm run's (everything the
attack does, its own CPU included) and against the burners' run (what the host's
handling of the attack costs beyond the CPU the attackers take from it).
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import msgpack

from hostbench.children import Budget, Child, worker_argv
from hostbench.host import HOST_KINDS, HostUnderTest, LOAD_GENERATOR_EXEMPT
from hostbench.moves import MovesPlan, merge_bots, run_bots, split
from hostbench.procs import MIB, cpu_delta_by_kind, machine_cpu_jiffies, machine_cpu_shares
from tablehost.clients.sdk import LobbyClient
from tablehost.v1 import table_pb2

PLAY = "/{}/Play".format(table_pb2.DESCRIPTOR.services_by_name["Table"].full_name)
HUGE_ACT_ID = 60 * 1024
ATTACKS = ("slow_reader", "many_streams", "stream_opens", "idle")
# What a room must take without its other tables noticing: the floods of a
# slow reader with oversized act_ids, of many streams of one seat, and of
# silent streams; then the same with the stream-opening flood ("rapid reset")
# beside them, which costs a room for every call it picks up however early it
# refuses it.
ATTACK_SETS = (("floods", ("slow_reader", "many_streams", "idle")),
               ("floods_and_rapid_reset", ATTACKS))
BURNER_SHARE_MAX = 0.5
LEAD_S = 2.0  # how long the attack (or the control's burners) runs before the bots start
CHILD_READY_S = 60.0
CHILD_ANSWER_S = 150.0
# Each channel on a connection of its own (gRPC would otherwise share one
# among the channels of a process): the attackers spread their streams over
# connections, as an attacker facing a room's cap on streams per connection
# would, and no attack waits behind another's streams.
_OWN_CONNECTION = [("grpc.use_local_subchannel_pool", 1)]
SEAT_STREAMS = 4  # the seat-streams attack: streams at once, each on its own connection
OPENERS = 4  # the stream-opening attack: connections opening streams at once
IDLE_STREAMS_PER_CONNECTION = 10
WRITE_WAIT_S = 1.0
# A commit the room does not take at once (its stream is no longer read): the
# attacker gives up on the stream and opens another rather than wait.
COMMIT_WAIT_S = 0.05


@dataclass(frozen=True)
class AttackPlan:
    tables: int
    split_above: int
    idle_streams: int
    bots_timeout_s: float = 240.0
    # The sets of attacks, each measured on its own (with its own control), by name.
    sets: tuple[tuple[str, tuple[str, ...]], ...] = ATTACK_SETS
    # The host's --store ("" for its default: a local folder, every move made durable).
    store: str = ""


def _hello(token: str) -> bytes:
    return table_pb2.ClientMessage(hello=table_pb2.Hello(seat_token=token)).SerializeToString()


async def _said_hello(call: Any, token: str) -> bool:
    """Send a stream's hello; False when the stream had already ended (or was
    not let open within a second: its connection is at the room's cap)."""
    try:
        await asyncio.wait_for(call.write(_hello(token)), WRITE_WAIT_S)
    except (grpc.aio.AioRpcError, asyncio.InvalidStateError, TimeoutError):
        return False
    return True


def _commit(act_id: str, action: Any) -> bytes:
    return table_pb2.ClientMessage(commit=table_pb2.Commit(act_id=act_id, action=msgpack.packb(action))).SerializeToString()


class Attackers:
    """The attacks named in `kinds`, on an event loop of their own, until stopped."""

    def __init__(self, target: str, idle_streams: int, kinds: tuple[str, ...] = ATTACKS) -> None:
        self.target = target
        self.kinds = kinds
        self.idle_streams = idle_streams if "idle" in kinds else 0
        self.sent = {"huge_act_ids": 0, "refused_commits": 0, "seat_streams": 0, "opened_and_cancelled": 0}
        self.idle_ended = 0
        self.stop = threading.Event()
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="attackers", daemon=True)

    def start(self) -> None:
        self._thread.start()
        self._done = asyncio.run_coroutine_threadsafe(self._attack(), self.loop)

    def finish(self) -> dict[str, Any]:
        self.stop.set()
        self._done.result(120)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        return {**self.sent, "idle_streams": self.idle_streams, "idle_streams_closed": self.idle_ended}

    async def _attack(self) -> None:
        lobbies = [LobbyClient(self.target) for _ in range(4)]
        try:
            code = await lobbies[0].create_private_table("bigtwo")
            seats = await asyncio.gather(*(lobby.join_private_table(code, f"attacker-{i}")
                                           for i, lobby in enumerate(lobbies)))
            watch = await lobbies[0].spectate(seats[0].table_id)
            endpoint = seats[0].endpoint
            attacks = {"slow_reader": lambda: self._slow_reader(endpoint, watch.seat_token),
                       "many_streams": lambda: self._many_streams(endpoint, seats[1].seat_token),
                       "stream_opens": lambda: self._stream_opens(endpoint, seats[2].seat_token),
                       "idle": lambda: self._idle(endpoint)}
            await asyncio.gather(*(attacks[kind]() for kind in self.kinds))
        finally:
            for lobby in lobbies:
                await lobby.close()

    async def _slow_reader(self, endpoint: str, token: str) -> None:
        async with grpc.aio.insecure_channel(endpoint, options=_OWN_CONNECTION) as channel:
            call = None
            number = 0
            while not self.stop.is_set():
                try:
                    if call is None:  # first, or the last ended (RESOURCE_EXHAUSTED): again
                        call = channel.stream_stream(PLAY)()
                        await call.write(_hello(token))
                    number += 1
                    act_id = f"{number:08d}" + "x" * (HUGE_ACT_ID - 8)
                    await asyncio.wait_for(call.write(_commit(act_id, {"type": "pass"})), 1.0)
                except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
                    call = None
                    continue
                except TimeoutError:
                    continue  # the stream is full: the room reads no faster than it answers
                self.sent["huge_act_ids"] += 1

    async def _many_streams(self, endpoint: str, token: str) -> None:
        channels = [grpc.aio.insecure_channel(endpoint, options=_OWN_CONNECTION) for _ in range(SEAT_STREAMS)]
        number = 0
        try:
            while not self.stop.is_set():
                calls = [channel.stream_stream(PLAY)() for channel in channels]
                for call in calls:
                    # (One that ended before its hello went out: the next round opens more.)
                    self.sent["seat_streams"] += await _said_hello(call, token)
                for call in calls:
                    for _ in range(50):
                        number += 1
                        try:
                            await asyncio.wait_for(call.write(_commit(f"refused-{number}", {"type": "no-such-action"})),
                                                   COMMIT_WAIT_S)
                        except (grpc.aio.AioRpcError, asyncio.InvalidStateError, TimeoutError):
                            break  # replaced by a newer stream of the seat, or ended for flooding: open more
                        self.sent["refused_commits"] += 1
                for call in calls:
                    call.cancel()
        finally:
            for channel in channels:
                await channel.close()

    async def _stream_opens(self, endpoint: str, token: str) -> None:
        """Streams of one seat opened, sent a hello and cancelled at once, as
        fast as this process can (HTTP/2's "rapid reset"), from OPENERS
        connections at once: the room pays for every call it picks up, and
        holds those it has yet to."""

        async def opener() -> None:
            async with grpc.aio.insecure_channel(endpoint, options=_OWN_CONNECTION) as channel:
                while not self.stop.is_set():
                    call = channel.stream_stream(PLAY)()
                    await _said_hello(call, token)
                    call.cancel()
                    self.sent["opened_and_cancelled"] += 1

        await asyncio.gather(*(opener() for _ in range(OPENERS)))

    async def _idle(self, endpoint: str) -> None:
        channels = [grpc.aio.insecure_channel(endpoint, options=_OWN_CONNECTION)
                    for _ in range(self.idle_streams // IDLE_STREAMS_PER_CONNECTION)]
        calls = [channel.stream_stream(PLAY)() for channel in channels for _ in range(IDLE_STREAMS_PER_CONNECTION)]

        async def ended(call: Any) -> None:
            try:
                async for _ in call:
                    pass
            except grpc.aio.AioRpcError:
                pass
            self.idle_ended += 1

        waiting = [asyncio.ensure_future(ended(call)) for call in calls]
        while not self.stop.is_set():
            await asyncio.sleep(0.1)
        await asyncio.wait(waiting, timeout=10)
        for call in calls:
            call.cancel()
        for channel in channels:
            await channel.close()


def _log_bytes(host: HostUnderTest) -> int:
    if not host.session_dir:
        return 0
    return sum(path.stat().st_size for path in Path(host.session_dir, "logs").rglob("*") if path.is_file())


def _rooms_pss_mib(host: HostUnderTest) -> float:
    return host.reading(memory=True).by_kind("pss").get("rooms", 0.0) / MIB


class _PeakMemory:
    """The rooms' highest PSS while the block runs, sampled every 0.5 s."""

    def __init__(self, host: HostUnderTest) -> None:
        self.host = host
        self.peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while True:
            self.peak = max(self.peak, _rooms_pss_mib(self.host))
            if self._stop.wait(0.5):
                return

    def __enter__(self) -> _PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)
        self.peak = max(self.peak, _rooms_pss_mib(self.host))


@dataclass
class _Phase:
    """The bots' tables played once: their merged figures, the rooms' peak PSS, the
    host's CPU seconds per second by kind while they played, and the answers of the
    children that ran beside them."""

    bots: dict[str, Any]
    rooms_pss_peak_mib: float
    host_cores: dict[str, float]
    machine: dict[str, float]  # the whole machine's CPU by where it went: user, kernel, idle
    beside: list[dict[str, Any]]


def _phase(host: HostUnderTest, shares: list[int], logdir: Path, seed: int, label: str, timeout_s: float,
           beside: list[Child]) -> _Phase:
    """Play the bots' tables once, with the `beside` children (attackers or burners)
    running from LEAD_S before the bots start until they finish."""
    try:
        for child in beside:
            child.next_json(CHILD_READY_S)
        with _PeakMemory(host) as memory:
            for child in beside:
                child.send({"go": True})
            if beside:
                time.sleep(LEAD_S)  # the attack under way before the bots start, not a synchronisation
            before, machine_before, started = host.reading(memory=False), machine_cpu_jiffies(), time.monotonic()
            bots = merge_bots(run_bots(host, shares, logdir, seed, label, timeout_s))
            used, elapsed = cpu_delta_by_kind(before, host.reading(memory=False)), time.monotonic() - started
            machine = machine_cpu_shares(machine_before, machine_cpu_jiffies())
            for child in beside:
                child.send({"stop": True})
            answers = [child.next_json(CHILD_ANSWER_S) for child in beside]
    finally:
        for child in beside:
            child.stop(grace_s=3)
    cores = {kind: round(used.get(kind, 0.0) / elapsed, 3) for kind in HOST_KINDS}
    return _Phase(bots, round(memory.peak, 1), cores, machine, answers)


def _attacked_and_control(host: HostUnderTest, plan: AttackPlan, kinds: tuple[str, ...], shares: list[int],
                          logdir: Path, budget: Budget, seed: int, calm: _Phase) -> dict[str, Any]:
    """The bots' tables under the attacks `kinds`, then beside burners using as
    much CPU as those attackers did; each read against the calm run."""
    name = "-".join(kinds)
    logs_before = _log_bytes(host)
    attackers = Child(f"attackers-{name}", worker_argv("attack", "--target", host.target, "--idle-streams",
                                                       str(plan.idle_streams), "--kinds", ",".join(kinds)),
                      logdir, stdin=True)
    attacked = _phase(host, shares, logdir, seed, f"attacks-under-{name}", budget.seconds(plan.bots_timeout_s),
                      [attackers])
    log_growth = _log_bytes(host) - logs_before
    after_mib = _rooms_pss_mib(host)
    attack = attacked.beside[0]
    attackers_cores = attack["cpu_s"] / max(attack["wall_s"], 1e-9)
    # Several burners of half a core at most: the attackers' CPU is spread
    # over their threads (gRPC's among them), and one thread asking for
    # nearly a whole core of a crowded machine gets less than they did.
    count = max(1, math.ceil(attackers_cores / BURNER_SHARE_MAX))
    burners = [Child(f"burner-{name}-{index}", worker_argv("burn", "--share", f"{attackers_cores / count:.3f}"),
                     logdir, stdin=True) for index in range(count)]
    control = _phase(host, shares, logdir, seed + 1, f"attacks-control-{name}", budget.seconds(plan.bots_timeout_s),
                     burners)
    burnt_cores = sum(b["cpu_s"] for b in control.beside) / max(max(b["wall_s"] for b in control.beside), 1e-9)
    result = {
        "kinds": list(kinds),
        "attacked": attacked.bots,
        "control": control.bots,
        "attack": attack,
        "attackers_cores": round(attackers_cores, 2),
        "burners_cores": round(burnt_cores, 2),
        "host_cores": {"calm": calm.host_cores, "attacked": attacked.host_cores, "control": control.host_cores},
        "machine_cpu": {"calm": calm.machine, "attacked": attacked.machine, "control": control.machine},
        # The same bots' tables with and without the attack: what the attack adds.
        "rooms_pss_peak_mib": attacked.rooms_pss_peak_mib,
        "rooms_pss_growth_mib": round(attacked.rooms_pss_peak_mib - calm.rooms_pss_peak_mib, 1),
        "rooms_pss_after_mib": round(after_mib, 1),
        "log_growth_mib": round(log_growth / MIB, 2),
        "p99_ratio": round(attacked.bots["p99_ms"] / max(calm.bots["p99_ms"], 1e-9), 2),
        "p99_control_ratio": round(control.bots["p99_ms"] / max(calm.bots["p99_ms"], 1e-9), 2),
        "p99_ratio_to_control": round(attacked.bots["p99_ms"] / max(control.bots["p99_ms"], 1e-9), 2),
    }
    print(f"  {name}: p99 calm {calm.bots['p99_ms']} ms, attacked {attacked.bots['p99_ms']} ms "
          f"(x{result['p99_ratio']}), beside burners of {result['burners_cores']} cores {control.bots['p99_ms']} ms "
          f"(attacked x{result['p99_ratio_to_control']} of it); host cores {result['host_cores']}; machine CPU "
          f"{result['machine_cpu']}; rooms {calm.rooms_pss_peak_mib} -> peak {attacked.rooms_pss_peak_mib} MiB; "
          f"logs +{result['log_growth_mib']} MiB; idle streams closed {attack['idle_streams_closed']}/"
          f"{attack['idle_streams']}; sent {attack}", flush=True)
    return result


def run(plan: AttackPlan, logdir: Path, budget: Budget, seed: int) -> dict[str, Any]:
    """The same tables of bots on one host: alone; then, for each set of
    attacks, under it and beside burners using as much CPU as its attackers
    did (the control: on this machine the attackers' own CPU is taken from the
    host's cores)."""
    shares = split(plan.tables, MovesPlan(levels=(plan.tables,), floors_at=(), split_above=plan.split_above))
    store = ["--store", plan.store] if plan.store else []
    host = HostUnderTest("host-attacks", ["--seed", str(seed), *store, *LOAD_GENERATOR_EXEMPT], logdir, budget)
    try:
        run_bots(host, [1], logdir, seed + 1, "attacks-warmup", budget.seconds(plan.bots_timeout_s))
        calm = _phase(host, shares, logdir, seed + 10, "attacks-calm", budget.seconds(plan.bots_timeout_s), [])
        sets = {name: _attacked_and_control(host, plan, kinds, shares, logdir, budget, seed + 20 * (index + 1), calm)
                for index, (name, kinds) in enumerate(plan.sets)}
    finally:
        host.stop()
    return {"plan": plan.__dict__, "calm": calm.bots, "rooms_pss_before_mib": calm.rooms_pss_peak_mib, "sets": sets}
