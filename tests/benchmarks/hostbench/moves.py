"""Scenario: moves, at 1 to a few hundred tables, beside the bare grpc.aio echo floors.

One `tablehost serve` (embedded Ray; its rooms, one per core, start with the host and
hold every table of every level, so no level pays a process start) and random bots, 4
per table, one whole game per table. The warm-up game runs through `tablehost bots
--json` itself; each measured level runs the same code (clients.loadrun.run_tables) in
`hostbench.worker bots` processes that import everything first and then start together
on a signal: above `split_above` tables the bots run in two processes (Python clients
are single-threaded, and one process would be the bottleneck), and neither must be
still starting while the other plays. Each level of the scaling curve is one run:

- moves and moves/s (all the level's processes' moves over the longest one's run,
  queueing and table start included), p50/p99 of the commit round trip (commit written
  -> the delta carrying its act_id read and applied). With two processes, p50 and p99
  are the higher of the two processes' (the bots report percentiles, not histograms).
- server CPU per move: every process of the host's tree from /proc over the run, by
  kind (front door, lobby, rooms, rest of Ray), over the moves; the clients' CPU as each
  bots process measured it while playing.
- host PSS: the tree's, read during the run (first after 0.3 s, then every second),
  the highest reading kept.

At the `floors_at` levels, the echo and echo + acks floors (hostbench.echo) run with the
same streams, split over as many client processes started the same way, as many rounds
per group as the bots made moves per table; their histograms are merged exactly.

At the `ts_at` levels the same tables are played again with the TypeScript SDK as the
client (clients/ts/scripts/load.mjs in Node processes, split and started the same way,
built first with `npm ci` and `npm run build`), so the host's figures with Node clients
stand beside Colyseus's with Node clients, and beside its own with Python bots.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hostbench import ROOT, stats
from hostbench.children import Budget, Child, run_to_end, tablehost_argv, worker_argv
from hostbench.host import HOST_KINDS, HostUnderTest, LOAD_GENERATOR_EXEMPT
from hostbench.procs import MIB, cpu_delta_by_kind, cpu_s

BOTS_IMPORT_S = 60.0
ECHO_START_S = 30.0
ECHO_LIFETIME_S = 1800.0
ECHO_RUN_S = 150.0
MIN_ROUNDS, MAX_ROUNDS = 20, 400
FIRST_PSS_READING_S = 0.3
TS_PACKAGE = ROOT / "clients" / "ts"
NPM_TIMEOUT_S = 300.0


@dataclass(frozen=True)
class MovesPlan:
    levels: tuple[int, ...]
    floors_at: tuple[int, ...]
    split_above: int
    bots_timeout_s: float = 240.0
    pss_every_s: float = 1.0
    ts_at: tuple[int, ...] = ()


def split(tables: int, plan: MovesPlan) -> list[int]:
    if tables <= plan.split_above:
        return [tables]
    half = tables // 2
    return [tables - half, half]


class PeakPss:
    """The host tree's PSS, read on a thread every `every_s` while a run lasts; the highest."""

    def __init__(self, host: HostUnderTest, every_s: float) -> None:
        self.host = host
        self.every_s = every_s
        self.peak_mib = 0.0
        self.readings = 0
        self.by_kind_at_peak: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="pss-watch", daemon=True)

    def __enter__(self) -> PeakPss:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join(10)
        if not self.readings:  # a run shorter than the first wait: read it just after
            self._read()

    def _watch(self) -> None:
        wait = min(FIRST_PSS_READING_S, self.every_s)
        while not self._stop.wait(wait):
            self._read()
            wait = self.every_s

    def _read(self) -> None:
        reading = self.host.reading()
        self.readings += 1
        total = reading.total("pss") / MIB
        if total > self.peak_mib:
            self.peak_mib = total
            self.by_kind_at_peak = {k: round(v / MIB, 1) for k, v in reading.by_kind("pss").items()}


def run_bots(host: HostUnderTest, shares: list[int], logdir: Path, seed: int, label: str,
             timeout_s: float) -> list[dict[str, Any]]:
    """Bots processes, one per share, started together once each has imported
    everything (hostbench.worker bots: the run `tablehost bots --json` makes); their
    JSON summaries, each with the CPU its process used while playing."""
    return _run_together([
        Child(f"bots-{label}-{index}",
              worker_argv("bots", "--target", host.target, "--tables", str(share),
                          "--seed", str(seed + 100_000 * index), "--timeout", str(timeout_s)),
              logdir, stdin=True)
        for index, share in enumerate(shares)
    ], timeout_s)


def build_ts_clients(logdir: Path, budget: Budget) -> None:
    """The TypeScript SDK installed from its lock file and compiled, for load.mjs."""
    for name, argv in (("npm-ci", ["npm", "ci", "--no-audit", "--no-fund"]), ("npm-build", ["npm", "run", "build"])):
        child, code = run_to_end(name, argv, logdir, budget.seconds(NPM_TIMEOUT_S), cwd=TS_PACKAGE)
        if code != 0:
            raise RuntimeError(f"{' '.join(argv)} in clients/ts failed ({code}); see {child.stderr_path}")


