"""`tablehost loadtest` benchmark: what the load generator itself costs, and
the throughput and latency it measures at 1, 25 and 100 tables and at the
most this machine holds, each beside a grpc.aio echo floor with the same
streams measured in the same run.

    .venv/bin/python tests/benchmarks/bench_loadtest.py [--quick] [--plot PATH] [--save JSON]

Each level is one `tablehost loadtest --tables N --no-progress` (an embedded
host and one load agent in the same local Ray, every player a real SDK
client checking every hash, arriving at once, no think time, one game per
table); the agent reports its own CPU seconds (getrusage), so the load
generator's cost is CPU ms per move in the agent. "The most this machine
holds" is the largest level of a doubling ladder (250, 500, 1,000, 2,000 tables)
whose every game finished clean within the duration bound; the ladder
stops at the first that did not.

The floor, with the same streams: for N tables, a bare grpc.aio echo server
(a process of its own) and N groups of 4 bidirectional streams in one
client process (each stream on a connection of its own, as each SDK
session is); in each group one stream at a time sends a 40-byte message
(one per move), the server sends 200 bytes to all 4 streams of the group,
and the turn passes on; as many rounds per group as the load test made
moves per table, every group starting at once. Nothing parses, validates,
builds views or hashes, and nothing is acked.

Loopback only, bounded: every run has a timeout, every process is ended by
pid. Prints a markdown table; a full run draws docs/loadtest.png. Another
engineer's processes share this machine: the CPU they used meanwhile is
given beside each run. A script, not a test (pytest collects only test_*.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import resource
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # hostbench, beside this script
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # Ray on loopback only

from hostbench.procs import ForeignLoad  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PLOT = ROOT / "docs" / "loadtest.png"
TABLEHOST = [sys.executable, "-m", "tablehost.host.cli"]
SEED = 20261205
LEVELS = (1, 25, 100)
LADDER = (250, 500, 1000, 2000)
DURATION_S = 300.0
QUICK_LEVELS = (1, 5)

ECHO_SERVICE = "tablehost.bench.LoadEcho"
ECHO_METHOD = f"/{ECHO_SERVICE}/Play"
OPEN_ATTEMPTS = 3
MOVE_BYTES = 40
DELTA_BYTES = 200
SEATS = 4


# -- the echo floor ---------------------------------------------------------------------


async def echo_serve() -> None:
    """The floor's server: each stream says which group it is in (8 bytes),
    is answered b"ok", then every message it sends is answered with 200
    bytes to every stream of its group. Each stream has an outbox that its
    handler alone writes from (grpc.aio allows one write at a time). Until SIGTERM."""
    import grpc
    from grpc import aio

    groups: dict[bytes, list[asyncio.Queue[bytes | None]]] = {}
    delta = b"d" * DELTA_BYTES

    async def play(request_iterator: Any, context: aio.ServicerContext) -> None:
        key = await context.read()
        outbox: asyncio.Queue[bytes | None] = asyncio.Queue()
        members = groups.setdefault(key, [])
        members.append(outbox)
        await context.write(b"ok")

        async def read() -> None:
            while await context.read() is not aio.EOF:
                for member in members:
                    member.put_nowait(delta)
            outbox.put_nowait(None)

        reader = asyncio.create_task(read())
        try:
            while (message := await outbox.get()) is not None:
                await context.write(message)
        finally:
            reader.cancel()
            members.remove(outbox)
            if not members:
                groups.pop(key, None)

    server = aio.server(options=[("grpc.max_concurrent_streams", 1 << 20)])
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
        ECHO_SERVICE, {"Play": grpc.stream_stream_rpc_method_handler(play)}),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(f"listening on 127.0.0.1:{port}", flush=True)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    await server.stop(1)


async def echo_clients(target: str, groups: int, rounds: int) -> dict[str, Any]:
    """`groups` groups of 4 streams playing `rounds` turns each, all at once;
    each turn's round trip is its sender's message to its own reply. Returns
    the round trips (an encoded histogram), wall time and this process's CPU."""
    from grpc import aio

    from tablehost.clients.bots import round_trip_histogram, round_trip_us

    histogram = round_trip_histogram()
    move = b"m" * MOVE_BYTES
    reopened = 0

    async def open_stream(channel: aio.Channel, key: bytes) -> Any:
        """A stream that took its first message. In a burst of thousands of
        connections a stream's first write sometimes ends CANCELLED even on a
        ready channel; the SDK's connect retries such a hello, so this does too."""
        nonlocal reopened
        for _ in range(OPEN_ATTEMPTS):
            call = channel.stream_stream(ECHO_METHOD)()
            try:
                await call.write(key)
                return call
            except (aio.AioRpcError, asyncio.InvalidStateError):
                call.cancel()
                reopened += 1
        raise RuntimeError(f"no stream to the echo server after {OPEN_ATTEMPTS} attempts")

    async def one_group(group: int) -> None:
        channels = [aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
                    for _ in range(SEATS)]
        try:
            # Connected first, as each SDK session is before it opens its stream
            # (a stream opened on a connection still being made may fail its first write).
            for channel in channels:
                await asyncio.wait_for(channel.channel_ready(), 60)
            calls = [await open_stream(channel, group.to_bytes(8, "big")) for channel in channels]
            for call in calls:  # every stream is in its group before the first move
                if await call.read() != b"ok":
                    raise RuntimeError("the echo server did not take the stream")
            for turn in range(rounds):
                sender = calls[turn % SEATS]
                started = time.perf_counter()
                await sender.write(move)
                await sender.read()
                histogram.record_value(round_trip_us(time.perf_counter() - started))
                await asyncio.gather(*(call.read() for call in calls if call is not sender))
            for call in calls:
                await call.done_writing()
        finally:
            for channel in channels:
                await channel.close()

    usage = resource.getrusage(resource.RUSAGE_SELF)
    started = time.perf_counter()
    await asyncio.gather(*(one_group(group) for group in range(groups)))
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_SELF)
    return {"round_trips": histogram.get_total_count(), "elapsed_s": elapsed,
            "cpu_s": after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime,
            "histogram": histogram.encode().decode(), "streams_reopened": reopened}


