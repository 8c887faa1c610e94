"""Host benchmark: move latency and throughput, room memory, warm-pool table start.

    .venv/bin/python tests/benchmarks/bench_host.py [--tables 25] [--starts 30] [--no-write]

A script, not a test (pytest collects only test_*.py). Loopback only, bounded (about one
minute on a 2-core machine); it stops by itself and ends every process it started, by PID.
Each figure stands beside a floor measured in the same run:

1. Moves. A `tablehost serve` subprocess (embedded Ray, warm pool 2, linger 0.2 s) and
   `tablehost bots --json` subprocesses with 1 and with --tables tables, after a 1-table
   warm-up game. Floor: a bare grpc.aio bidirectional echo (server and clients each in
   their own process) with the same streams and the same traffic: N groups of 4 streams;
   in each group one stream at a time sends 40 bytes (a commit), the server sends 200
   bytes (a delta) to all 4 streams of the group, the sender's round trip is send -> its
   own reply, then the turn passes to the next stream; as many rounds per group as the
   bots made moves per table. A second floor adds what the SDK also does: every stream
   acks every reply (72 bytes) before it reads on. Where the CPU went (per move: the
   clients, the rooms, the front door, the lobby, the rest of Ray) is measured beside
   the floors' CPU. Before the measured N-table run, one unmeasured N-table run
   starts the rooms a burst of N tables needs (the pool keeps 2), so the measured run
   finds them warm; that cold run's figures are reported too.
2. Room memory. An in-process host (like tests/integration/conftest.py's HostThread):
   PSS and RSS (/proc/PID/smaps_rollup) of a room actor that has hosted one game, beside
   a bare Ray actor on the same Ray, and the modules the room imports that the bare
   actor does not, with what cutting each top-level package of them would save.
3. Table start. The time from sending the 4th player's JoinQueue (the queue fills) to
   that player's TableSession holding its first snapshot with `to_act` set, over
   --starts tables with a warm pool of 2 (clients in their own process; each table is
   played to its end and closed at once, so its room lingers 0.2 s and returns to the
   pool). Floors: one bare Ray actor call (ray.get(actor.ping.remote())), and a cold
   room start (a new room actor created and started).

Prints Markdown tables and writes them into docs/benchmarks.md as the section
"## The host (Ray rooms, gRPC streams)" (other sections are left as they are).
"""

from __future__ import annotations

import os

# Ray binds every server to the machine's address unless this is set before ray is
# first imported (host/__init__.py does the same for the host's own processes).
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"

import argparse  # noqa: E402
import asyncio  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import re  # noqa: E402
import signal  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

DOC = ROOT / "docs" / "benchmarks.md"
SECTION = "## The host (Ray rooms, gRPC streams)"
COMMAND = ".venv/bin/python tests/benchmarks/bench_host.py"

# Targets from the issue "distributed host".
TARGET_P50_RATIO = 1.5
TARGET_MEMORY_RATIO = 1.15
TARGET_WARM_START_MS = 20.0

# The echo floor's messages: a commit's size out, a delta's size back.
COMMIT_BYTES = 40
DELTA_BYTES = 200
ECHO_METHOD = "/tablehost.bench.Echo/Play"
# The optional second floor: every stream answers every reply with an ack of this size
# (an Ack's seq and 64-hex-digit view hash), as the SDK does for every delta.
ACK_BYTES = 72
ACK_MARK = 0xFF

# Same histogram as clients/bots.py: microseconds, 1 µs to 60 s, 3 significant digits.
LOWEST_US, HIGHEST_US, SIGNIFICANT_DIGITS = 1, 60_000_000, 3

# Bounds. Every wait below has one; a healthy run takes about a minute, a stuck one
# gives up within a few minutes.
HOST_START_S = 90.0
BOTS_TIMEOUT_S = 60.0
ECHO_TIMEOUT_S = 30.0
STARTS_TIMEOUT_S = 90.0
# Measuring stops at this much after the start, whatever is left; ending the processes
# (at most about 45 s more) keeps even a stuck run under 5 minutes.
TOTAL_BUDGET_S = 230.0
_deadline = time.monotonic() + TOTAL_BUDGET_S


class OutOfTime(RuntimeError):
    pass


def budget(seconds: float) -> float:
    """`seconds`, or what is left of the run's budget if that is less."""
    left = _deadline - time.monotonic()
    if left <= 1:
        raise OutOfTime(f"the run's {TOTAL_BUDGET_S:g} s budget is spent")
    return min(seconds, left)
CHILD_LIFETIME_S = 280.0  # an echo server left behind ends itself after this
PINGS = 300
COLD_STARTS = 3
WARMUP_TABLES = 2
MAX_IMPORT_PROBES = 7
IDLE_WINDOW_S = 2.0


def histogram() -> Any:
    from hdrh.histogram import HdrHistogram

    return HdrHistogram(LOWEST_US, HIGHEST_US, SIGNIFICANT_DIGITS)


def record(hist: Any, seconds: float) -> None:
    hist.record_value(min(max(round(seconds * 1_000_000), LOWEST_US), HIGHEST_US))


def pct_ms(hist: Any, percentile: float) -> float:
    return hist.get_value_at_percentile(percentile) / 1000 if hist.get_total_count() else 0.0


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile of a small sample (q in 0..100)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))
    return ordered[int(rank) - 1]


# -- processes: start, watch, and end by PID ----------------------------------------------


def _start_time(pid: int) -> int | None:
    """The process's start time in clock ticks (field 22 of /proc/PID/stat): with the
    PID it names one process, so a PID reused meanwhile is never signalled."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat[stat.rindex(")") + 2 :].split()[19])


def descendants(pid: int) -> list[tuple[int, int]]:
    """(pid, start time) of every live descendant of `pid`."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found: list[tuple[int, int]] = []
    stack = list(children.get(pid, []))
    while stack:
        child = stack.pop()
        started = _start_time(child)
        if started is not None:
            found.append((child, started))
        stack.extend(children.get(child, []))
    return found


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_s(pid: int) -> float:
    """CPU seconds a process's live threads have run so far, to the nanosecond, from
    /proc/PID/task/*/schedstat (else user + system ticks from /proc/PID/stat); 0 when
    it is gone."""
    total_ns, found = 0, False
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                total_ns += int((task / "schedstat").read_text().split()[0])
                found = True
            except (OSError, ValueError, IndexError):
                pass
    except OSError:
        return 0.0
    if found:
        return total_ns / 1e9
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def host_cpu(host_pid: int) -> dict[str, float]:
    """CPU seconds so far of a host's processes: its room actors, its lobby actor, the
    front door (the serve process itself) and the rest of its Ray (raylet, GCS, ...)."""
    usage = {"rooms": 0.0, "lobby": 0.0, "front_door": cpu_s(host_pid), "ray": 0.0}
    for pid, _ in descendants(host_pid):
        name = cmdline(pid)
        kind = "rooms" if name.startswith("ray::RoomActor") else "lobby" if name.startswith("ray::LobbyActor") else "ray"
        usage[kind] += cpu_s(pid)
    return usage