def run_ts_clients(host: HostUnderTest, shares: list[int], logdir: Path, seed: int, label: str,
                   timeout_s: float) -> list[dict[str, Any]]:
    """Node processes playing the tables with the TypeScript SDK, one per share,
    started together as the bots are; their JSON summaries."""
    return _run_together([
        Child(f"ts-{label}-{index}",
              ["node", str(TS_PACKAGE / "scripts" / "load.mjs"), "--target", host.target, "--tables", str(share),
               "--seed", str(seed + 100_000 * index), "--timeout", str(timeout_s), "--wait-go"],
              logdir, stdin=True)
        for index, share in enumerate(shares)
    ], timeout_s)


def _run_together(children: list[Child], timeout_s: float) -> list[dict[str, Any]]:
    """Each child says it is ready, all are told to go at once, each prints its summary."""
    summaries = []
    try:
        for child in children:
            child.next_json(BOTS_IMPORT_S)  # {"ready": true}
        for child in children:
            child.send({"go": True})
        for child in children:
            summary = child.next_json(timeout_s + 30)
            summary["exit_code"] = child.wait(10)
            summaries.append(summary)
    finally:
        for child in children:
            child.stop(grace_s=3)
    return summaries


def _played(host: HostUnderTest, plan: MovesPlan, clients: Any) -> dict[str, Any]:
    """One run of client processes (`clients()` returns their summaries), with what
    the host's processes spent meanwhile, by kind, and the host tree's peak PSS."""
    host_before = host.reading(memory=False)
    with PeakPss(host, plan.pss_every_s) as pss:
        summaries = clients()
    used = cpu_delta_by_kind(host_before, host.reading(memory=False))
    played = merge_bots(summaries)
    cpu = {**{kind: round(used.get(kind, 0.0), 4) for kind in HOST_KINDS},
           "clients": round(sum(summary.get("client_cpu_s", 0.0) for summary in summaries), 4)}
    host_cpu = sum(cpu[kind] for kind in HOST_KINDS)
    return {
        "bots": played, "cpu_s": cpu, "server_cpu_ms_per_move": round(host_cpu * 1000 / max(1, played["moves"]), 4),
        "host_pss_peak_mib": round(pss.peak_mib, 1), "host_pss_by_kind_at_peak": pss.by_kind_at_peak,
    }


def merge_bots(summaries: list[dict[str, Any]]) -> dict[str, Any]:
    """One level's figures from its bots processes (see the module docstring)."""
    moves = sum(s["moves"] for s in summaries)
    elapsed = max(s["elapsed_s"] for s in summaries)
    merged: dict[str, Any] = {
        "processes": len(summaries),
        "moves": moves,
        "elapsed_s": elapsed,
        "moves_per_s": round(moves / elapsed, 1) if elapsed > 0 else 0.0,
        "p50_ms": max(s["p50_ms"] for s in summaries),
        "p99_ms": max(s["p99_ms"] for s in summaries),
        "per_process": [{k: s[k] for k in ("moves", "p50_ms", "p99_ms", "elapsed_s", "games_completed",
                                           "tables_expected", "exit_code")} for s in summaries],
        "error_messages": [m for s in summaries for m in s.get("error_messages", [])][:5],
    }
    for key in ("rejects", "desyncs", "errors", "gaps", "reconnects", "stream_rejections"):
        merged[key] = sum(s.get(key, 0) for s in summaries)
    return merged


def _echo(echo_target: str, echo_pid: int, shares: list[int], rounds: int, acks: bool, logdir: Path,
          label: str) -> dict[str, Any]:
    """One floor run: echo client processes started together, one per share."""
    cpu_before = cpu_s(echo_pid)
    children = []
    base = 0
    for index, groups in enumerate(shares):
        flags = ["--acks"] if acks else []
        children.append(Child(f"echo-{label}-{index}",
                              worker_argv("echo-clients", "--target", echo_target, "--groups", str(groups),
                                          "--rounds", str(rounds), "--group-base", str(base), *flags),
                              logdir, stdin=True))
        base += groups
    answers = []
    try:
        for child in children:
            child.next_json(BOTS_IMPORT_S)  # {"ready": true}
        for child in children:
            child.send({"go": True})
        for child in children:
            answers.append(child.next_json(ECHO_RUN_S))
    finally:
        for child in children:
            child.stop(grace_s=3)
    hist = stats.merged([a["histogram"] for a in answers])
    trips = hist.get_total_count()
    elapsed = max(a["elapsed_s"] for a in answers)
    return {
        "streams": sum(a["streams"] for a in answers),
        "round_trips": trips,
        "p50_ms": round(stats.percentile_ms(hist, 50), 3),
        "p99_ms": round(stats.percentile_ms(hist, 99), 3),
        "elapsed_s": elapsed,
        "round_trips_per_s": round(trips / elapsed, 1) if elapsed > 0 else 0.0,
        "client_cpu_s": round(sum(a["client_cpu_s"] for a in answers), 4),
        "server_cpu_s": round(cpu_s(echo_pid) - cpu_before, 4),
        "errors": sum(a["errors"] for a in answers),
        "error_messages": [m for a in answers for m in a["error_messages"]][:3],
    }