# -- running the levels -----------------------------------------------------------------


def wait_for_line(process: subprocess.Popen[str], prefix: str, timeout_s: float) -> str:
    """The first stdout line of `process` starting with `prefix`, or RuntimeError."""
    assert process.stdout is not None
    deadline = time.monotonic() + timeout_s
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while selector.select(timeout=max(0.0, deadline - time.monotonic())):
            line = process.stdout.readline()
            if not line:
                break
            if line.startswith(prefix):
                return line.strip()
    raise RuntimeError(f"{process.args} did not print {prefix!r} within {timeout_s:g} s")


def watched(command: list[str], timeout_s: float) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """Run a command to its end (killed by pid at `timeout_s`) while counting
    the CPU other people's processes use meanwhile."""
    foreign = ForeignLoad(os.getpid())
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, text=True)
        deadline = time.monotonic() + timeout_s
        while process.poll() is None and time.monotonic() < deadline:
            try:
                process.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                foreign.sample()
        if process.poll() is None:
            process.kill()
            process.wait(10)
        foreign.sample()
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(command, process.returncode, out.read(), err.read()), foreign.summary()


def loadtest_level(tables: int, duration_s: float, out: Path) -> dict[str, Any]:
    """One `tablehost loadtest` run of `tables` tables; its report's figures."""
    command = [*TABLEHOST, "loadtest", "--port", "0", "--seed", str(SEED), "--tables", str(tables), "--duration",
               str(duration_s), "--no-progress", "--out", str(out)]
    finished, foreign = watched(command, duration_s + 180)
    if not (out / "report.json").exists():
        raise RuntimeError(f"loadtest at {tables} tables wrote no report (exit {finished.returncode}): "
                           f"{finished.stderr[-2000:]}")
    report = json.loads((out / "report.json").read_text())
    totals = report["totals"]
    return {
        "tables": tables, "ok": report["ok"], "exit_code": finished.returncode, "moves": totals["moves"],
        "moves_per_s": totals["moves_per_s"], "p50_ms": report["latency_ms"]["p50"],
        "p99_ms": report["latency_ms"]["p99"], "elapsed_s": totals["elapsed_s"],
        "agent_cpu_s": totals["agent_cpu_s"], "agent_cpu_ms_per_move": totals["agent_cpu_ms_per_move"],
        "players": totals["players"], "errors": totals["errors"], "desyncs": totals["desyncs"],
        "hashes_checked": totals["hashes_checked"], "foreign": foreign,
    }