def children_cpu_s() -> float:
    """CPU seconds of every child this process has reaped so far."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _alive(pid: int, started: int) -> bool:
    """The process that started at `started` still runs (a zombie only waits to be reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    fields = stat[stat.rindex(")") + 2 :].split()
    return fields[0] != "Z" and int(fields[19]) == started


def signal_if_same(pid: int, started: int, sig: int) -> bool:
    if _start_time(pid) != started:
        return False
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        return False
    return True


def end_processes(processes: list[tuple[int, int]], grace_s: float = 3.0) -> int:
    """SIGTERM, then SIGKILL after `grace_s`, each process still alive. Returns how many
    had to be signalled (0 when everything had already exited)."""
    alive = [(pid, started) for pid, started in processes if _alive(pid, started)]
    for pid, started in alive:
        signal_if_same(pid, started, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(_alive(p, s) for p, s in alive):
        time.sleep(0.05)
    for pid, started in alive:
        if _alive(pid, started):
            signal_if_same(pid, started, signal.SIGKILL)
    return len(alive)


class Child:
    """A subprocess in its own session (a Ctrl-C at the terminal reaches only this
    script, which then ends its children in order). Stdout lines are collected by a
    thread; stderr goes to a file."""

    def __init__(self, name: str, argv: list[str], logdir: Path) -> None:
        self.name = name
        self.stderr_path = logdir / f"{name}.stderr"
        env = dict(os.environ)
        env.pop("RAY_ADDRESS", None)  # every host here starts its own embedded Ray
        env["PYTHONUNBUFFERED"] = "1"
        with open(self.stderr_path, "w") as stderr:
            self.proc = subprocess.Popen(
                argv, stdout=subprocess.PIPE, stderr=stderr, text=True, cwd=ROOT, env=env, start_new_session=True
            )
        self.started = _start_time(self.proc.pid) or 0
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, name=f"{name}-stdout", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def wait_for_line(self, pattern: str, timeout: float) -> re.Match[str]:
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for line in self.lines:
                    match = regex.search(line)
                    if match:
                        return match
                if self.proc.poll() is not None and not self._reader.is_alive():
                    raise RuntimeError(f"{self.name} exited ({self.proc.returncode}) before printing {pattern!r}: "
                                       f"{self.stderr_tail()}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"{self.name} printed no {pattern!r} within {timeout:g}s")
                self._changed.wait(min(left, 0.2))

    def wait(self, timeout: float) -> int | None:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def json_result(self) -> dict[str, Any]:
        self._reader.join(5)
        for line in reversed(self.lines):
            if line.startswith("{"):
                return json.loads(line)
        raise RuntimeError(f"{self.name} printed no JSON line; stderr: {self.stderr_tail()}")

    def stderr_tail(self, lines: int = 8) -> str:
        try:
            return " | ".join(self.stderr_path.read_text(errors="replace").strip().splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self, sig: int = signal.SIGINT, grace_s: float = 30.0) -> int:
        """Ask it to stop (`sig`), wait up to `grace_s`, then end it and every
        descendant still alive (Ray's processes, for a host) by PID. Returns how many
        processes had to be ended that way."""
        tree = descendants(self.proc.pid)
        if self.proc.poll() is None:
            signal_if_same(self.proc.pid, self.started, sig)
            self.wait(grace_s)
        leftovers = end_processes([(self.proc.pid, self.started)] + tree)
        self.wait(5)
        return leftovers


def run_child(name: str, argv: list[str], logdir: Path, timeout: float) -> tuple[Child, int | None]:
    """Run to completion within `timeout`; on timeout end it (and its tree) by PID."""
    timeout = budget(timeout)
    child = Child(name, argv, logdir)
    try:
        code = child.wait(timeout)
    except BaseException:  # interrupted: end it before passing the interrupt on
        child.stop(signal.SIGTERM, grace_s=3)
        raise
    if code is None:
        child.stop(signal.SIGTERM, grace_s=3)
    return child, code


def tablehost_argv(*args: str) -> list[str]:
    script = Path(sys.executable).with_name("tablehost")
    if script.exists():
        return [str(script), *args]
    return [sys.executable, "-c", "from host.cli import main; main()", *args]


def self_argv(*args: str) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), *args]


# -- the echo floor (server and clients run as subprocesses of this script) --------------


def _echo_handler() -> Any:
    """The same shape as the room's TableService: an async generator per stream fed
    by an outbox queue, a reader task per stream, one message fanned out to the group."""
    import grpc

    groups: dict[bytes, list[asyncio.Queue[bytes | None]]] = {}
    padding = b"d" * (DELTA_BYTES - 8)

    async def play(request_iterator: Any, context: Any) -> Any:
        try:
            hello = await anext(request_iterator)
        except StopAsyncIteration:
            return
        key = bytes(hello[:8])
        outbox: asyncio.Queue[bytes | None] = asyncio.Queue()
        members = groups.setdefault(key, [])
        members.append(outbox)
        outbox.put_nowait(b"ok")

        async def read() -> None:
            try:
                async for message in request_iterator:
                    if message[0] == ACK_MARK:
                        continue  # an ack: read and dropped, as a room checks one against a hash
                    reply = bytes(message[:8]) + padding
                    for member in members:
                        member.put_nowait(reply)
            finally:
                outbox.put_nowait(None)

        reader = asyncio.create_task(read())
        try:
            while (item := await outbox.get()) is not None:
                yield item
        finally:
            reader.cancel()
            members.remove(outbox)
            if not members:
                groups.pop(key, None)

    return grpc.method_handlers_generic_handler(
        "tablehost.bench.Echo", {"Play": grpc.stream_stream_rpc_method_handler(play)}
    )


async def echo_server_main(lifetime_s: float) -> None:
    from grpc import aio

    server = aio.server()
    server.add_generic_rpc_handlers((_echo_handler(),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(f"listening on 127.0.0.1:{port}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        await asyncio.wait_for(stop.wait(), lifetime_s)
    except TimeoutError:
        pass
    await server.stop(1)


async def echo_clients_main(target: str, groups: int, rounds: int, timeout_s: float, acks: bool) -> dict[str, Any]:
    import grpc
    from grpc import aio

    hist = histogram()
    errors: list[str] = []
    padding = b"c" * (COMMIT_BYTES - 8)
    ack = bytes([ACK_MARK]) + b"a" * (ACK_BYTES - 1)

    async def one_group(group: int) -> None:
        channels = [aio.insecure_channel(target) for _ in range(4)]
        calls = [channel.stream_stream(ECHO_METHOD)() for channel in channels]
        waiting: list[asyncio.Future[None] | None] = [None] * 4
        locks = [asyncio.Lock() for _ in calls]  # grpc.aio allows one write at a time per call
        closed = [False] * 4  # no ack after this stream's done_writing
        readers: list[asyncio.Task[None]] = []
        try:
            key = group.to_bytes(8, "big")
            for call in calls:
                await call.write(key)
            for call in calls:  # every stream of the group is registered before the first send
                if await call.read() != b"ok":
                    raise RuntimeError("echo server did not acknowledge the hello")

            async def read(index: int, call: Any) -> None:
                while (message := await call.read()) is not aio.EOF:
                    future = waiting[index]
                    if message[0] == index and future is not None and not future.done():
                        future.set_result(None)
                    if acks:  # like the SDK: the outcome first, then the ack, before reading on
                        async with locks[index]:
                            if not closed[index]:
                                await call.write(ack)

            readers = [asyncio.create_task(read(index, call)) for index, call in enumerate(calls)]
            loop = asyncio.get_running_loop()
            for turn in range(rounds):
                sender = turn % 4
                waiting[sender] = future = loop.create_future()
                message = bytes([sender]) + turn.to_bytes(7, "big") + padding
                started = time.perf_counter()
                async with locks[sender]:
                    await calls[sender].write(message)
                await future
                record(hist, time.perf_counter() - started)
            for index, call in enumerate(calls):
                async with locks[index]:
                    closed[index] = True
                    await call.done_writing()
            await asyncio.wait_for(asyncio.gather(*readers), 5)
        except (grpc.aio.AioRpcError, RuntimeError, TimeoutError, asyncio.InvalidStateError) as error:
            errors.append(f"group {group}: {type(error).__name__}: {error}")
        finally:
            for task in readers:
                task.cancel()
            for channel in channels:
                await channel.close()

    started, cpu_started = time.perf_counter(), time.process_time()
    try:
        await asyncio.wait_for(asyncio.gather(*(one_group(g) for g in range(groups))), timeout_s)
    except TimeoutError:
        errors.append(f"the echo run did not finish within {timeout_s:g}s")
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    count = hist.get_total_count()
    return {
        "streams": 4 * groups,
        "round_trips": count,
        "p50_ms": round(pct_ms(hist, 50), 3),
        "p99_ms": round(pct_ms(hist, 99), 3),
        "elapsed_s": round(elapsed, 3),
        "round_trips_per_s": round(count / elapsed, 1) if elapsed > 0 else 0.0,
        "client_cpu_s": round(cpu, 4),
        "errors": len(errors),
        "error_messages": errors[:5],
    }


# -- warm-pool table starts (a client process of its own) --------------------------------


async def table_starts_main(target: str, tables: int, warmup: int, timeout_s: float) -> dict[str, Any]:
    """Per table: three players queue, then (0.2 s later, so they are surely waiting)
    the 4th sends JoinQueue at t0; t1 is when the 4th's TableSession holds its first
    snapshot with `to_act` set. The other three connect meanwhile, as real players
    would. Then greedy bots play the game to its end and everyone closes at once."""
    from clients.bots import GreedyBot, PlayStats, play_seat
    from clients.sdk import LobbyClient, LobbyError, TableSession

    samples_ms: list[float] = []
    assigned_ms: list[float] = []
    problems: list[str] = []
    moves = 0
    lobbies = [LobbyClient(target) for _ in range(4)]
    for lobby in lobbies:  # connect the lobby channels before any timing
        try:
            await lobby.lookup_table("no-such-table")
        except LobbyError:
            pass

    async def join_and_connect(lobby: LobbyClient, name: str) -> TableSession:
        assignment = await lobby.join_queue("bigtwo", name)
        return await TableSession.connect(assignment, lobby)

    deadline = time.monotonic() + timeout_s
    try:
        for index in range(warmup + tables):
            if time.monotonic() > deadline:
                problems.append(f"stopped after {index} tables: out of time")
                break
            sessions: list[TableSession] = []
            first = [asyncio.create_task(join_and_connect(lobbies[k], f"start-{index}-{k}")) for k in range(3)]
            try:
                await asyncio.sleep(0.2)
                started = time.perf_counter()
                assignment = await asyncio.wait_for(lobbies[3].join_queue("bigtwo", f"start-{index}-3"), 10)
                assigned = time.perf_counter() - started
                fourth = await TableSession.connect(assignment, lobbies[3])
                sessions.append(fourth)
                if fourth.view.get("to_act") is None:
                    problems.append(f"table {assignment.table_id}: first snapshot without to_act")
                elapsed = time.perf_counter() - started
                if index >= warmup:
                    samples_ms.append(elapsed * 1000)
                    assigned_ms.append(assigned * 1000)
                sessions += await asyncio.wait_for(asyncio.gather(*first), 10)
                if len({s.table_id for s in sessions}) != 1:
                    problems.append(f"table {index}: the four players were seated at different tables")
                stats = PlayStats()
                await asyncio.wait_for(asyncio.gather(*(play_seat(s, GreedyBot(), stats) for s in sessions)), 30)
                moves += stats.moves
                if stats.rejects:
                    problems.append(f"table {assignment.table_id}: {stats.rejects} rejects")
            except Exception as error:  # each failure is a finding; keep going within the bounds
                problems.append(f"table {index}: {type(error).__name__}: {error}")
            finally:
                for task in first:
                    task.cancel()
                await asyncio.gather(*first, return_exceptions=True)
                for task in first:
                    if task.done() and not task.cancelled() and task.exception() is None:
                        if task.result() not in sessions:
                            sessions.append(task.result())
                for session in sessions:
                    await session.close()
                    if session.desyncs:
                        problems.append(f"table {session.table_id} seat {session.seat}: {session.desyncs} desyncs")
    finally:
        for lobby in lobbies:
            await lobby.close()
    return {"samples_ms": [round(s, 3) for s in samples_ms], "assigned_ms": [round(s, 3) for s in assigned_ms],
            "moves": moves, "problems": problems[:20],
            "problem_count": len(problems)}


# -- /proc readings ------------------------------------------------------------------------


def memory_mb(pid: int) -> dict[str, float]:
    """PSS, RSS and private memory of a process, in MiB, from smaps_rollup."""
    fields: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        key, _, value = line.partition(":")
        parts = value.split()
        if len(parts) == 2 and parts[1] == "kB":
            fields[key] = int(parts[0]) / 1024
    return {
        "pss": fields.get("Pss", 0.0),
        "rss": fields.get("Rss", 0.0),
        "private": fields.get("Private_Clean", 0.0) + fields.get("Private_Dirty", 0.0),
    }


def cpu_busy_share(seconds: float = 1.0) -> float:
    """The share of all CPUs busy over `seconds` (other users of the machine included)."""

    def sample() -> tuple[int, int]:
        numbers = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
        idle = numbers[3] + numbers[4]
        return sum(numbers), idle

    total0, idle0 = sample()
    time.sleep(seconds)
    total1, idle1 = sample()
    return 1 - (idle1 - idle0) / max(1, total1 - total0)


class _Blocked:
    """A meta path finder that refuses whole top-level packages, as if not installed."""

    def __init__(self, packages: set[str]) -> None:
        self.packages = packages

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if name.split(".")[0] in self.packages:
            raise ModuleNotFoundError(f"blocked for the probe: {name}", name=name)
        return None


def import_cost_main() -> dict[str, Any]:
    """In a fresh interpreter that has imported what a bare Ray actor has (ray and the
    modules of the bare actor's process), import the modules given on stdin, with the
    top-level packages in "block" refused (a module needing them fails and is skipped),
    and report what RSS and private memory grew by."""
    import importlib

    import ray  # noqa: F401

    spec = json.loads(sys.stdin.read())
    for name in spec["baseline"]:
        try:
            importlib.import_module(name)
        except Exception:  # some modules import only inside a worker; that is fine here
            pass
    sys.meta_path.insert(0, _Blocked(set(spec.get("block", []))))  # type: ignore[arg-type]
    before = memory_mb(os.getpid())
    loaded = 0
    for name in spec["modules"]:
        try:
            importlib.import_module(name)
            loaded += 1
        except Exception:
            pass
    after = memory_mb(os.getpid())
    return {"loaded": loaded, "rss_mb": round(after["rss"] - before["rss"], 2),
            "private_mb": round(after["private"] - before["private"], 2)}


# -- the benchmark -------------------------------------------------------------------------


@dataclass
class Report:
    started_at: str = ""
    machine: str = ""
    tree: str = ""
    background: str = ""
    duration_s: float = 0.0
    moves: list[dict[str, Any]] = field(default_factory=list)
    memory: dict[str, Any] = field(default_factory=dict)
    starts: dict[str, Any] = field(default_factory=dict)
    findings: list[str] = field(default_factory=list)


def machine_line() -> str:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    versions = []
    for package in ("ray", "grpc"):
        try:
            versions.append(f"{package} {__import__(package).__version__}")
        except Exception:
            pass
    return (f"{os.cpu_count()} cores ({model or platform.machine()}), {mem_gib:.0f} GiB, "
            f"Python {platform.python_version()}, {', '.join(versions)}")


def tree_line() -> str:
    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            return ""

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = [line[3:] for line in git("status", "--porcelain", "--", "actors", "host", "clients", "games").splitlines()]
    return f"commit {head}" + (f" with uncommitted changes in {', '.join(dirty)}" if dirty else "")


def scan_ray_logs(session_dir: str | None) -> dict[str, int]:
    """Counts of worrying lines in a Ray session's worker logs (rooms and lobby log there)."""
    counts = Counter()
    if not session_dir:
        return dict(counts)
    for path in sorted(Path(session_dir, "logs").glob("worker-*"))[:500]:
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            if "Traceback" in line:
                counts["tracebacks"] += 1
            if " desync " in line:
                counts["desyncs"] += 1
            if "rejected table=" in line:
                counts["rejections"] += 1
            if "automatic move" in line:
                counts["automatic_moves"] += 1
            if "ERROR" in line:
                counts["error_lines"] += 1
    return dict(counts)


def session_dir_of(pids: list[int]) -> str | None:
    for pid in pids:
        match = re.search(r"--session-dir=(\S+)", cmdline(pid))
        if match:
            return match.group(1)
    return None


def bots_run(target: str, tables: int, logdir: Path, seed: int, name: str) -> dict[str, Any]:
    child, code = run_child(
        name,
        tablehost_argv("bots", "--target", target, "--game", "bigtwo", "--tables", str(tables), "--json",
                       "--seed", str(seed)),
        logdir,
        BOTS_TIMEOUT_S,
    )
    if code is None:
        raise RuntimeError(f"{name}: `tablehost bots --tables {tables}` did not finish in time; ended it")
    result = child.json_result()
    result["exit_code"] = code
    return result


def echo_run(target: str, groups: int, rounds: int, logdir: Path, name: str, acks: bool = False) -> dict[str, Any]:
    child, code = run_child(
        name,
        self_argv("--echo-clients", target, "--groups", str(groups), "--rounds", str(rounds),
                  *(["--acks"] if acks else [])),
        logdir,
        ECHO_TIMEOUT_S + 15,
    )
    if code is None:
        raise RuntimeError(f"{name}: the echo clients did not finish")
    return child.json_result()


def room_processes(tree: list[tuple[int, int]]) -> int:
    return sum(1 for pid, _ in tree if cmdline(pid).startswith("ray::RoomActor"))


def measure_moves(report: Report, tables: int, logdir: Path) -> None:
    print("moves: starting `tablehost serve` and an echo server ...", flush=True)
    echo = Child("echo-server", self_argv("--echo-server", "--lifetime", str(CHILD_LIFETIME_S)), logdir)
    host = Child("host", tablehost_argv("serve", "--port", "0", "--warm-pool", "2", "--linger", "0.2",
                                        "--seed", "20261129"), logdir)
    session_dir = None
    try:
        echo_target = echo.wait_for_line(r"listening on (\S+)", budget(30)).group(1)
        host_target = host.wait_for_line(r"listening on (\S+)", budget(HOST_START_S)).group(1)
        session_dir = session_dir_of([pid for pid, _ in descendants(host.proc.pid)])

        warm = bots_run(host_target, 1, logdir, 1000, "bots-warmup")
        print(f"  warm-up game: {warm['moves']} moves, ok={warm['ok']}", flush=True)
        # What a bots process costs before it plays (interpreter and imports): a run
        # with no tables stops with an error right after its imports.
        cpu_before = children_cpu_s()
        run_child("bots-startup", tablehost_argv("bots", "--target", host_target, "--tables", "0"), logdir, 60)
        startup_cpu = children_cpu_s() - cpu_before
        report.memory["bots_startup_cpu_s"] = startup_cpu
        time.sleep(0.5)

        plan = [(1, "1 table", True, 2000)]
        if tables > 1:
            plan += [(tables, f"{tables} tables, cold (pool of 2)", False, 3000),
                     (tables, f"{tables} tables", True, 4000)]
        for count, label, with_echo, seed in plan:
            # A measured run must find a room for every table, and 2 more for the pool,
            # or the lobby cold-starts rooms while it plays: if the cold run did not
            # leave that many, one more unmeasured burst does.
            for extra in range(2):
                rooms = room_processes(descendants(host.proc.pid))
                if not with_echo or rooms >= count + 2:
                    break
                bots_run(host_target, count + 2, logdir, 6000 + extra, f"bots-fill-{extra}")
                time.sleep(0.5)
            # What the host burns doing nothing (Ray's threads in every room process).
            idle_before = host_cpu(host.proc.pid)
            time.sleep(IDLE_WINDOW_S)
            idle_after = host_cpu(host.proc.pid)
            idle = {kind: (idle_after[kind] - idle_before[kind]) / IDLE_WINDOW_S for kind in idle_after}
            rooms_before = room_processes(descendants(host.proc.pid))
            host_before, bots_before = host_cpu(host.proc.pid), children_cpu_s()
            bots = bots_run(host_target, count, logdir, seed, f"bots-{count}-{seed}")
            host_after, bots_after = host_cpu(host.proc.pid), children_cpu_s()
            rooms_after = room_processes(descendants(host.proc.pid))
            cpu = {kind: host_after[kind] - host_before[kind] for kind in host_after}
            cpu["clients"] = max(0.0, bots_after - bots_before - startup_cpu)
            row: dict[str, Any] = {"label": label, "tables": count, "bots": bots, "cpu": cpu, "idle_cpu": idle,
                                   "rooms_before": rooms_before, "rooms_after": rooms_after}
            print(f"  {label}: {bots['moves']} moves, p50 {bots['p50_ms']} ms, p99 {bots['p99_ms']} ms, "
                  f"{bots['moves_per_s']} moves/s (rooms {rooms_before} -> {rooms_after})", flush=True)
            if with_echo:
                rounds = max(20, min(400, round(bots["moves"] / count)))
                server_before = cpu_s(echo.proc.pid)
                row["echo"] = echo_run(echo_target, count, rounds, logdir, f"echo-{count}")
                row["echo"]["server_cpu_s"] = cpu_s(echo.proc.pid) - server_before
                server_before = cpu_s(echo.proc.pid)
                row["echo_acks"] = echo_run(echo_target, count, rounds, logdir, f"echo-acks-{count}", acks=True)
                row["echo_acks"]["server_cpu_s"] = cpu_s(echo.proc.pid) - server_before
                for key, name in (("echo", "echo floor"), ("echo_acks", "echo + acks")):
                    e = row[key]
                    print(f"    {name}: {e['round_trips']} round trips, p50 {e['p50_ms']} ms, p99 {e['p99_ms']} ms, "
                          f"{e['round_trips_per_s']} round trips/s", flush=True)
            report.moves.append(row)
            time.sleep(0.5)  # every room lingers 0.2 s and goes back to the pool
    finally:
        leftovers = host.stop(signal.SIGINT, grace_s=30)
        echo.stop(signal.SIGTERM, grace_s=5)
        if leftovers:
            report.findings.append(f"`tablehost serve` left {leftovers} process(es) after SIGINT; ended by PID")
        logs = scan_ray_logs(session_dir)
        report.memory.setdefault("host_logs", logs)
        host_stderr = host.stderr_path.read_text(errors="replace")
        if "Traceback" in host_stderr:
            report.findings.append(f"`tablehost serve` stderr has a traceback: {host.stderr_tail(4)}")


class HostThread:
    """An in-process host on its own event loop thread (as tests/integration/conftest.py)."""

    def __init__(self, config: Any) -> None:
        from host.server import Host

        self.host = Host(config)
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="bench-host", daemon=True)

    def start(self) -> None:
        timeout = budget(HOST_START_S)
        self._thread.start()
        self.call(self.host.start(), timeout=timeout)

    def call(self, coroutine: Any, timeout: float = 30) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def stop(self) -> None:
        if not self._thread.is_alive():
            return
        try:
            self.call(self.host.stop(), timeout=60)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(10)


def measure_memory_and_starts(report: Report, starts: int, logdir: Path) -> None:
    import ray

    from actors.room import RoomActor
    from host.config import HostConfig

    @ray.remote(num_cpus=0)
    class Bare:
        def pid(self) -> int:
            return os.getpid()

        def ping(self) -> None:
            return None

    def modules_of(actor: Any) -> list[str]:
        return ray.get(actor.__ray_call__.remote(lambda self: list(__import__("sys").modules)), timeout=30)

    print("memory and table start: starting an in-process host ...", flush=True)
    config = HostConfig(port=0, warm_pool_size=2, linger_s=0.2, seed=20261130)
    running = HostThread(config)
    own_tree: list[tuple[int, int]] = []
    bare = None
    try:
        running.start()
        own_tree = descendants(os.getpid())
        lobby = running.host.lobby
        target = running.host.target

        # The floor of a Ray call: one bare actor, one caller waiting on each call.
        bare = Bare.remote()
        bare_pid = ray.get(bare.pid.remote(), timeout=60)
        for _ in range(30):
            ray.get(bare.ping.remote(), timeout=10)
        pings = []
        for _ in range(PINGS):
            budget(10)
            started = time.perf_counter()
            ray.get(bare.ping.remote(), timeout=10)
            pings.append((time.perf_counter() - started) * 1000)

        # One game (bots in their own process), then the room that hosted it.
        game = bots_run(target, 1, logdir, 5000, "bots-memory")
        rooms = ray.get(lobby.room_handles.remote(), timeout=30)
        statuses = {room_id: ray.get(handle.status.remote(), timeout=30) for room_id, handle in rooms.items()}
        hosted = [room_id for room_id, status in statuses.items() if status["games_hosted"] == 1]
        if not hosted:
            raise RuntimeError(f"no room hosted the memory game: {statuses}")
        room = rooms[hosted[0]]
        for _ in range(100):  # it lingers 0.2 s after its game, then resets
            if "table_id" not in ray.get(room.status.remote(), timeout=10):
                break
            time.sleep(0.05)
        room_pid = statuses[hosted[0]]["pid"]
        room_mem, bare_mem = memory_mb(room_pid), memory_mb(bare_pid)
        unused = [room_id for room_id, status in statuses.items() if status["games_hosted"] == 0]
        if unused:
            report.memory["room_unused"] = memory_mb(statuses[unused[0]]["pid"])
        idle_before = cpu_s(room_pid), cpu_s(bare_pid)
        time.sleep(IDLE_WINDOW_S)
        idle_after = cpu_s(room_pid), cpu_s(bare_pid)
        report.memory["idle_ms_per_s"] = {
            "room": (idle_after[0] - idle_before[0]) * 1000 / IDLE_WINDOW_S,
            "bare": (idle_after[1] - idle_before[1]) * 1000 / IDLE_WINDOW_S,
        }
        room_modules, bare_modules = modules_of(room), modules_of(bare)
        extra = [m for m in room_modules if m not in set(bare_modules)]
        report.memory.update(room=room_mem, bare=bare_mem, game=game, room_id=hosted[0],
                             extra_modules=len(extra), room_modules=len(room_modules),
                             bare_modules=len(bare_modules))
        report.memory["contributors"] = import_costs(extra, bare_modules)
        print(f"  room PSS {room_mem['pss']:.1f} MiB, RSS {room_mem['rss']:.1f} MiB; "
              f"bare PSS {bare_mem['pss']:.1f} MiB, RSS {bare_mem['rss']:.1f} MiB", flush=True)

        # Warm-pool table starts, clients in their own process.
        rooms_before = ray.get(lobby.stats.remote(), timeout=30)["rooms"]
        child, code = run_child(
            "table-starts",
            self_argv("--table-starts", target, "--tables", str(starts)),
            logdir,
            STARTS_TIMEOUT_S + 15,
        )
        if code is None:
            raise RuntimeError("the table-start clients did not finish")
        result = child.json_result()
        rooms_after = ray.get(lobby.stats.remote(), timeout=30)["rooms"]

        # Cold room starts: a new room actor, created and started.
        room_config = config.lobby_config().room
        cold = []
        for index in range(COLD_STARTS):
            budget(60)
            started = time.perf_counter()
            handle = RoomActor.options(scheduling_strategy="SPREAD").remote(f"bench-cold-{index}", room_config, None)
            ray.get(handle.start.remote(), timeout=60)
            cold.append((time.perf_counter() - started) * 1000)
            ray.get(handle.stop.remote(), timeout=30)
            ray.kill(handle)
            time.sleep(0.3)

        report.starts = {"warm_ms": result["samples_ms"], "assigned_ms": result["assigned_ms"], "ping_ms": pings, "cold_ms": cold,
                         "problems": result["problems"], "problem_count": result["problem_count"],
                         "rooms_before": rooms_before, "rooms_after": rooms_after, "moves": result["moves"]}
        print(f"  warm start p50 {percentile(result['samples_ms'], 50):.2f} ms over {len(result['samples_ms'])}; "
              f"Ray call p50 {statistics.median(pings):.3f} ms; cold start p50 {statistics.median(cold):.0f} ms",
              flush=True)
    finally:
        session_dir = None
        try:
            session_dir = ray._private.worker._global_node.get_session_dir_path()  # type: ignore[attr-defined]
        except Exception:
            pass
        if bare is not None:
            ray.kill(bare)
        own_tree = own_tree + descendants(os.getpid())
        try:
            running.stop()
        except Exception as error:
            report.findings.append(f"stopping the in-process host failed: {type(error).__name__}: {error}")
            if ray.is_initialized():
                ray.shutdown()
        left = end_processes(own_tree)
        if left:
            report.findings.append(f"the in-process host left {left} Ray process(es); ended by PID")
        report.memory["host_logs_inprocess"] = scan_ray_logs(session_dir)


def import_costs(extra: list[str], baseline: list[str]) -> list[dict[str, Any]]:
    """What the room's extra modules cost: all of them imported together, then, for each
    of the larger top-level packages among them, what the same import saves when that
    package is refused (what cutting it from the room would save, with everything that
    needs it)."""

    def probe(block: list[str]) -> dict[str, Any]:
        try:
            proc = subprocess.run(
                self_argv("--import-cost"), input=json.dumps({"baseline": baseline, "modules": extra, "block": block}),
                capture_output=True, text=True, cwd=ROOT, timeout=budget(30),
            )
            return json.loads([line for line in proc.stdout.splitlines() if line.startswith("{")][-1])
        except (subprocess.TimeoutExpired, IndexError, ValueError, OutOfTime):  # run() kills a child that times out
            return {"loaded": 0, "rss_mb": float("nan"), "private_mb": float("nan")}

    groups: dict[str, list[str]] = {}
    for name in extra:
        groups.setdefault(name.split(".")[0], []).append(name)
    every = probe([])
    costs = [{"group": "all of them", "count": len(extra), "names": extra[:3], **every}]
    larger = [g for g in sorted(groups, key=lambda g: -len(groups[g])) if len(groups[g]) > 1 or "." in groups[g][0]]
    for group in larger[:MAX_IMPORT_PROBES]:
        without = probe([group])
        costs.append({
            "group": group, "count": len(groups[group]), "names": groups[group][:3],
            "saved_rss_mb": round(every["rss_mb"] - without["rss_mb"], 2),
            "saved_private_mb": round(every["private_mb"] - without["private_mb"], 2),
            "modules_left": without["loaded"],
        })
    return costs


# -- the report ------------------------------------------------------------------------------


def ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


def verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


def format_section(report: Report, argv: list[str]) -> str:
    command = COMMAND + (" " + " ".join(argv) if argv else "")
    lines = [
        SECTION,
        "",
        "```",
        f"{command}      # --help for sizes",
        "```",
        "",
        f"Run {report.started_at} on {report.machine}; {report.tree}. {report.background} "
        f"The whole run took {report.duration_s:.0f} s.",
        "",
        "Everything on 127.0.0.1. Each figure stands beside a floor measured in the same run, and the",
        "ratios are what to compare between runs and machines.",
        "",
    ]

    measured = [row for row in report.moves if "echo" in row]
    if report.moves:
        lines += [
            "### Moves: round trip and throughput beside a bare grpc.aio echo",
            "",
            "`tablehost serve` (embedded Ray, warm pool 2, linger 0.2 s) and `tablehost bots --json` (random",
            "bots, 4 per table, all in one process), after a 1-table warm-up game. A move's round trip is",
            "commit written -> the delta carrying its act_id read and applied; moves/s is moves over the",
            "bots' whole run (queueing and table start included). The \"cold\" run is a burst of tables",
            "against a pool of 2: it cold-starts the other rooms while the first tables play (one more",
            "unmeasured burst follows if it left fewer rooms than tables + 2); the run measured against",
            "the floors comes after it and finds every room warm.",
            "",
            "Floor: a grpc.aio bidirectional echo, server and clients each in a process of their own, with",
            "the same streams in groups of 4: one stream of a group sends at a time",
            f"({COMMIT_BYTES} B, a commit), the server sends {DELTA_BYTES} B (a delta) to all 4 streams of the group,",
            "the round trip is send -> the sender's own reply, then the next stream's turn; as many rounds",
            "per group as the bots made moves per table, and its round trips/s likewise include opening",
            "the streams. The second floor, \"echo + acks\", is the same with every stream answering every reply",
            f"with a {ACK_BYTES} B ack before it reads on, as the SDK acks every delta (4 acks per move).",
            "",
            "| run | moves / round trips | p50 | p99 | per second | move p50 ÷ | move p99 ÷ | moves/s ÷ |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for row in report.moves:
            bots = row["bots"]
            lines.append(
                f"| **{row['label']}: host** | {bots['moves']:,} | {bots['p50_ms']:.2f} ms | {bots['p99_ms']:.2f} ms "
                f"| {bots['moves_per_s']:,.0f} moves/s | | | |"
            )
            for key, name in (("echo", "echo floor"), ("echo_acks", "echo + acks")):
                echo = row.get(key)
                if not echo:
                    continue
                lines.append(
                    f"| {row['label']}: {name} | {echo['round_trips']:,} | {echo['p50_ms']:.2f} ms "
                    f"| {echo['p99_ms']:.2f} ms | {echo['round_trips_per_s']:,.0f} /s "
                    f"| {ratio(bots['p50_ms'], echo['p50_ms']):.2f} | {ratio(bots['p99_ms'], echo['p99_ms']):.2f} "
                    f"| {ratio(bots['moves_per_s'], echo['round_trips_per_s']):.2f} |"
                )
        lines.append("")
        for row in report.moves:
            bots = row["bots"]
            lines.append(
                f"- {row['label']}: {bots['games_completed']}/{bots['tables_expected']} games, rejects "
                f"{bots['rejects']}, desyncs {bots['desyncs']}, errors {bots['errors']}, gaps {bots['gaps']}, "
                f"reconnects {bots['reconnects']}"
                + (f"; {row['rooms_after'] - row['rooms_before']} room actors created during the run "
                   f"({row['rooms_before']} -> {row['rooms_after']})" if row["rooms_after"] > row["rooms_before"] else "")
                + "."
            )
        lines.append("")
        lines += [
            "Where the CPU went, in CPU ms per move (per round trip for the floors): every process of the",
            "host from /proc (schedstat of every thread), the clients' process from its rusage (its",
            "interpreter start and imports, measured apart, taken off), the echo's from its own counters.",
            "",
            "| run | clients | rooms | front door | lobby | rest of Ray | total | cores busy |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for row in report.moves:
            cpu, moves, elapsed = row["cpu"], max(1, row["bots"]["moves"]), row["bots"]["elapsed_s"]
            total = sum(cpu.values())
            lines.append(
                f"| {row['label']}: host | {cpu['clients'] * 1000 / moves:.2f} | {cpu['rooms'] * 1000 / moves:.2f} "
                f"| {cpu['front_door'] * 1000 / moves:.2f} | {cpu['lobby'] * 1000 / moves:.2f} "
                f"| {cpu['ray'] * 1000 / moves:.2f} | {total * 1000 / moves:.2f} | {ratio(total, elapsed):.2f} |"
            )
            for key, name in (("echo", "echo floor"), ("echo_acks", "echo + acks")):
                echo = row.get(key)
                if not echo:
                    continue
                trips = max(1, echo["round_trips"])
                echo_total = echo["client_cpu_s"] + echo["server_cpu_s"]
                lines.append(
                    f"| {row['label']}: {name} | {echo['client_cpu_s'] * 1000 / trips:.2f} "
                    f"| {echo['server_cpu_s'] * 1000 / trips:.2f} (server) | | | | {echo_total * 1000 / trips:.2f} "
                    f"| {ratio(echo_total, echo['elapsed_s']):.2f} |"
                )
        lines.append("")
        idle_rows = [row for row in report.moves if row.get("idle_cpu")]
        if idle_rows:
            last = idle_rows[-1]
            idle = last["idle_cpu"]
            lines += [
                f"Idle for {IDLE_WINDOW_S:g} s just before the last run, the host's {last['rooms_before']} room "
                f"actors used {idle['rooms']:.3f} CPU s per second between",
                f"them, the rest of its Ray {idle['ray']:.3f}, its lobby {idle['lobby']:.3f}, its front door "
                f"{idle['front_door']:.3f}.",
                "",
            ]

    memory = report.memory
    if "room" in memory:
        room, bare = memory["room"], memory["bare"]
        lines += [
            "### Room actor memory",
            "",
            "In-process host (warm pool 2); /proc/PID/smaps_rollup of a room actor that has hosted one game",
            "(played by bots in another process, the room reset after its linger) beside a bare",
            "`@ray.remote(num_cpus=0)` actor on the same Ray.",
            "",
            "| process | PSS | RSS | private |",
            "|---|---:|---:|---:|",
            f"| room actor, after one game | {room['pss']:.1f} MiB | {room['rss']:.1f} MiB | {room['private']:.1f} MiB |",
        ]
        unused = memory.get("room_unused")
        if unused:
            lines.append(f"| room actor from the pool, no game yet | {unused['pss']:.1f} MiB | {unused['rss']:.1f} MiB "
                         f"| {unused['private']:.1f} MiB |")
        lines += [
            f"| bare Ray actor | {bare['pss']:.1f} MiB | {bare['rss']:.1f} MiB | {bare['private']:.1f} MiB |",
            f"| room after one game ÷ bare | {ratio(room['pss'], bare['pss']):.2f} | {ratio(room['rss'], bare['rss']):.2f} "
            f"| {ratio(room['private'], bare['private']):.2f} |",
            "",
        ]
        idle = memory.get("idle_ms_per_s")
        if idle:
            lines += [
                f"Idle, the same room used {idle['room']:.1f} ms of CPU per second, the bare actor "
                f"{idle['bare']:.1f} ms.",
                "",
            ]
        contributors = memory.get("contributors", [])
        if contributors:
            every = contributors[0]
            lines += [
                f"The room's process holds {memory['extra_modules']} modules the bare actor's does not "
                f"({memory['room_modules']} vs {memory['bare_modules']}).",
                "Imported into a fresh interpreter that already holds the bare actor's modules, they add "
                f"{every['rss_mb']:.1f} MiB RSS,",
                f"{every['private_mb']:.1f} MiB private. What the same import saves when one top-level package "
                "is refused (with every",
                "module that needs it), i.e. what cutting it from the room would save (RSS counts shared library",
                "pages in full; private is what every further room pays for certain):",
                "",
                "| package | its modules | saves RSS | saves private | e.g. |",
                "|---|---:|---:|---:|---|",
            ]
            for cost in contributors[1:]:
                names = ", ".join(f"`{n}`" for n in cost.get("names", [])[:3])
                lines.append(f"| `{cost['group']}` | {cost['count']} | {cost['saved_rss_mb']:.1f} MiB "
                             f"| {cost['saved_private_mb']:.1f} MiB | {names} |")
            lines.append("")

    starts = report.starts
    if starts.get("warm_ms"):
        warm, ping, cold = starts["warm_ms"], starts["ping_ms"], starts["cold_ms"]
        lines += [
            "### Table start from the warm pool",
            "",
            "Same in-process host (warm pool 2, linger 0.2 s), players in their own process. Per table three",
            "players queue; 0.2 s later the 4th sends JoinQueue (the queue fills) and the clock runs until the",
            "4th player's TableSession holds its first snapshot with `to_act` set (the other three connect",
            "meanwhile). Greedy bots then play the game out and all close at once, and the room returns to",
            f"the pool. {WARMUP_TABLES} unmeasured tables first. With 100 samples or fewer, the p99 is the largest.",
            "",
            "| what | p50 | p99 | samples |",
            "|---|---:|---:|---:|",
            f"| warm-pool table start: 4th JoinQueue -> first snapshot with `to_act` | {percentile(warm, 50):.2f} ms "
            f"| {percentile(warm, 99):.2f} ms | {len(warm)} |",
            f"| of which: 4th JoinQueue -> its TableAssignment | {percentile(starts['assigned_ms'], 50):.2f} ms "
            f"| {percentile(starts['assigned_ms'], 99):.2f} ms | {len(starts['assigned_ms'])} |",
            f"| floor: one bare Ray actor call, `ray.get(actor.ping.remote())` | {percentile(ping, 50):.3f} ms "
            f"| {percentile(ping, 99):.3f} ms | {len(ping)} |",
            f"| cold room start: new room actor created and started | {percentile(cold, 50):.0f} ms "
            f"| ({', '.join(f'{c:.0f}' for c in cold)} ms) | {len(cold)} |",
            "",
        ]
        if starts["rooms_after"] > starts["rooms_before"]:
            lines.append(f"The lobby created {starts['rooms_after'] - starts['rooms_before']} room(s) during the "
                         "table-start run (pool top-ups), so a few starts overlapped a cold start in the background.")
            lines.append("")

    lines += ["### Ratios", ""]
    for row in measured:
        bots, echo = row["bots"], row["echo"]
        p50 = ratio(bots["p50_ms"], echo["p50_ms"])
        lines.append(f"- move p50 ÷ echo p50, {row['label']}: **{p50:.2f}** "
                     f"(target ≤ {TARGET_P50_RATIO}: {verdict(p50 <= TARGET_P50_RATIO)})")
    for row in measured:
        bots, echo = row["bots"], row["echo"]
        lines.append(f"- move p99 ÷ echo p99, {row['label']}: {ratio(bots['p99_ms'], echo['p99_ms']):.2f}")
    for row in measured:
        bots, echo = row["bots"], row["echo"]
        lines.append(f"- moves/s ÷ echo round trips/s, {row['label']}: "
                     f"{ratio(bots['moves_per_s'], echo['round_trips_per_s']):.2f}")
    for row in measured:
        bots, echo = row["bots"], row.get("echo_acks")
        if echo:
            lines.append(f"- against echo + acks, {row['label']}: move p50 ÷ {ratio(bots['p50_ms'], echo['p50_ms']):.2f}, "
                         f"p99 ÷ {ratio(bots['p99_ms'], echo['p99_ms']):.2f}, moves/s ÷ "
                         f"{ratio(bots['moves_per_s'], echo['round_trips_per_s']):.2f}")
    if "room" in memory:
        pss = ratio(memory["room"]["pss"], memory["bare"]["pss"])
        lines.append(f"- room PSS ÷ bare actor PSS: **{pss:.2f}** (target ≤ {TARGET_MEMORY_RATIO}: "
                     f"{verdict(pss <= TARGET_MEMORY_RATIO)})")
        lines.append(f"- room RSS ÷ bare actor RSS: {ratio(memory['room']['rss'], memory['bare']['rss']):.2f}")
    if starts.get("warm_ms"):
        warm_p50 = percentile(starts["warm_ms"], 50)
        ping_p50 = percentile(starts["ping_ms"], 50)
        lines.append(f"- warm-pool table start p50: **{warm_p50:.1f} ms** (target < {TARGET_WARM_START_MS:g} ms: "
                     f"{verdict(warm_p50 < TARGET_WARM_START_MS)})")
        lines.append(f"- warm-pool table start p50 ÷ bare Ray call p50: {ratio(warm_p50, ping_p50):.1f}")
        lines.append(f"- cold room start p50 ÷ warm-pool table start p50: "
                     f"{ratio(percentile(starts['cold_ms'], 50), warm_p50):.1f}")
    lines.append("")
    if report.findings:
        lines += ["Noted during the run:", ""] + [f"- {finding}" for finding in report.findings] + [""]
    return "\n".join(lines).rstrip() + "\n"


def write_section(section: str) -> None:
    """Replace this script's section of docs/benchmarks.md, or append it; every other
    section stays byte for byte as it is."""
    text = DOC.read_text() if DOC.exists() else "# Benchmarks\n"
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip("\n") == SECTION), None)
    if start is None:
        body = text if text.endswith("\n") else text + "\n"
        DOC.write_text(body + "\n" + section)
        return
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    tail = "".join(lines[end:])
    DOC.write_text("".join(lines[:start]) + section + ("\n" + tail if tail else ""))


def collect_findings(report: Report) -> None:
    for row in report.moves:
        bots = row["bots"]
        if not bots.get("ok", False) or bots.get("rejects") or bots.get("desyncs") or bots.get("errors"):
            report.findings.append(
                f"bots, {row['label']}: ok={bots.get('ok')}, games {bots['games_completed']}/{bots['tables_expected']}, "
                f"rejects {bots['rejects']}, desyncs {bots['desyncs']}, errors {bots['errors']}, "
                f"gaps {bots['gaps']}, reconnects {bots['reconnects']}: {bots.get('error_messages', [])[:3]}")
        elif bots.get("gaps") or bots.get("reconnects") or bots.get("stream_rejections"):
            report.findings.append(f"bots, {row['label']}: gaps {bots['gaps']}, reconnects {bots['reconnects']}, "
                                   f"stream rejections {bots['stream_rejections']}")
        for key in ("echo", "echo_acks"):
            echo = row.get(key)
            if echo and echo["errors"]:
                report.findings.append(f"{key}, {row['label']}: {echo['errors']} errors: {echo['error_messages'][:2]}")
    if report.starts.get("problem_count"):
        report.findings.append(f"table starts: {report.starts['problem_count']} problems: "
                               f"{report.starts['problems'][:3]}")
    game = report.memory.get("game")
    if game and not game.get("ok", False):
        report.findings.append(f"the memory game did not finish cleanly: {game}")
    for key, name in (("host_logs", "`tablehost serve`"), ("host_logs_inprocess", "in-process host")):
        logs = report.memory.get(key) or {}
        worrying = {k: v for k, v in logs.items() if k != "automatic_moves" and v}
        if worrying or logs.get("automatic_moves"):
            report.findings.append(f"{name} Ray worker logs: {logs}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=25, help="tables of bots in the large run (default 25)")
    parser.add_argument("--starts", type=int, default=30, help="measured warm-pool table starts (default 30)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md alone")
    # Internal modes: this script runs itself as the echo server, the echo clients, the
    # table-start clients and the import-cost probe, each in a process of its own.
    parser.add_argument("--echo-server", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--lifetime", type=float, default=CHILD_LIFETIME_S, help=argparse.SUPPRESS)
    parser.add_argument("--echo-clients", metavar="TARGET", help=argparse.SUPPRESS)
    parser.add_argument("--groups", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--rounds", type=int, default=100, help=argparse.SUPPRESS)
    parser.add_argument("--acks", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--table-starts", metavar="TARGET", help=argparse.SUPPRESS)
    parser.add_argument("--import-cost", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.echo_server:
        asyncio.run(echo_server_main(args.lifetime))
        return 0
    if args.echo_clients:
        result = asyncio.run(echo_clients_main(args.echo_clients, args.groups, args.rounds, ECHO_TIMEOUT_S, args.acks))
        print(json.dumps(result), flush=True)
        return 0 if not result["errors"] else 1
    if args.table_starts:
        result = asyncio.run(table_starts_main(args.table_starts, args.tables, WARMUP_TABLES, STARTS_TIMEOUT_S))
        print(json.dumps(result), flush=True)
        return 0
    if args.import_cost:
        print(json.dumps(import_cost_main()), flush=True)
        return 0

    if not 1 <= args.tables <= 100 or not 1 <= args.starts <= 200:
        parser.error("--tables takes 1..100 and --starts 1..200")

    def on_sigterm(_signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt  # so every `finally` ends what it started

    signal.signal(signal.SIGTERM, on_sigterm)
    global _deadline
    _deadline = time.monotonic() + TOTAL_BUDGET_S
    passed = [a for a in (argv if argv is not None else sys.argv[1:]) if a != "--no-write"]
    report = Report()
    report.started_at = subprocess.run(["date"], capture_output=True, text=True).stdout.strip()
    report.machine = machine_line()
    report.tree = tree_line()
    busy = cpu_busy_share(1.0)
    foreign_ray = sum(1 for entry in Path("/proc").iterdir()
                      if entry.name.isdigit() and cmdline(int(entry.name)).startswith("ray::"))
    report.background = (f"Before the run the machine was {busy:.0%} busy"
                         + (f" and {foreign_ray} other Ray worker processes were running." if foreign_ray else "."))
    print(f"{report.started_at}; {report.machine}; {report.tree}", flush=True)
    print(report.background, flush=True)
    logdir = Path(tempfile.mkdtemp(prefix="bench_host-"))
    started = time.monotonic()
    failed = False
    try:
        try:
            measure_moves(report, args.tables, logdir)
        except Exception as error:
            failed = True
            report.findings.append(f"the move measurement failed: {type(error).__name__}: {error}")
            print(f"  FAILED: {report.findings[-1]}", file=sys.stderr, flush=True)
        try:
            measure_memory_and_starts(report, args.starts, logdir)
        except Exception as error:
            failed = True
            report.findings.append(f"the memory/table-start measurement failed: {type(error).__name__}: {error}")
            print(f"  FAILED: {report.findings[-1]}", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        for finding in report.findings:
            print(f"  {finding}", file=sys.stderr)
        print(f"interrupted; every process started here has been ended (logs: {logdir})", file=sys.stderr)
        return 130
    collect_findings(report)
    report.duration_s = time.monotonic() - started
    section = format_section(report, passed)
    print()
    print(section)
    if failed:
        print(f"logs of the subprocesses: {logdir}", file=sys.stderr)
    else:
        for path in logdir.iterdir():
            path.unlink()
        logdir.rmdir()
    if not args.no_write:
        write_section(section)
        print(f"wrote the section {SECTION!r} of {DOC.relative_to(ROOT)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