def _tables_started(host: HostUnderTest) -> int:
    return int(host.status()["tables_started"])


def run(plan: MovesPlan, logdir: Path, budget: Budget, seed: int) -> dict[str, Any]:
    flags = ["--seed", str(seed)]
    print(f"moves: starting a host ({' '.join(flags)}) and an echo server", flush=True)
    echo = Child("echo-server", worker_argv("echo-server", "--lifetime", str(ECHO_LIFETIME_S)), logdir)
    result: dict[str, Any] = {"plan": plan.__dict__, "flags": flags, "levels": []}
    host: HostUnderTest | None = None
    try:
        echo_target = echo.wait_for_line(r"listening on (\S+)", budget.seconds(ECHO_START_S)).group(1)
        host = HostUnderTest("host-moves", [*flags, *LOAD_GENERATOR_EXEMPT], logdir, budget)
        result["rooms"] = int(host.status()["rooms"])
        # The warm-up game goes through the command line itself, `tablehost bots --json`.
        warm_child, code = run_to_end("bots-warmup", tablehost_argv("bots", "--target", host.target, "--tables", "1",
                                                                    "--json", "--seed", str(seed + 1)),
                                      logdir, budget.seconds(plan.bots_timeout_s))
        warm = warm_child.last_json() if code is not None else {"ok": False, "moves": 0, "errors": "timed out"}
        result["warmup"] = {k: warm.get(k) for k in ("ok", "moves", "errors", "desyncs")}
        print(f"  warm-up game (tablehost bots --json): {warm['moves']} moves, ok {warm['ok']}", flush=True)
        time.sleep(0.5)

        if plan.ts_at:
            build_ts_clients(logdir, budget)
        for tables in plan.levels:
            shares = split(tables, plan)
            started_before = _tables_started(host)
            played = _played(host, plan, lambda: run_bots(host, shares, logdir, seed + 1000 * tables, str(tables),
                                                          budget.seconds(plan.bots_timeout_s)))
            bots = played["bots"]
            time.sleep(0.5)  # a finished table closes as its last stream does: let them go
            status = host.status()
            row: dict[str, Any] = {
                "tables": tables,
                **played,
                "tables_started": int(status["tables_started"]) - started_before,
                "tables_running_after": int(status["tables"]),
                "rooms": int(status["rooms"]),
            }
            print(f"  {tables} tables ({len(shares)} bots process{'es' if len(shares) > 1 else ''}): "
                  f"{bots['moves']} moves, {bots['moves_per_s']:.0f} moves/s, p50 {bots['p50_ms']} ms, "
                  f"p99 {bots['p99_ms']} ms, server CPU {row['server_cpu_ms_per_move']:.3f} ms/move, "
                  f"host PSS {row['host_pss_peak_mib']:.0f} MiB, errors {bots['errors']}", flush=True)
            if tables in plan.ts_at:
                ts = row["ts_clients"] = _played(host, plan, lambda: run_ts_clients(
                    host, shares, logdir, seed + 1000 * tables, str(tables), budget.seconds(plan.bots_timeout_s)))
                time.sleep(0.5)
                print(f"    TypeScript SDK clients: {ts['bots']['moves']} moves, {ts['bots']['moves_per_s']:.0f} "
                      f"moves/s, p50 {ts['bots']['p50_ms']:.1f} ms, p99 {ts['bots']['p99_ms']:.1f} ms, server CPU "
                      f"{ts['server_cpu_ms_per_move']:.3f} ms/move, desyncs {ts['bots']['desyncs']}, errors "
                      f"{ts['bots']['errors']}", flush=True)
            if tables in plan.floors_at:
                rounds = max(MIN_ROUNDS, min(MAX_ROUNDS, round(bots["moves"] / tables)))
                for key, acks in (("echo", False), ("echo_acks", True)):
                    budget.seconds(ECHO_RUN_S)
                    row[key] = _echo(echo_target, echo.pid, shares, rounds, acks, logdir, f"{key}-{tables}")
                    floor = row[key]
                    print(f"    {key}: {floor['round_trips']} round trips, p50 {floor['p50_ms']} ms, "
                          f"p99 {floor['p99_ms']} ms, {floor['round_trips_per_s']:.0f}/s, server CPU "
                          f"{floor['server_cpu_s'] * 1000 / max(1, floor['round_trips']):.3f} ms/round trip",
                          flush=True)
            result["levels"].append(row)
    except Exception as error:  # keep the levels measured so far: they are figures of the run too
        if not result["levels"]:
            raise
        result["error"] = f"{type(error).__name__}: {error}"
        print(f"  moves stopped: {result['error']}", flush=True)
    finally:
        if host is not None:
            result["host_end"] = host.stop()
        echo.stop(grace_s=5)
    return result