def echo_level(tables: int, rounds: int) -> dict[str, Any]:
    """The floor for `tables` tables of `rounds` moves, measured again once
    if its clients failed (a stream of thousands opened at once sometimes
    ends CANCELLED; the failure is kept in the figures)."""
    try:
        return echo_once(tables, rounds)
    except RuntimeError as error:
        return {**echo_once(tables, rounds), "failed_before": str(error)[-500:]}


def echo_once(tables: int, rounds: int) -> dict[str, Any]:
    """The floor for `tables` tables of `rounds` moves: server and clients in
    processes of their own, the server's CPU read from psutil by its pid."""
    import psutil

    from tablehost.host.loadtest.report import latency_ms, merged_histogram

    server = subprocess.Popen([sys.executable, __file__, "--echo-server"], stdout=subprocess.PIPE, text=True)
    try:
        target = wait_for_line(server, "listening on ", 60).removeprefix("listening on ")
        server_cpu = psutil.Process(server.pid).cpu_times()
        finished, foreign = watched([sys.executable, __file__, "--echo-clients", target, str(tables), str(rounds)],
                                    600)
        server_after = psutil.Process(server.pid).cpu_times()
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(10)
    if finished.returncode != 0:
        raise RuntimeError(f"echo clients at {tables} tables failed: {finished.stderr[-2000:]}")
    clients = json.loads(finished.stdout.strip().splitlines()[-1])
    figures = latency_ms(merged_histogram([clients["histogram"]]))
    trips = clients["round_trips"]
    return {
        "tables": tables, "round_trips": trips, "per_s": round(trips / clients["elapsed_s"], 1),
        "p50_ms": figures["p50"], "p99_ms": figures["p99"], "streams_reopened": clients["streams_reopened"],
        "client_cpu_ms_per_round_trip": round(1000 * clients["cpu_s"] / trips, 4),
        "server_cpu_ms_per_round_trip": round(
            1000 * (server_after.user + server_after.system - server_cpu.user - server_cpu.system) / trips, 4),
        "foreign": foreign,
    }


def level(tables: int, duration_s: float, out: Path) -> dict[str, Any]:
    host = loadtest_level(tables, duration_s, out / f"loadtest-{tables}")
    rounds = max(1, round(host["moves"] / tables))
    row = {"tables": tables, "loadtest": host, "echo": echo_level(tables, rounds), "rounds_per_table": rounds}
    print(json.dumps({"tables": tables, "loadtest_ok": host["ok"], "moves_per_s": host["moves_per_s"],
                      "echo_per_s": row["echo"]["per_s"]}), flush=True)
    return row


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b else "n/a"


def markdown(results: dict[str, Any]) -> str:
    lines = [
        "| tables | moves | moves/s | p50 | p99 | agent CPU per move | echo round trips/s | echo p50 | echo p99 | "
        "echo client CPU per round trip | ÷ echo: per s | p50 | p99 | client CPU | others' CPU (cores) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in results["levels"]:
        host, echo = row["loadtest"], row["echo"]
        clean = "" if host["ok"] else " (not clean)"
        lines.append(
            f"| {row['tables']:,}{clean} | {host['moves']:,} | {host['moves_per_s']:,.0f} | {host['p50_ms']:.2f} ms | "
            f"{host['p99_ms']:.1f} ms | {host['agent_cpu_ms_per_move']:.3f} ms | {echo['per_s']:,.0f} | "
            f"{echo['p50_ms']:.2f} ms | {echo['p99_ms']:.1f} ms | {echo['client_cpu_ms_per_round_trip']:.3f} ms | "
            f"{ratio(host['moves_per_s'], echo['per_s'])} | {ratio(host['p50_ms'], echo['p50_ms'])} | "
            f"{ratio(host['p99_ms'], echo['p99_ms'])} | "
            f"{ratio(host['agent_cpu_ms_per_move'], echo['client_cpu_ms_per_round_trip'])} | "
            f"{host['foreign']['foreign_cores']:.2f} |")
    return "\n".join(lines)


def plot(results: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = results["levels"]
    tables = [row["tables"] for row in rows]
    figure, axes = plt.subplots(1, 3, figsize=(14, 4.2), constrained_layout=True)
    panels = [
        ("moves (round trips) per second", [r["loadtest"]["moves_per_s"] for r in rows], [r["echo"]["per_s"] for r in rows]),
        ("p99 round trip (ms)", [r["loadtest"]["p99_ms"] for r in rows], [r["echo"]["p99_ms"] for r in rows]),
        ("client CPU ms per move", [r["loadtest"]["agent_cpu_ms_per_move"] for r in rows],
         [r["echo"]["client_cpu_ms_per_round_trip"] for r in rows]),
    ]
    for axis, (label, ours, floor) in zip(axes, panels):
        axis.plot(tables, ours, marker="o", color="#1f5fa8", label="tablehost loadtest (agent, SDK clients)")
        axis.plot(tables, floor, marker="s", color="#c0392b", label="grpc.aio echo floor, same streams")
        axis.set_xscale("log")
        axis.set_xticks(tables)
        # A level that did not finish clean within the duration is starred.
        axis.set_xticklabels([f"{r['tables']:,}" + ("" if r["loadtest"]["ok"] else "*") for r in rows],
                             rotation=45)
        axis.minorticks_off()
        axis.set_xlabel("tables (4 players each)")
        axis.set_ylabel(label)
        axis.set_ylim(bottom=0, top=max(ours + floor) * 1.1)
        axis.grid(True, alpha=0.3)
    axes[1].plot(tables, [r["loadtest"]["p50_ms"] for r in rows], marker="o", linestyle="--", color="#1f5fa8",
                 label="loadtest p50")
    axes[0].legend(loc="best", fontsize=8)
    axes[1].legend(loc="best", fontsize=8)
    starred = "; * not every game finished clean within the run's bound" if not all(
        r["loadtest"]["ok"] for r in rows) else ""
    figure.suptitle(f"tablehost loadtest beside a grpc.aio echo floor on {results['machine']}{starred}", fontsize=9)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)
    plt.close(figure)


def machine() -> str:
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor() or "unknown CPU")
    return f"{os.cpu_count()} cores, {model}, Python {platform.python_version()}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1 and 5 tables, no ladder, no plot: that it works")
    parser.add_argument("--plot", default="", help=f"where the plot goes (default: {PLOT} on a full run)")
    parser.add_argument("--save", default="", help="write every figure as JSON here")
    parser.add_argument("--echo-server", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--echo-clients", nargs=3, metavar=("TARGET", "TABLES", "ROUNDS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.echo_server:
        asyncio.run(echo_serve())
        return 0
    if args.echo_clients:
        target, tables, rounds = args.echo_clients
        print(json.dumps(asyncio.run(echo_clients(target, int(tables), int(rounds)))), flush=True)
        return 0

    out = Path(tempfile.mkdtemp(prefix="bench_loadtest-"))
    results: dict[str, Any] = {"machine": machine(), "started_at": time.strftime("%Y-%m-%d %H:%M:%S"),
                               "levels": [], "out": str(out)}
    for tables in (QUICK_LEVELS if args.quick else LEVELS):
        results["levels"].append(level(tables, DURATION_S, out))
    results["holds"] = max(row["tables"] for row in results["levels"] if row["loadtest"]["ok"])
    if not args.quick:
        for tables in LADDER:
            row = level(tables, DURATION_S, out)
            results["levels"].append(row)
            if not row["loadtest"]["ok"]:
                break
            results["holds"] = tables
    print(f"\n{results['machine']}; the most tables that finished clean: {results['holds']:,}\n")
    print(markdown(results))
    if args.save:
        Path(args.save).write_text(json.dumps(results, indent=1) + "\n")
    plot_path = Path(args.plot) if args.plot else (None if args.quick else PLOT)
    if plot_path is not None:
        plot(results, plot_path)
        print(f"\nplot: {plot_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
